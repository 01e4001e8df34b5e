// overlap's adaptive decisions (issue 22) with a made-up clock, never timings: adaptive.c alone,
// driven by test/programs/overlap_adaptive_unit.c (compiled with cc, no MPI): a RandomAccess-like
// site (receives touched at once, background 1.2x plain) is given up after three background calls
// and stays cheap over 100 000 calls; a halo-like site (2 ms of computation before the touch,
// background faster) and SOR's first shift (another call before the touch) stay on; a site whose
// background is no faster goes off. The same decisions on real jobs: overlap-decisions.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCUnit } from './c-unit.js';

function unit(): (scenario: string, calls: number) => Record<string, number> {
  const run = buildCUnit(mkdtempSync(join(tmpdir(), 'mpii-adaptive-unit-')), 'overlap_adaptive_unit', ['tools/overlap/adaptive.c']);
  return (scenario, calls) => run([scenario, String(calls)]);
}

// a two-site scenario's line (halo-pair, heavy-pair): both sites' states, reasons, first decisions
const pairOutcome = (r: Record<string, number>) => [r.a, r.b, r.a_why, r.b_why, r.a_first, r.b_first];

// OV_WHY_* in adaptive.h: the reason the report gives per site
const WHY = { exploring: 0, unhidden: 1, earlySlower: 2, earlyFaster: 3, won: 4, notWon: 5 };

describe('adaptive decisions with a made-up clock (adaptive.c)', () => {
  const run = unit();

  it("each site's own account (the report's per-site line) agrees with what ran and what was measured", () => {
    const cases: [string, number][] = [
      ['randomaccess', WHY.unhidden],
      ['halo', WHY.earlyFaster],
      ['between', WHY.earlyFaster],
      ['halo-short', WHY.won],
      ['slower', WHY.earlySlower],
      ['tie', WHY.notWon],
    ];
    for (const [sc, why] of cases) {
      const r = run(sc, 100_000);
      assert.equal(r.why, why, `${sc}: ${JSON.stringify(r)}`);
      assert.equal(r.site_background, r.background, sc);
      assert.equal(r.site_decisions, r.decisions, sc);
    }
    // the periods the decision compared: the scenario's (halo: 100 µs plain, 0.6x in the background)
    const h = run('halo', 1000);
    assert.deepEqual([h.plain_ns, h.background_ns], [100_000, 60_000]);
  });

  it('a RandomAccess-like site (touched at once, nothing between) is given up after 3 background calls', () => {
    const r = run('randomaccess', 100_000);
    assert.equal(r.first_off, 4, 'the 4th call already runs plain');
    assert.equal(r.on, 0);
    // every re-check (after 256 calls, then doubling) pays 3 background calls again, no more
    assert.equal(r.background % 3, 0, JSON.stringify(r));
    assert.ok(r.background <= 3 * r.decisions, JSON.stringify(r));
    assert.equal(r.unhidden_giveups, r.decisions, 'every decision was the give-up rule');
    // without the rule the same site pays its first background block in every exploration (4
    // calls, then 1.2x slower with the modes apart: the early loss), or a whole exploration (16)
    // where noise brings the modes together
    const old = run('randomaccess-unreported', 100_000);
    assert.equal(old.unhidden_giveups, 0);
    assert.equal(old.background, 4 * old.decisions, JSON.stringify(old));
    assert.ok(old.background > r.background, `${old.background} vs ${r.background}`);
  });

  it('a site whose receives hide computation or another call stays in the background, decided after its first blocks', () => {
    for (const sc of ['halo', 'between']) {
      const r = run(sc, 100_000);
      assert.equal(r.on, 1, sc);
      // 1.7x and 1.4x faster in the background: kept after 3 periods of each mode (the first
      // two blocks of 4 calls), not after the 12 of a full exploration
      assert.ok(r.first_decision > 0 && r.first_decision <= 10, `${sc}: ${JSON.stringify(r)}`);
      assert.equal(r.first_off, 5, `${sc}: only the first plain block ran plain`);
    }
    // the same in a 40 µs loop: three periods are too few to call a win there, the full
    // exploration decides (and still keeps it)
    {
      const r = run('halo-short', 100_000);
      assert.equal(r.on, 1);
      assert.ok(r.first_decision > 20, JSON.stringify(r));
      assert.equal(r.unhidden_giveups, 0);
      assert.ok(r.background > 99_000, JSON.stringify(r));
    }
  });

  it('a site 1.3x slower in the background, though it hides something, goes plain after its first blocks', () => {
    const r = run('slower', 100_000);
    assert.equal(r.on, 0);
    assert.equal(r.unhidden_giveups, 0, 'decided by the periods, not the give-up rule');
    assert.ok(r.first_decision > 0 && r.first_decision <= 10, JSON.stringify(r));
    // each re-check (after 256 calls, then doubling) pays its first block again, no more
    assert.ok(r.background <= 4 * r.decisions + 4, JSON.stringify(r));
  });

  it('one stalled period does not lose a block pair alone: the first exploration keeps a site 10 % faster in the background', () => {
    // 60 calls: the first decision only (a later re-check would correct a wrong one). The stall
    // makes the first background block slower than its plain pair as sums; each block is compared
    // without its mode's longest period, as the overall means are
    const r = run('halo-stall', 60);
    assert.equal(r.first_decision, 33);
    assert.equal(r.why, WHY.won, JSON.stringify(r));
    assert.equal(r.on, 1);
    assert.equal(r.background, 44, '16 exploring, then every call after the decision');
  });

  it('an early win needs every background period shorter than every plain one: a noisy first block decides nothing', () => {
    // first background periods 60, 60, 105 µs against plain 100: 1.25x faster as means, but the
    // modes overlap. Where the background is in fact 1.2x slower, the full exploration says so
    const noisy = run('noisy-start', 100);
    assert.deepEqual([noisy.first_decision, noisy.why, noisy.on, noisy.background], [33, WHY.notWon, 0, 16], JSON.stringify(noisy));
    // where it is in fact faster, the full exploration keeps it (16 calls later than an early win)
    const fast = run('fast-start', 100);
    assert.deepEqual([fast.first_decision, fast.why, fast.on], [33, WHY.won, 1], JSON.stringify(fast));
    // a clean first block still decides early
    const halo = run('halo', 100);
    assert.deepEqual([halo.first_decision, halo.why], [9, WHY.earlyFaster], JSON.stringify(halo));
  });

  it("an early win of a site called after another in the loop leaves out the periods that hold the other one's switch", () => {
    // halo-pair: B's blocks end with a period past A's switch (its last background period holds
    // A's plain exchange, its last plain one A's background one): with those periods the modes
    // never looked apart and B explored 32 calls (a 30-iteration job to its end, at plain speed)
    const pair = run('halo-pair', 100);
    assert.deepEqual(pairOutcome(pair), [1, 1, WHY.earlyFaster, WHY.earlyFaster, 9, 9], JSON.stringify(pair));
  });

  it('a loss below the early margin ends the first look when the modes are apart and the sites in step; out of step it does not', () => {
    // heavy-pair: 1.16x slower in the background, every unmixed background period longer than
    // every plain one: plain after two blocks each, not after the full exploration (call 33)
    const heavy = run('heavy-pair', 100);
    assert.deepEqual(pairOutcome(heavy), [0, 0, WHY.earlySlower, WHY.earlySlower, 9, 9], JSON.stringify(heavy));
    // mix: B's blocks, two calls behind A's, saw A in both modes; its early loss is the mix's, and
    // it still explores in full, then again once A decided (the mix test above)
    const mix = run('mix', 100);
    assert.deepEqual([mix.b, mix.b_decisions, mix.b_why], [1, 2, WHY.won], JSON.stringify(mix));
  });

  it('a site in doubt among sites that went background explores again once they decided, and keeps what the combination shows', () => {
    // A wins; B's first exploration ends in doubt (its blocks saw A's take turns too); with A in
    // the background B explores again: where B plain beside A background is slower than both
    // uniform choices (mix) it goes background, where it makes no difference (mix-fine) plain
    const mix = run('mix', 100);
    assert.deepEqual([mix.a, mix.b, mix.b_decisions, mix.b_why, mix.rechecked], [1, 1, 2, WHY.won, 1], JSON.stringify(mix));
    assert.equal(mix.last_step_us, 90, 'the loop ends at the all-background step time');
    const fine = run('mix-fine', 100);
    assert.deepEqual([fine.a, fine.b, fine.b_decisions, fine.b_why, fine.rechecked], [1, 0, 2, WHY.notWon, 1], JSON.stringify(fine));
    // both in doubt, neither in the background: nothing moved, nobody explores again
    const both = run('mix-tie', 100);
    assert.deepEqual([both.a, both.b, both.b_decisions, both.b_why, both.rechecked], [0, 0, 1, WHY.notWon, 0], JSON.stringify(both));
    // one site alone has nobody else to wait for: its doubt stands (no second exploration)
    const tie = run('tie', 100);
    assert.deepEqual([tie.why, tie.site_decisions], [WHY.notWon, 1], JSON.stringify(tie));
  });

  it('a site where the background hides something but is no faster goes back to plain', () => {
    const r = run('tie', 100_000);
    assert.equal(r.on, 0);
    assert.equal(r.unhidden_giveups, 0, 'decided by the periods, not the give-up rule');
    assert.ok(r.background < 200, JSON.stringify(r));
  });
});

// chain.c alone, with a made-up clock: where adaptive waits at a learned chain end (issue 33)
function chainUnit(): (mode: string, scenario: string, steps: number) => { waits: number; steps: number } {
  const run = buildCUnit(mkdtempSync(join(tmpdir(), 'mpii-chain-unit-')), 'overlap_chain_unit', ['tools/overlap/chain.c']);
  return (mode, scenario, steps) => {
    const r = run([mode, scenario, String(steps)]);
    assert.ok(Number.isInteger(r.waits) && Number.isInteger(r.steps), 'overlap_chain_unit printed its line');
    return { waits: r.waits, steps: r.steps };
  };
}

describe('chain ends with a made-up clock (chain.c)', () => {
  const run = chainUnit();

  it('adaptive never waits at the end of a stencil exchange whose second halo is read after the computation', () => {
    // the first fault comes 1 µs after the end, the second 500 µs later: waiting at the end would
    // keep the second halo from flying during the update (before: waited at 97 of 100 steps)
    assert.deepEqual(run('adaptive', 'stencil', 100), { waits: 0, steps: 100 });
  });

  it('adaptive waits at an end whose data is all touched at once (the faults saved), as chaining does', () => {
    // learned after chain-threshold (2) ends; every 32nd visit is a probe that does not wait
    const a = run('adaptive', 'immediate', 100);
    const c = run('chaining', 'immediate', 100);
    assert.equal(a.waits, c.waits);
    assert.ok(a.waits >= 100 - 2 - Math.ceil(100 / 32), JSON.stringify(a));
  });

  it('chaining (Natvig) waits at the stencil end all the same: only adaptive looks past the first fault', () => {
    assert.ok(run('chaining', 'stencil', 100).waits >= 90);
  });
});

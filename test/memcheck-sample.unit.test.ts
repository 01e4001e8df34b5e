// memcheck's sampling per call site (preload/tools/memcheck/sample.c) with a made-up clock and
// check cost, never timings: test/programs/memcheck_sample_unit.c, compiled with cc and linked
// with sample.c, no MPI. A site's first 16 operations are checked; then checks are spaced so that
// they cost about 1/128 of the site's time (jittered 0.5-1.5x, so 1/129 on average), faults beyond
// the model charged to the next gap; a clock that stands still (MPII_CLOCK=frozen) checks the
// first 16 only. On a real job, under that clock: memcheck.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCUnit } from './c-unit.js';

const BUDGET_PPM = 1e6 / 129; // 1/128 of the site's time, with the check itself in it

/** The checks' share of the clock's time is the budget's, within 20% (the jitter's draws). */
function assertBudget(r: Record<string, number>) {
  assert.ok(r.share_ppm > BUDGET_PPM * 0.8 && r.share_ppm < BUDGET_PPM * 1.2, JSON.stringify(r));
}

describe("memcheck's sampling with a made-up clock (sample.c)", () => {
  const run = buildCUnit(mkdtempSync(join(tmpdir(), 'mpii-sample-unit-')), 'memcheck_sample_unit', ['tools/memcheck/sample.c']);
  // arguments: operations, ns per operation, ns per check [, faults per check beyond the model [, mode]]

  it("cheap operations (1 µs, a check 16 µs): the first 16 checked, then checks cost 1/128 of the site's time", () => {
    const r = run(['1000000', '1000', '16000']);
    assert.equal(r.first, 16);
    assert.ok(r.checked > 16 && r.checked < 1000, JSON.stringify(r)); // ~1 in 2,000
    assertBudget(r);
  });

  it('operations of 100 µs: more of them checked, at the same share of the time', () => {
    const r = run(['100000', '100000', '16000']);
    assert.ok(r.checked > 100000 / 40 && r.checked < 100000 / 10, JSON.stringify(r)); // ~1 in 21
    assertBudget(r);
  });

  it('operations that take 128 checks or more are all checked', () => {
    const r = run(['100000', String(250 * 16000), '16000']);
    assert.equal(r.checked, 100000);
  });

  it('faults beyond the model (a watched receive on a hot page) are charged: fewer checks, the same share', () => {
    const plain = run(['1000000', '1000', '16000']);
    const charged = run(['1000000', '1000', '16000', '8']); // 8 faults: a check costs 3x
    assert.ok(charged.checked < plain.checked / 2, `${JSON.stringify(charged)} vs ${JSON.stringify(plain)}`);
    assertBudget(charged);
  });

  it('each site is spaced by its own time: a site called once per 1,000 of another is checked far more often', () => {
    const r = run(['1000000', '1000', '16000']);
    assert.equal(r.other_ops, 1000);
    assert.ok(r.other > r.other_ops / 4, JSON.stringify(r)); // its operations take 1 ms each: a gap of ~2
    assert.ok(r.checked < 1000000 / 1000, JSON.stringify(r));
  });

  it('a clock that stands still (MPII_CLOCK=frozen): each site checks its first 16 operations, then none', () => {
    const r = run(['100000', '0', '0']);
    assert.deepEqual([r.checked, r.first, r.other], [16, 16, 16]);
  });

  it('pending=all checks every operation; unread=off none', () => {
    assert.equal(run(['100000', '1000', '16000', '0', '2']).checked, 100000);
    assert.equal(run(['100000', '1000', '16000', '0', '0']).checked, 0);
  });
});

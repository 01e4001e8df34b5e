// The profile report's pure parts on synthetic jobs (exact numbers), symbol resolution on a real
// binary, and the monitor's binned matrices and busiest pairs against the plain computations.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execaSync } from 'execa';
import { readProfile } from '../src/profile-file/read.js';
import { SYNTH_SITES, synthAppSeconds, synthSiteCalls, synthSiteNs, synthMessages, writeSyntheticJob } from '../src/profile-file/synthetic.js';
import { imbalance, profileRuns, scaledTicks, siteTotals } from '../preload/tools/profile/report/data.js';
import { formatProfile, humanTime } from '../preload/tools/profile/report/text.js';
import { describe as describeLocation, parseModules, placeOf, Symbolizer } from '../src/report/addr2line.js';
import { binnedMatrix, binnedMatrices, matrix, monitorRuns } from '../preload/tools/monitor/report/data.js';
import { busiestPairs } from '../preload/tools/monitor/report/text.js';

const job = (n: number) => {
  const dir = mkdtempSync(join(tmpdir(), 'mpii-punit-'));
  writeSyntheticJob(dir, n);
  return readProfile(dir);
};

describe('profile report (synthetic jobs)', () => {
  const n = 40;
  const p = job(n);
  const run = profileRuns(p)[0];

  it('app and MPI time per rank, exactly', () => {
    assert.equal(run.ranks.length, n);
    assert.equal(run.timer, 'CLOCK_MONOTONIC');
    for (const r of run.ranks) {
      assert.ok(Math.abs(r.app - synthAppSeconds(r.rank)) < 1e-9, `rank ${r.rank} app`);
      const mpi = SYNTH_SITES.reduce((a, _, s) => a + synthSiteCalls(r.rank, s) * synthSiteNs(r.rank, s), 0) / 1e9;
      assert.ok(Math.abs(r.mpi - mpi) < 1e-9, `rank ${r.rank} MPI`);
      assert.equal(r.finished, true);
    }
  });

  it('call sites summed over ranks, most time first, numbered in that order', () => {
    const sites = siteTotals(run);
    assert.equal(sites.length, SYNTH_SITES.length);
    sites.forEach((t, i) => assert.equal(t.site.id, i));
    for (let i = 1; i < sites.length; i++) assert.ok(sites[i - 1].time >= sites[i].time);
    const s = SYNTH_SITES.findIndex((x) => x.fn === 1); // MPI_Recv
    const recv = sites.find((t) => t.site.fn === 'MPI_Recv')!;
    let calls = 0;
    let max = 0;
    for (let r = 0; r < n; r++) {
      calls += synthSiteCalls(r, s);
      max = Math.max(max, synthSiteNs(r, s) / 1e9);
    }
    assert.equal(recv.count, calls);
    assert.equal(recv.recv, calls * 1024);
    assert.equal(recv.sent, 0);
    assert.ok(Math.abs(recv.tmax - max) < 1e-12);
    assert.equal(recv.ranks, n);
    assert.equal(recv.site.location, 'app+0x401180', 'an object that is not here: object and offset');
    assert.match(run.problems.join(), /\/synthetic\/app is not here/);
    const rank = sites.find((t) => t.site.fn === 'MPI_Comm_rank')!;
    assert.equal(rank.smin, -1, 'no data moved: no size');
  });

  it('imbalance of MPI time across ranks', () => {
    const im = imbalance(run);
    const mpi = run.ranks.map((r) => r.mpi);
    assert.equal(im.max, Math.max(...mpi));
    assert.equal(im.min, Math.min(...mpi));
    assert.ok(Math.abs(im.ratio - Math.max(...mpi) / (mpi.reduce((a, b) => a + b, 0) / n)) < 1e-12);
  });

  it('terminal text: the busiest ranks of a big job, aligned columns, no colour unless asked', () => {
    const text = formatProfile(p, { top: 5, color: false }).join('\n');
    assert.match(text, /profile \(tool 2\): 40 ranks, call sites at stack depth 1, timer CLOCK_MONOTONIC/);
    assert.match(text, /app vs MPI time per rank \(the 16 ranks with the most MPI time; \* = all 40\):/);
    const table = text.split('\n').filter((l) => /^ {4}\s*(\d+|\*)\s+\d+\.\d{4}\s+\d+\.\d{4}\s+\d+\.\d{2}$/.test(l));
    assert.equal(table.length, 17);
    assert.equal(new Set(table.map((l) => l.length)).size, 1, 'aligned');
    assert.match(text, /call sites by MPI time \(mpiP: Callsites\):\n\s+site\s+call\s+location\n/);
    assert.match(text, /time per call site, all ranks \(mpiP: Aggregate Time\):\n\s+site\s+call\s+time\s+app %\s+MPI %\s+calls\s+COV\n/);
    assert.match(text, /time per call, all ranks \(mpiP: Callsite Time statistics\):\n\s+site\s+call\s+calls\s+min\s+mean\s+max\n/);
    assert.match(text, /… 2 more call sites/);
    // eslint-disable-next-line no-control-regex -- the escape sequences of a terminal (ESC [) are what this looks for
    assert.doesNotMatch(text, /\x1b\[/);
    // eslint-disable-next-line no-control-regex -- the escape sequences of a terminal (ESC [) are what this looks for
    assert.match(formatProfile(p, { color: true }).join('\n'), /\x1b\[1m/);
  });

  it('times with units', () => {
    assert.equal(humanTime(0), '0');
    assert.equal(humanTime(2.5), '2.500 s');
    assert.equal(humanTime(0.0125), '12.500 ms');
    assert.equal(humanTime(3.2e-6), '3.20 µs');
    assert.equal(humanTime(4e-8), '40 ns');
  });

  it("sampled times: a site's first 64 calls count once, the later timed calls stand for the later calls", () => {
    // 64 timed first calls, one of them 1,000,000 ticks (a connection set up), 63 of 100; then
    // 10,000 calls of 100 ticks, 160 of them timed
    const first = 1_000_000 + 63 * 100,
      later = 160 * 100;
    assert.equal(scaledTicks(64 + 10_000, 64 + 160, first + later, first), first + 10_000 * 100);
    // the old estimate would have multiplied the slow first call by 45
    assert.ok(Math.abs(scaledTicks(64 + 10_000, 64 + 160, first + later) - (first + later) * (10_064 / 224)) < 1e-6);
    assert.equal(scaledTicks(50, 50, 5000, 5000), 5000); // all timed
    assert.equal(scaledTicks(70, 64, 6400, 6400), 7000); // none of the later calls timed yet: the first calls' mean
    assert.equal(scaledTicks(0, 0, 0, 0), 0);
  });

  it('sampled times of a hot site: the dense stretch (one in N) and the sparse one (one in 16 N) each scaled by its own rate', () => {
    // 64 first calls of 100 ticks; then 65,536 calls of 100 ticks, 1,024 of them timed; then
    // 1,048,576 calls of 50 ticks (the program's phase changed), 1,024 of them timed
    const first = 64 * 100,
      dense = { calls: 64 + 65_536, ticks: 1024 * 100 },
      sparse = 1024 * 50;
    const count = dense.calls + 1_048_576,
      timed = 64 + 1024 + 1024,
      ticks = first + dense.ticks + sparse;
    assert.equal(scaledTicks(count, timed, ticks, first, dense), first + 65_536 * 100 + 1_048_576 * 50);
    // one scale for both stretches would weigh the dense one's 65,536 calls as half of them
    const oneScale = scaledTicks(count, timed, ticks, first);
    assert.ok(oneScale > 1.4 * (first + 65_536 * 100 + 1_048_576 * 50), `one scale: ${oneScale}`);
    // no sparse call timed yet: the dense stretch's mean stands for them
    assert.equal(scaledTicks(dense.calls + 500, 64 + 1024, first + dense.ticks, first, dense), first + 65_536 * 100 + 500 * 100);
    // a profile that never left its dense stretch (dense_calls 0) scales as before
    assert.equal(scaledTicks(64 + 10_000, 64 + 160, first + 160 * 100, first, { calls: 0, ticks: 0 }), first + 10_000 * 100);
  });
});

describe('symbols', () => {
  it('places: the object holding an address and the offset there', () => {
    const mods = parseModules(['7f0000001000 7f0000002000 7f0000000000 /lib/libx.so', 'garbage', '401000 402000 0 /bin/app']);
    assert.equal(mods.length, 2);
    assert.deepEqual(placeOf(mods, 0x7f0000001234), { path: '/lib/libx.so', offset: 0x1234 });
    assert.deepEqual(placeOf(mods, 0x401100), { path: '/bin/app', offset: 0x401100 });
    assert.deepEqual(placeOf(mods, 0x10), { path: '', offset: 0x10 });
  });

  it('addr2line on a real binary: function, file and line of a return address', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-sym-'));
    const src = join(dir, 'where.c');
    writeFileSync(
      src,
      [
        'int __attribute__((noinline)) callee(int x) { return x * 3; }',
        'int __attribute__((noinline)) caller(int x)',
        '{',
        '    int y = callee(x);', // line 4
        '    return y + 1;',
        '}',
        'int main(void) { return caller(1) == 4 ? 0 : 1; }',
        '',
      ].join('\n'),
    );
    const bin = join(dir, 'where');
    execaSync('cc', ['-O1', '-g', '-o', bin, src]);
    // the return address of the call in caller(): the instruction after `call callee`
    const dis = execaSync('objdump', ['-d', '--no-show-raw-insn', bin]).stdout.split('\n');
    const start = dis.findIndex((l) => /<caller>:$/.test(l));
    const callAt = dis.slice(start).findIndex((l) => /call.*<callee>/.test(l)) + start;
    const ret = Number.parseInt(dis[callAt + 1].trim().split(':')[0], 16);
    const sym = new Symbolizer();
    sym.add({ path: bin, offset: ret });
    sym.add({ path: join(dir, 'gone'), offset: 16 });
    sym.resolve();
    const l = sym.get({ path: bin, offset: ret });
    assert.equal(l.func, 'caller');
    assert.equal(l.line, 4);
    assert.match(l.file, /where\.c$/);
    assert.equal(describeLocation(l), 'where.c:4 caller');
    assert.equal(describeLocation(sym.get({ path: join(dir, 'gone'), offset: 16 })), 'gone+0x10');
    assert.match(sym.problems.join(), /gone is not here/);
  });
});

describe('monitor matrices at scale', () => {
  const p = job(50);
  const run = monitorRuns(p)[0];

  it('binned matrices sum the plain one, for every class at once', () => {
    const all = binnedMatrices(run, 8);
    assert.equal(all.block, 7);
    assert.equal(all.side, 8);
    for (const cls of ['all', 'p2p', 'coll'] as const) {
      for (const what of ['bytes', 'count'] as const) {
        const m = matrix(run, cls, what);
        const one = binnedMatrix(run, cls, what, 8);
        assert.deepEqual([...one.cells], [...all.cells[cls][what]]);
        let sum = 0;
        for (let i = 0; i < 7; i++) for (let j = 7; j < 14; j++) sum += m[i][j];
        assert.equal(all.cells[cls][what][1], sum, `${cls} ${what}: block (0,1)`);
      }
    }
    assert.equal(run.ranks[3].peers.get(4)?.p2p.count, synthMessages(3, 4));
  });

  it('busiest pairs without sorting every pair', () => {
    const pairs: { from: number; to: number; bytes: number; count: number }[] = [];
    for (const r of run.ranks) for (const [to, s] of r.peers) if (s.p2p.count) pairs.push({ from: r.rank, to, bytes: s.p2p.bytes, count: s.p2p.count });
    pairs.sort((a, b) => b.bytes - a.bytes || b.count - a.count || a.from - b.from || a.to - b.to);
    const got = busiestPairs(run, 12);
    assert.equal(got.total, pairs.length);
    assert.deepEqual(got.pairs, pairs.slice(0, 12));
  });
});

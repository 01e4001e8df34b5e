#!/usr/bin/env node
// bench/profile.mjs - what does the `profile` tool cost on the smallest messages?
//
// For each installed MPI (Open MPI, MPICH):
//   1. side by side in one run, the verdict (bench/pingpong_paired.c): an 8-byte ping-pong, -np 2,
//      shared memory, in pairs of 1000-round-trip chunks, one chunk through MPI_Send/MPI_Recv (the
//      stack: `mpii run --tools ''` = the shim alone, `noop`, `profile` (times sampled, the
//      default), `profile[sample=1]` (every call timed)), the other through PMPI_Send/PMPI_Recv
//      (the MPI library directly: the shim defines no PMPI_ symbols); a run's figure is the median
//      of its pairs' ratios, PAIRED_RUNS runs per configuration, interleaved. The two chunks of a
//      pair run a millisecond apart on the same cores, so the VM's swings between runs (whole runs
//      ~2x slower now and then: the host's placement of the vCPUs) cancel out. Printed for all
//      runs and split by the run's direct half round trip into the fast and the slow state: a
//      fixed cost per call weighs most in the fast state;
//   2. the same ping-pong across runs (bench/pingpong.c), for shared memory and, for Open MPI,
//      TCP on loopback (`--mca pml ob1 --mca btl tcp,self`): the launcher alone (`plain`) against
//      the stack configurations, interleaved in rounds; lower quartiles, medians, per-round
//      ratios and counts of slow runs (> 1.5x the configuration's quartile), since medians of
//      20-40 runs jump by the share of slow runs each configuration happened to get;
//   3. the cost per MPI call without a network (bench/calls.c: one process, MPI_Send to
//      MPI_PROC_NULL) under an empty stack, a noop layer, profile and profile[sample=1], minima of CALL_ROUNDS rounds;
//      and, where valgrind is installed, the instructions per call counted by callgrind (the
//      difference of a 200000- and a 600000-call run; also for an 8-byte Isend + Recv + Wait to
//      itself, the library's real point-to-point path): exact however busy the machine is.
// Every `profile` run's own profile is checked too: rank 0's MPI_Send and MPI_Recv call sites
// must hold exactly the ping-pongs of the run (warm-up included), so the tool measured really ran.
//
// Usage (after `npm run build`): node bench/profile.mjs
// Knobs (environment): PAIRED_RUNS (default 12), PAIRS (pairs of chunks per run, default 150),
// ROUNDS (default 40, cut short after BUDGET_S=90 s per MPI), ITERS (ping-pongs per run,
// default 100000), MPI=openmpi|mpich, TRANSPORT=shm|tcp (default both).
// Plain text on stdout; progress on stderr.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flavorHeader, forEachFlavor, log, lpad, median, mpiiRun, pad, quantile, ROOT, run, runRetry, shuffle, which } from './common.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 40);
const ITERS = Number(process.env.ITERS ?? 100000);
const SIZE = 8;
const TIME_BUDGET_MS = Number(process.env.BUDGET_S ?? 90) * 1000;
const TARGET = 1.05;
const CALLS = Number(process.env.CALLS ?? 10000000);
const CALL_ROUNDS = Number(process.env.CALL_ROUNDS ?? 10);
const PAIRED_RUNS = Number(process.env.PAIRED_RUNS ?? 12);
const PAIRS = Number(process.env.PAIRS ?? 150);

const { readProfile } = await import('../dist/src/profile-file/read.js');
const { profileRuns, siteTotals } = await import('../dist/preload/tools/profile/report/data.js');

const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-profile-'));
let outSeq = 0;

/** Rank 0's sends and receives as the profile counted them. */
function counted(dir) {
  const sites = siteTotals(profileRuns(readProfile(dir))[0]);
  const calls = (fn) => sites.filter((t) => t.site.fn === fn).reduce((a, t) => a + (t.site.frames.length ? t.count : 0), 0);
  return { send: calls('MPI_Send'), recv: calls('MPI_Recv') };
}

const TRANSPORTS = {
  shm: { label: 'shared memory', args: [], iters: ITERS },
  // a TCP round trip costs ~100x one over shared memory: a tenth of the iterations
  tcp: { label: 'TCP over loopback', args: ['--mca', 'pml', 'ob1', '--mca', 'btl', 'tcp,self'], iters: Math.max(1, Math.round(ITERS / 10)) },
};

function measure(fl, exe, transport) {
  const iters = TRANSPORTS[transport].iters;
  const prog = ['-np', '2', ...fl.extra, ...TRANSPORTS[transport].args, exe, String(iters), String(SIZE)];
  const mpii = (tools) => () => {
    const out = join(tmp, `out-${++outSeq}`);
    return { argv: mpiiRun(out, tools, ...prog), out };
  };
  const configs = [
    { name: 'plain', make: () => ({ argv: [fl.run, ...prog] }) },
    { name: 'empty stack', make: mpii('') },
    { name: 'profile', make: mpii('profile') },
    { name: 'every call', make: mpii('profile[sample=1]') },
  ];
  const parse = (stdout) => {
    const m = /half_rtt_ns=([\d.]+)/.exec(stdout);
    if (!m) throw new Error(`no half_rtt_ns in output:\n${stdout}`);
    return Number(m[1]);
  };
  const once = (c) => {
    const { argv, out } = c.make();
    const v = parse(runRetry(argv).stdout);
    if (c.name === 'profile' || c.name === 'every call') {
      const n = counted(out);
      const want = 2 * (iters + 1000); // both ranks' calls: the timed loop and 1000 warm-up rounds
      if (n.send !== want || n.recv !== want) throw new Error(`profile counted ${n.send} sends and ${n.recv} receives, expected ${want} each`);
    }
    rmSync(out ?? join(tmp, 'none'), { recursive: true, force: true });
    return v;
  };
  for (const c of configs) once(c); // warm-up: builds the shim if needed, checks every configuration
  const samples = new Map(configs.map((c) => [c.name, []]));
  const t0 = Date.now();
  let rounds = 0;
  for (; rounds < ROUNDS; rounds++) {
    if (rounds >= 3 && ((Date.now() - t0) / rounds) * (rounds + 1) > TIME_BUDGET_MS) {
      log(`${fl.label} ${transport}: time budget reached after ${rounds} rounds`);
      break;
    }
    for (const c of shuffle(configs)) samples.get(c.name).push(once(c));
    log(`${fl.label} ${transport}: round ${rounds + 1}/${ROUNDS} done (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
  const med = (k) => median(samples.get(k));
  const min = (k) => Math.min(...samples.get(k));
  const q1 = (k) => quantile(samples.get(k), 0.25);
  const slow = (k) => samples.get(k).filter((x) => x > 1.5 * q1(k)).length;
  // per round: each configuration against the plain run of the same round
  const paired = (k) => median(samples.get(k).map((x, i) => x / samples.get('plain')[i]));
  const lines = [
    `${fl.label}: ${SIZE}-byte ping-pong, -np 2, ${TRANSPORTS[transport].label}, ${iters} iters/run, ${rounds} interleaved rounds, half round trip`,
  ];
  lines.push(
    `  ${pad('config', 12)} ${lpad('quartile', 9)} ${lpad('vs plain', 9)} ${lpad('median', 8)} ${lpad('vs plain', 9)} ${lpad('paired', 7)} ${lpad('slow', 5)}   all samples (ns, sorted)`,
  );
  for (const c of configs) {
    const sorted = [...samples.get(c.name)].sort((a, b) => a - b);
    lines.push(
      `  ${pad(c.name, 12)} ${lpad(q1(c.name).toFixed(1), 9)} ${lpad((q1(c.name) / q1('plain')).toFixed(3) + 'x', 9)} ` +
        `${lpad(med(c.name).toFixed(1), 8)} ${lpad((med(c.name) / med('plain')).toFixed(3) + 'x', 9)} ${lpad(paired(c.name).toFixed(3) + 'x', 7)} ` +
        `${lpad(slow(c.name), 5)}   ${sorted.map((x) => x.toFixed(0)).join(' ')}`,
    );
  }
  const ratio = q1('profile') / q1('plain');
  lines.push(`profile / plain = ${ratio.toFixed(3)}x from lower quartiles across runs`);
  lines.push(
    `  (medians ${(med('profile') / med('plain')).toFixed(3)}x, per-round ratios ${paired('profile').toFixed(3)}x, minima ${(min('profile') / min('plain')).toFixed(3)}x; ` +
      `slow runs: plain ${slow('plain')}, profile ${slow('profile')} of ${rounds})`,
  );
  lines.push(
    `  (empty stack / plain = ${(q1('empty stack') / q1('plain')).toFixed(3)}x, profile / empty stack = ${(q1('profile') / q1('empty stack')).toFixed(3)}x, ` +
      `profile adds ${(q1('profile') - q1('empty stack')).toFixed(1)} ns per half round trip; quartiles)`,
  );
  lines.push(
    `  (every call timed, profile[sample=1] / plain = ${(q1('every call') / q1('plain')).toFixed(3)}x; medians ${(med('every call') / med('plain')).toFixed(3)}x)`,
  );
  lines.push(`  (check: every profile run counted exactly its ${2 * (iters + 1000)} sends and receives)`);
  return lines;
}

/** Side by side in one run (bench/pingpong_paired.c): pairs of 1000-round-trip chunks, one
 *  through MPI_Send/MPI_Recv (the stack under test), one through PMPI_Send/PMPI_Recv (the library
 *  directly), a millisecond apart; each run's figure is the median of its pairs' ratios. Runs of
 *  the configurations interleaved. A run's direct half round trip tells the VM's state it ran in:
 *  the fast state (the two vCPUs close) is where a fixed cost per call weighs most. */
function sideBySide(fl, exe) {
  const configs = [
    ['empty stack', ''],
    ['noop', 'noop'],
    ['profile', 'profile'],
    ['every call', 'profile[sample=1]'],
  ];
  const runs = new Map(configs.map(([n]) => [n, []]));
  for (let round = 0; round < PAIRED_RUNS; round++) {
    for (const [name, tools] of shuffle(configs)) {
      const argv = mpiiRun(join(tmp, `out-${++outSeq}`), tools, '-np', '2', ...fl.extra, exe, String(PAIRS), '1000', String(SIZE));
      const m = /direct_ns=([\d.]+) stack_ns=[\d.]+ ratio=([\d.]+)/.exec(runRetry(argv).stdout);
      if (!m) throw new Error('no ratio in the output of bench/pingpong_paired.c');
      runs.get(name).push({ direct: Number(m[1]), ratio: Number(m[2]) });
    }
    log(`${fl.label} side by side: round ${round + 1}/${PAIRED_RUNS} done`);
  }
  const all = [...runs.values()].flat().map((r) => r.direct);
  const split = quantile(all, 0.5); // below: the faster half of all runs
  const stat = (rs) =>
    rs.length
      ? `${lpad(median(rs.map((r) => r.ratio)).toFixed(3) + 'x', 7)} ${lpad(median(rs.map((r) => (r.ratio - 1) * r.direct)).toFixed(1), 6)} ns ${lpad(rs.length, 3)} runs`
      : lpad('-', 28);
  const lines = [
    `${fl.label}: ${SIZE}-byte ping-pong side by side in one run, ${PAIRS} pairs of 1000-round-trip chunks per run, ${PAIRED_RUNS} rounds;`,
    `  per configuration: median over runs of (stack / direct) and of the ns it adds per half round trip; split at the median direct half round trip (${split.toFixed(0)} ns)`,
    `  ${pad('config', 12)} ${pad('all runs', 28)}   ${pad('fast state', 28)}   ${pad('slow state', 28)}`,
  ];
  for (const [k] of configs) {
    const rs = runs.get(k);
    lines.push(`  ${pad(k, 12)} ${stat(rs)}   ${stat(rs.filter((r) => r.direct < split))}   ${stat(rs.filter((r) => r.direct >= split))}`);
  }
  const ratio = median(runs.get('profile').map((r) => r.ratio));
  const fast = runs.get('profile').filter((r) => r.direct < split);
  const fastRatio = fast.length ? median(fast.map((r) => r.ratio)) : NaN;
  lines.push(
    `profile / direct = ${ratio.toFixed(3)}x side by side (target <= ${TARGET}x)${ratio <= TARGET ? '' : '  <-- ABOVE TARGET'}; ` +
      `in the fast state ${fastRatio.toFixed(3)}x${fastRatio <= TARGET ? '' : '  <-- ABOVE TARGET'}`,
  );
  return lines;
}

/** Single process, no network: MPI_Send to MPI_PROC_NULL in a loop, nanoseconds per call under
 *  an empty stack, one noop layer and profile. Noise from other processes only adds time, so the
 *  minima are the figure; the difference profile − empty stack is what the tool adds per call. */
function perCall(fl, exe) {
  const prog = ['-np', '1', ...fl.extra, exe, String(CALLS)];
  const mpii = (tools) => mpiiRun(join(tmp, `out-${++outSeq}`), tools, ...prog);
  const configs = [
    ['empty stack', ''],
    ['noop', 'noop'],
    ['profile', 'profile'],
    ['every call', 'profile[sample=1]'],
  ];
  const samples = new Map(configs.map(([n]) => [n, []]));
  for (let round = 0; round < CALL_ROUNDS; round++) {
    for (const [name, tools] of shuffle(configs)) {
      const m = /ns_per_call=([\d.]+)/.exec(runRetry(mpii(tools)).stdout);
      if (!m) throw new Error('no ns_per_call in the output of bench/calls.c');
      samples.get(name).push(Number(m[1]));
    }
  }
  const min = (k) => Math.min(...samples.get(k));
  const med = (k) => median(samples.get(k));
  return [
    `${fl.label}: cost per MPI call, one process, MPI_Send to MPI_PROC_NULL, ${CALLS} calls/run, ${CALL_ROUNDS} rounds (min / median ns per call)`,
    ...configs.map(([k]) => `  ${pad(k, 12)} ${lpad(min(k).toFixed(2), 7)} / ${med(k).toFixed(2)}`),
    `profile adds ${(min('profile') - min('empty stack')).toFixed(1)} ns per call (from minima; timing every call: ${(min('every call') - min('empty stack')).toFixed(1)} ns; a noop layer: ${(min('noop') - min('empty stack')).toFixed(1)} ns)`,
  ];
}

/** Instructions per MPI call (per iteration with `mode` self) under `tools`, counted by callgrind:
 *  no noise, but no cycles either. */
function instructionsPerCall(fl, exe, tools, mode = '') {
  const total = (n) => {
    const file = join(tmp, `callgrind-${++outSeq}`);
    // the program is valgrind, so mpii is told which MPI the real program uses
    const prog = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${file}`, exe, String(n), ...(mode ? [mode] : [])];
    run(mpiiRun(join(tmp, `out-${++outSeq}`), tools, '--mpi', fl.name, '-np', '1', ...fl.extra, ...prog), 600_000);
    const m = /^summary: (\d+)/m.exec(readFileSync(file, 'utf8'));
    if (!m) throw new Error(`no summary line in ${file}`);
    return Number(m[1]);
  };
  return (total(600000) - total(200000)) / 400000;
}

forEachFlavor(tmp, (fl) => {
  const exe = join(tmp, `pingpong-${fl.name}`);
  run([fl.cc, '-O2', '-g', '-o', exe, join(ROOT, 'bench', 'pingpong.c')]);
  console.log(flavorHeader(fl));
  // MPICH's TCP (UCX_TLS=tcp) hangs now and then in MPI_Finalize here (see bench/README.md)
  const transports = (process.env.TRANSPORT ?? 'shm,tcp').split(',').filter((t) => TRANSPORTS[t] && (t === 'shm' || fl.ompi));
  const paired = join(tmp, `pingpong-paired-${fl.name}`);
  run([fl.cc, '-O2', '-o', paired, join(ROOT, 'bench', 'pingpong_paired.c')]);
  for (const l of sideBySide(fl, paired)) console.log(l);
  console.log('');
  for (const t of transports) {
    for (const l of measure(fl, exe, t)) console.log(l);
    console.log('');
  }
  const calls = join(tmp, `calls-${fl.name}`);
  run([fl.cc, '-O2', '-o', calls, join(ROOT, 'bench', 'calls.c')]);
  for (const l of perCall(fl, calls)) console.log(l);
  if (which('valgrind')) {
    for (const [mode, what] of [
      ['', 'MPI_Send to MPI_PROC_NULL'],
      ['self', 'Isend + Recv + Wait of 8 bytes to itself'],
    ]) {
      const counts = [
        ['empty stack', ''],
        ['noop', 'noop'],
        ['profile', 'profile'],
        ['every call', 'profile[sample=1]'],
      ].map(([name, tools]) => `${name} ${instructionsPerCall(fl, calls, tools, mode).toFixed(0)}`);
      console.log(`${fl.label}: instructions per ${what} (callgrind, whole calls): ${counts.join(', ')}`);
    }
  }
  console.log('');
});

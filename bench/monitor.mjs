#!/usr/bin/env node
// bench/monitor.mjs - what does the `monitor` tool cost, and is it cheaper than Open MPI's own monitoring?
//
// For each installed MPI (Open MPI, MPICH):
//   1. compile bench/pingpong.c and bench/alltoall.c with that MPI's mpicc;
//   2. run three benchmarks, one after the other:
//        - 8-byte ping-pong, -np 2 (half round-trip time);
//        - MPI_Alltoall with 8 bytes per peer, -np 2 (time per call, slowest rank);
//        - the same with -np 4, where it is not hopeless (see `np4Ok`);
//      each under these configurations: the launcher alone (`plain`), `mpii run --tools ''`
//      (`empty stack`), `mpii run --tools monitor` (`monitor`) and, on Open MPI only, Open MPI's
//      in-library monitoring (`ompi monitoring`: pml/coll/osc monitoring components, no output);
//      configurations interleaved in rounds (order shuffled every round), median per config;
//   3. per benchmark a table + `monitor / plain` and `monitor / ompi monitoring` against their targets.
//
// Usage (after `npm run build`): node bench/monitor.mjs
// Knobs (environment): ROUNDS (rounds per benchmark, default 40, cut short after BUDGET_S=45 s per
// benchmark), ITERS (ping-pongs and -np 2 all-to-alls per run, default 100000; -np 4 runs ITERS/10),
// MPI=openmpi|mpich.
// Plain text on stdout; progress on stderr.
import { mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { flavorHeader, forEachFlavor, log, lpad, median, mpiiRun, pad, ROOT, run, runRetry, shuffle } from './common.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 40);
const ITERS = Number(process.env.ITERS ?? 100000);
const SIZE = 8;
const TIME_BUDGET_MS = Number(process.env.BUDGET_S ?? 45) * 1000; // per benchmark: stop early rather than overrun

// Open MPI's monitoring: pml_monitoring_enable is the one switch for the pml, coll and osc monitoring
// components (2 = point-to-point and collective traffic counted apart, as `monitor` does); output 0
// means counting only, nothing printed or written at MPI_Finalize (mpii's monitor does write its
// profile, but after the timed loop, so neither side pays for output inside the measurement).
const OMPI_MON = ['--mca', 'pml_monitoring_enable', '2', '--mca', 'pml_monitoring_enable_output', '0'];

const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-'));
let outSeq = 0;

function mpiiArgs(tools, prog) {
  // no --mpi: let mpii detect the MPI from the binary, as a user's run would; a fresh --out per run so
  // that no run finds (or waits on) another run's profile
  return mpiiRun(join(tmp, `out-${++outSeq}`), tools, ...prog);
}

function configs(fl, prog) {
  return [
    { name: 'plain', argv: () => [fl.run, ...prog] },
    { name: 'empty stack', argv: () => mpiiArgs('', prog) },
    { name: 'monitor', argv: () => mpiiArgs('monitor', prog) },
    ...(fl.ompi ? [{ name: 'ompi monitoring', argv: () => [fl.run, ...OMPI_MON, ...prog] }] : []),
  ];
}

/**
 * Proves that Open MPI's monitoring is really on with OMPI_MON: the same run with output enabled
 * (pml_monitoring_enable_output 1 prints the counters to stdout at MPI_Finalize) must show the
 * traffic. Without this a misspelt or ignored MCA parameter would make "ompi monitoring" look free.
 */
function checkOmpiMonitoring(fl, b) {
  const on = [...OMPI_MON.slice(0, -1), '1']; // same settings, but pml_monitoring_enable_output 1
  const out = runRetry([fl.run, ...on, ...b.prog(b.checkIters)]).stdout;
  const n = b.monitored(out);
  if (!(n >= b.checkIters)) {
    throw new Error(`Open MPI's monitoring did not count the ${b.what} (${on.join(' ')}); output:\n${out}`);
  }
  return `check: Open MPI's monitoring is on; it counted ${n} ${b.what} in a ${b.checkIters}-iteration run`;
}

/** one benchmark: warm-up, interleaved rounds within the time budget, table and ratios */
function measure(fl, b) {
  const cs = configs(fl, b.prog(b.iters));
  const parse = (out) => {
    const m = b.metric.exec(out);
    if (!m) throw new Error(`no ${b.metric.source} in output:\n${out}`);
    return Number(m[1]);
  };
  // warm-up: builds/validates the cached shim and checks every configuration runs at all
  for (const c of cs) parse(runRetry(c.argv()).stdout);
  const check = fl.ompi ? checkOmpiMonitoring(fl, b) : null;
  const samples = new Map(cs.map((c) => [c.name, []]));
  const t0 = Date.now();
  let rounds = 0;
  for (; rounds < ROUNDS; rounds++) {
    if (rounds >= 3 && ((Date.now() - t0) / rounds) * (rounds + 1) > TIME_BUDGET_MS) {
      log(`${fl.label} ${b.short}: time budget reached after ${rounds} rounds`);
      break;
    }
    for (const c of shuffle(cs)) samples.get(c.name).push(parse(runRetry(c.argv()).stdout));
    log(`${fl.label} ${b.short}: round ${rounds + 1}/${ROUNDS} done (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
  const med = new Map(cs.map((c) => [c.name, median(samples.get(c.name))]));
  const mins = new Map(cs.map((c) => [c.name, Math.min(...samples.get(c.name))]));
  const plain = med.get('plain');
  const lines = [];
  lines.push(`${fl.label}: ${b.title}, ${b.iters} iters/run, ${rounds} interleaved rounds, median ${b.unit}`);
  lines.push(`  ${pad('config', 15)} ${lpad('median ns', 10)} ${lpad('vs plain', 9)}  ${lpad('min ns', 9)}   all samples (ns, sorted)`);
  for (const c of cs) {
    const m = med.get(c.name);
    const sorted = [...samples.get(c.name)].sort((x, y) => x - y);
    const s = sorted.map((x) => x.toFixed(0)).join(' ');
    lines.push(`  ${pad(c.name, 15)} ${lpad(m.toFixed(1), 10)} ${lpad((m / plain).toFixed(3) + 'x', 9)}  ${lpad(sorted[0].toFixed(1), 9)}   ${s}`);
  }
  const vsPlain = med.get('monitor') / plain;
  lines.push(`monitor / plain = ${vsPlain.toFixed(3)}x (target <= 1.03x)${vsPlain <= 1.03 ? '' : '  <-- ABOVE TARGET'}`);
  if (fl.ompi) {
    const vsOmpi = med.get('monitor') / med.get('ompi monitoring');
    lines.push(`monitor / ompi monitoring = ${vsOmpi.toFixed(3)}x (target < 1: cheaper than Open MPI's)${vsOmpi < 1 ? '' : '  <-- NOT CHEAPER'}`);
  }
  // where the cost sits: the shim being there at all vs the tool's own counting
  lines.push(
    `  (empty stack / plain = ${(med.get('empty stack') / plain).toFixed(3)}x, monitor / empty stack = ${(med.get('monitor') / med.get('empty stack')).toFixed(3)}x)`,
  );
  // noise on a shared machine only ever adds time, so the minima are a second, optimistic view
  const minOmpi = fl.ompi ? `, monitor / ompi monitoring = ${(mins.get('monitor') / mins.get('ompi monitoring')).toFixed(3)}x` : '';
  lines.push(`  (from minima: monitor / plain = ${(mins.get('monitor') / mins.get('plain')).toFixed(3)}x${minOmpi})`);
  if (check) lines.push(`  (${check})`);
  return lines;
}

/**
 * -np 4 on fewer than 4 cores only makes sense if the MPI yields the core while it waits: Open MPI
 * does under --oversubscribe; MPICH (ch4) busy-polls, so an oversubscribed all-to-all takes
 * milliseconds of scheduler time slices per call and measures the scheduler, not the tool.
 */
const np4Ok = (fl) => fl.ompi || availableParallelism() >= 4;

function benchmarks(fl, pingpong, alltoall) {
  const pp = {
    short: 'ping-pong',
    title: `${SIZE}-byte ping-pong, -np 2, shared memory`,
    unit: 'half round trip',
    what: 'messages from rank 0 to 1 (warm-up included)',
    iters: ITERS,
    checkIters: 1000,
    prog: (n) => ['-np', '2', ...fl.extra, pingpong, String(n), String(SIZE)],
    metric: /half_rtt_ns=([\d.]+)/,
    // "E <rank> <peer> <bytes> bytes <count> msgs sent ..." is rank 0's external point-to-point line
    monitored: (out) => Number(/^E\s+0\s+1\s+\d+ bytes\s+(\d+) msgs sent/m.exec(out)?.[1]),
  };
  const a2a = (np, iters) => ({
    short: `alltoall -np ${np}`,
    title: `MPI_Alltoall, ${SIZE} bytes per peer, -np ${np}${np > availableParallelism() ? ` (oversubscribed: ${availableParallelism()} cores)` : ''}`,
    unit: 'time per call (slowest rank)',
    what: 'collectives on MPI_COMM_WORLD (warm-up and barriers included)',
    iters,
    checkIters: 1000,
    prog: (n) => ['-np', String(np), ...fl.extra, alltoall, String(n), String(SIZE)],
    metric: /ns_per_call=([\d.]+)/,
    // "A2A <rank> <bytes> bytes <count> msgs sent" after "D MPI_COMM_WORLD": all-to-all traffic on
    // MPI_COMM_WORLD as counted by the coll monitoring component (communicators come in any order)
    monitored: (out) => Number(/^D\s+MPI_COMM_WORLD\b.*\n(?:.*\n)*?A2A\s+\d+\s+\d+ bytes\s+(\d+) msgs sent/m.exec(out)?.[1]),
  });
  const list = [pp, a2a(2, ITERS)];
  // -np 4 runs ITERS/10 calls: each call is ~10x dearer with 4 ranks on 2 cores
  if (np4Ok(fl)) list.push(a2a(4, Math.max(1, Math.round(ITERS / 10))));
  return list;
}

forEachFlavor(tmp, (fl) => {
  const pingpong = join(tmp, `pingpong-${fl.name}`);
  const alltoall = join(tmp, `alltoall-${fl.name}`);
  run([fl.cc, '-O2', '-o', pingpong, join(ROOT, 'bench', 'pingpong.c')]);
  run([fl.cc, '-O2', '-o', alltoall, join(ROOT, 'bench', 'alltoall.c')]);
  console.log(flavorHeader(fl));
  let failed = 0;
  for (const b of benchmarks(fl, pingpong, alltoall)) {
    // one failed benchmark should not cost the others their results
    try {
      for (const l of measure(fl, b)) console.log(l);
    } catch (e) {
      failed++;
      console.log(`${fl.label} ${b.short}: benchmark failed: ${e.message}`);
    }
    console.log('');
  }
  if (!np4Ok(fl)) {
    console.log(`${fl.label}: alltoall -np 4 skipped: ${availableParallelism()} cores, and ${fl.label} busy-polls when oversubscribed\n`);
  }
  return failed;
});

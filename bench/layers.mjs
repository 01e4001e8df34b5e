#!/usr/bin/env node
// bench/layers.mjs - what does a layer of mpii cost?
//
// For each installed MPI (Open MPI, MPICH):
//   1. compile bench/pingpong.c and a tiny hello (MPI_Init/MPI_Finalize) with that MPI's mpicc;
//   2. 8-byte ping-pong half round-trip latency, -np 2, shared memory, for: the launcher alone
//      (no preload), `mpii run --tools ''` (shim, empty stack), and 1, 10, 100 `noop` layers;
//      configurations interleaved in rounds (order shuffled every round), median per config;
//   3. a table + `empty stack / plain` and `per noop layer` against their targets;
//   4. warm-cache launch overhead: wall clock of `mpii run --quiet --tools ''` vs the launcher
//      alone on hello, interleaved, medians; plus the time of `mpii run --dry-run` (mpii's own
//      cost before the launcher starts) and of a bare `node -e ''` for reference.
//
// Usage (after `npm run build`): node bench/layers.mjs
// Knobs (environment): ROUNDS (latency rounds, default 25, cut short after BUDGET_S=140 s),
// ITERS (ping-pongs per run, default 100000), LAUNCH_ROUNDS (default 10), MPI=openmpi|mpich.
// Plain text on stdout; progress on stderr.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flavorHeader, forEachFlavor, log, lpad, median, mpiiRun, pad, ROOT, run, runRetry, shuffle } from './common.mjs';

const PINGPONG = join(ROOT, 'bench', 'pingpong.c');
const ROUNDS = Number(process.env.ROUNDS ?? 25);
const ITERS = Number(process.env.ITERS ?? 100000);
const LAUNCH_ROUNDS = Number(process.env.LAUNCH_ROUNDS ?? 10);
const SIZE = 8;
const LAYERS = [1, 10, 100];
const TIME_BUDGET_MS = Number(process.env.BUDGET_S ?? 140) * 1000; // per MPI, latency rounds: stop early rather than overrun

const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-'));
let outSeq = 0;

const noops = (k) => Array(k).fill('noop').join(',');

function mpiiArgs(fl, tools, extra) {
  // no --mpi: let mpii detect the MPI from the binary, as a user's run would
  return mpiiRun(join(tmp, `out-${++outSeq}`), tools, ...extra);
}

function latency(fl, exe) {
  const prog = ['-np', '2', ...fl.extra, exe, String(ITERS), String(SIZE)];
  const configs = [
    { name: 'plain', layers: null, argv: () => [fl.run, ...prog] },
    { name: 'empty stack', layers: 0, argv: () => mpiiArgs(fl, '', prog) },
    ...LAYERS.map((k) => ({ name: `noop x${k}`, layers: k, argv: () => mpiiArgs(fl, noops(k), prog) })),
  ];
  const parse = (out) => {
    const m = /half_rtt_ns=([\d.]+)/.exec(out);
    if (!m) throw new Error(`no half_rtt_ns in output:\n${out}`);
    return Number(m[1]);
  };
  // warm-up: builds/validates the cached shim and checks every configuration runs at all
  for (const c of configs) parse(runRetry(c.argv()).stdout);
  const samples = new Map(configs.map((c) => [c.name, []]));
  const t0 = Date.now();
  let rounds = 0;
  for (; rounds < ROUNDS; rounds++) {
    if (rounds >= 3 && ((Date.now() - t0) / rounds) * (rounds + 1) > TIME_BUDGET_MS) {
      log(`${fl.label}: time budget reached after ${rounds} rounds`);
      break;
    }
    for (const c of shuffle(configs)) samples.get(c.name).push(parse(runRetry(c.argv()).stdout));
    log(`${fl.label}: latency round ${rounds + 1}/${ROUNDS} done (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
  const med = new Map(configs.map((c) => [c.name, median(samples.get(c.name))]));
  const plain = med.get('plain');
  const empty = med.get('empty stack');
  const lines = [];
  lines.push(`${fl.label}: 8-byte ping-pong, -np 2, shared memory, ${ITERS} iters/run, ${rounds} interleaved rounds, median`);
  lines.push(`  ${pad('config', 12)} ${lpad('median ns', 10)} ${lpad('vs plain', 9)} ${lpad('ns/layer', 9)}  ${lpad('min ns', 7)}   all samples (ns, sorted)`);
  for (const c of configs) {
    const m = med.get(c.name);
    const perLayer = c.layers ? ((m - empty) / c.layers).toFixed(1) : '';
    const sorted = [...samples.get(c.name)].sort((a, b) => a - b);
    const s = sorted.map((x) => x.toFixed(0)).join(' ');
    lines.push(
      `  ${pad(c.name, 12)} ${lpad(m.toFixed(1), 10)} ${lpad((m / plain).toFixed(3) + 'x', 9)} ${lpad(perLayer, 9)}  ${lpad(sorted[0].toFixed(1), 7)}   ${s}`,
    );
  }
  const ratio = empty / plain;
  const kmax = LAYERS[LAYERS.length - 1];
  const perLayer = (med.get(`noop x${kmax}`) - empty) / kmax;
  lines.push(`empty stack / plain = ${ratio.toFixed(2)}x (target <= 1.02x)${ratio <= 1.02 ? '' : '  <-- ABOVE TARGET'}`);
  lines.push(`per noop layer = ${perLayer.toFixed(1)} ns (target <= 2 ns)${perLayer <= 2 ? '' : '  <-- ABOVE TARGET'}`);
  // noise on a shared machine only ever adds time, so the minima are a second, optimistic view
  const mins = new Map(configs.map((c) => [c.name, Math.min(...samples.get(c.name))]));
  const minRatio = mins.get('empty stack') / mins.get('plain');
  const minPer = (mins.get(`noop x${kmax}`) - mins.get('empty stack')) / kmax;
  lines.push(`  (from minima: empty stack / plain = ${minRatio.toFixed(2)}x, per noop layer = ${minPer.toFixed(1)} ns)`);
  return lines;
}

function launch(fl, hello) {
  const prog = ['-np', '2', ...fl.extra, hello];
  const configs = [
    { name: 'launcher alone', argv: () => [fl.run, ...prog] },
    { name: "mpii run --tools ''", argv: () => mpiiArgs(fl, '', prog) },
    { name: 'mpii run --dry-run', argv: () => [...mpiiArgs(fl, '', prog).slice(0, 3), '--dry-run', ...mpiiArgs(fl, '', prog).slice(3)] },
    { name: "node -e ''", argv: () => [process.execPath, '-e', ''] },
  ];
  for (const c of configs) runRetry(c.argv()); // warm: page cache, shim cache
  const samples = new Map(configs.map((c) => [c.name, []]));
  for (let r = 0; r < LAUNCH_ROUNDS; r++) {
    for (const c of shuffle(configs)) samples.get(c.name).push(runRetry(c.argv()).ms);
  }
  log(`${fl.label}: ${LAUNCH_ROUNDS} launch rounds done`);
  const med = new Map(configs.map((c) => [c.name, median(samples.get(c.name))]));
  const lines = [];
  lines.push(`${fl.label}: launch of hello (MPI_Init/MPI_Finalize), -np 2, warm cache, ${LAUNCH_ROUNDS} interleaved rounds, median wall clock`);
  for (const c of configs) {
    const s = [...samples.get(c.name)]
      .sort((a, b) => a - b)
      .map((x) => x.toFixed(0))
      .join(' ');
    lines.push(`  ${pad(c.name, 22)} ${lpad(med.get(c.name).toFixed(0), 6)} ms   samples: ${s}`);
  }
  const overhead = med.get("mpii run --tools ''") - med.get('launcher alone');
  lines.push(`launch overhead = ${overhead.toFixed(0)} ms (target <= 150 ms)${overhead <= 150 ? '' : '  <-- ABOVE TARGET'}`);
  lines.push(`mpii run --dry-run takes ${med.get('mpii run --dry-run').toFixed(0)} ms (node startup alone: ${med.get("node -e ''").toFixed(0)} ms)`);
  return lines;
}

const HELLO = `#include <mpi.h>
int main(int argc, char **argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }
`;

writeFileSync(join(tmp, 'hello.c'), HELLO);
forEachFlavor(tmp, (fl) => {
  const exe = join(tmp, `pingpong-${fl.name}`);
  const hello = join(tmp, `hello-${fl.name}`);
  run([fl.cc, '-O2', '-o', exe, PINGPONG]);
  run([fl.cc, '-O2', '-o', hello, join(tmp, 'hello.c')]);
  console.log(flavorHeader(fl));
  for (const l of latency(fl, exe)) console.log(l);
  console.log('');
  for (const l of launch(fl, hello)) console.log(l);
  console.log('');
});

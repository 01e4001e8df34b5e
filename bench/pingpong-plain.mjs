#!/usr/bin/env node
// bench/pingpong-plain.mjs - the stacks' per-call cost as a user's own ping-pong reads it
// (issue 35 part 4), beside the project's paired benchmark (bench/profile.mjs).
//
// bench/pingpong_plain.c is written the plain way: MPI_Send/MPI_Recv called directly from one
// function, PMPI_Send/PMPI_Recv from another, 1000-round-trip chunks alternating in a fixed
// order, the median of 200 pair ratios. For each installed MPI, -np 2, shared memory, 8 bytes,
// interleaved in ROUNDS rounds (each round runs every configuration once, in a random order):
//   - `no mpii`: the launcher alone, where MPI_ and PMPI_ are both the library: what the method
//     itself reads as a cost (its null ratio; 1.000 for a fair method);
//   - the shim alone (`--tools ''`) and the stacks with goals: trace-count (<= 1.01), profile
//     (<= 1.02), monitor (<= 1.02), monitor,profile (<= 1.03);
// each in three orders of the two chunks in a pair: `mpi` first (what a user writes first),
// `pmpi` first, and `random` (drawn alike on both ranks, as pingpong_paired.c does).
// Printed per MPI: the median over rounds of each run's ratio, per configuration and order,
// and each stack's ratio divided by the null ratio of the same order (the stack's own cost with
// the method's bias taken out), with the verdict against the goal.
//
// Usage (after `npm run build`): node bench/pingpong-plain.mjs
// Knobs (environment): ROUNDS (default 5), PAIRS (default 200), CHUNK (default 1000),
// MPI=openmpi|mpich, ORDERS (comma list, default mpi,pmpi,random), STACKS (comma list of
// configurations, default all). Plain text on stdout; progress on stderr.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flavorHeader, forEachFlavor, log, median, mpiiRun, pad, ROOT, run, runRetry, shuffle } from './common.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const PAIRS = Number(process.env.PAIRS ?? 200);
const CHUNK = Number(process.env.CHUNK ?? 1000);
const ORDERS = (process.env.ORDERS ?? 'mpi,pmpi,random').split(',');
const CONFIGS = [
  { name: 'no mpii', tools: undefined },
  { name: 'shim alone', tools: '' },
  { name: 'trace-count', tools: 'trace-count', goal: 1.01 },
  { name: 'profile', tools: 'profile', goal: 1.02 },
  { name: 'monitor', tools: 'monitor', goal: 1.02 },
  { name: 'monitor,profile', tools: 'monitor,profile', goal: 1.03 },
].filter((c) => !process.env.STACKS || process.env.STACKS.split(',').includes(c.name));

const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-pingpong-plain-'));
let seq = 0;

function once(fl, exe, config, order) {
  const prog = ['-np', '2', ...fl.extra, exe, String(PAIRS), String(CHUNK), '8', order];
  const argv = config.tools === undefined ? [fl.run, ...prog] : mpiiRun(join(tmp, `out-${++seq}`), config.tools, ...prog);
  const m = /direct_ns=([\d.]+) stack_ns=([\d.]+) ratio=([\d.]+)/.exec(runRetry(argv).stdout);
  if (!m) throw new Error('no ratio in the output of bench/pingpong_plain.c');
  return { direct: Number(m[1]), ratio: Number(m[3]) };
}

forEachFlavor(tmp, (fl) => {
  const exe = join(tmp, `pingpong_plain-${fl.name}`);
  run([fl.cc, '-O2', '-o', exe, join(ROOT, 'bench', 'pingpong_plain.c')]);
  const cells = [];
  for (const c of CONFIGS) for (const o of ORDERS) cells.push({ c, o, runs: [] });
  for (const c of CONFIGS) if (c.tools) once(fl, exe, c, 'mpi'); // shims built outside the rounds
  for (let r = 0; r < ROUNDS; r++) {
    for (const cell of shuffle(cells)) cell.runs.push(once(fl, exe, cell.c, cell.o));
    log(`${fl.label}: round ${r + 1}/${ROUNDS}`);
  }
  const at = (name, o) => median(cells.find((x) => x.c.name === name && x.o === o).runs.map((x) => x.ratio));
  const direct = median(cells.flatMap((x) => x.runs.map((y) => y.direct)));
  const lines = [
    flavorHeader(fl),
    `8-byte ping-pong, -np 2, ${PAIRS} pairs of ${CHUNK}-round-trip chunks per run, ${ROUNDS} interleaved rounds; direct half round trip ${direct.toFixed(0)} ns (median)`,
    `median over rounds of (MPI_ chunk / PMPI_ chunk); in brackets: divided by the null ratio of the same order (no mpii)`,
    `  ${pad('configuration', 16)} ${ORDERS.map((o) => pad(`${o} first`, 20)).join(' ')} goal`,
  ];
  for (const c of CONFIGS) {
    const row = ORDERS.map((o) => {
      const v = at(c.name, o);
      return pad(c.tools === undefined ? `${v.toFixed(3)}` : `${v.toFixed(3)} (${(v / at('no mpii', o)).toFixed(3)})`, 20);
    });
    let verdict = '';
    if (c.goal) {
      const raw = Math.max(...ORDERS.map((o) => at(c.name, o)));
      verdict = `<= ${c.goal}: ${raw <= c.goal ? 'met' : 'NOT met'} as measured (worst order ${raw.toFixed(3)})`;
    }
    lines.push(`  ${pad(c.name, 16)} ${row.join(' ')} ${verdict}`);
  }
  console.log(`${lines.join('\n')}\n`);
  return 0;
});

#!/usr/bin/env node
// bench/overlap-codes.mjs - is `overlap` (adaptive) never slower than the code alone on production
// codes (issue 33: "never slower than plain by more than 2 %")? The codes of bench/codes.mjs (QE,
// CP2K, LAMMPS, NWChem on Open MPI and MPICH), -np 2 on shared memory, OMP_NUM_THREADS=1:
//   plain     the MPI's launcher alone
//   overlap   mpii run --tools overlap (adaptive; TOOLS= another stack, e.g. 'overlap[mode=paging]')
// interleaved in rounds (a fresh order each round). The figure is the code's own timer of its run
// (LAMMPS's loop time, QE's PWSCF wall time, CP2K's total, NWChem's total wall): what the tool
// costs inside the run, without mpii's start (Node, the stack's lookup: bench/launch.mjs measures
// that). The verdict is the median of the per-round ratios overlap / plain (the two runs of a round
// met the same machine), target <= 1.02x; the wall-clock ratio is printed beside it. Also the
// tool's own account per rank: call sites, what was converted, adaptive's decisions.
//
// Usage (after `npm run build`): node bench/overlap-codes.mjs
// Knobs: ROUNDS (default 8), CODES (comma list of QE,CP2K,LAMMPS,NWChem,NWChem-MPICH; default all
// installed), TOOLS (default 'overlap'). Plain text on stdout, progress on stderr.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installedCodes, mpiiArgv, plainArgv, runCode } from './codes.mjs';
import { MPII, log, lpad, median, pad, run, shuffle } from './common.mjs';
import { readProfile } from '../dist/src/profile-file/read.js';
import { overlapRuns, overlapTotals } from '../dist/preload/tools/overlap/report.js';

const ROUNDS = Number(process.env.ROUNDS ?? 8);
const TOOLS = process.env.TOOLS ?? 'overlap';
const GOAL = 1.02;
// each on the input its own timer reads well (QE's longer one: codes.mjs)
// the codes with a timer of their own (PETSc's poisson.py has none)
const CODES = installedCodes()
  .filter((c) => c.own)
  .map((c) => ({ ...c, args: c.timedArgs ?? c.args }));
const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-ovcodes-'));

/** The tool's totals over the ranks, from the run's profile (undefined when it left none). */
function totals(dir) {
  try {
    return overlapTotals(overlapRuns(readProfile(join(dir, 'out')))[0]);
  } catch {
    return undefined;
  }
}

const CONFIGS = (code) => [
  { name: 'plain', argv: () => plainArgv(code) },
  { name: 'overlap', tool: true, argv: (dir) => mpiiArgv(code, MPII, TOOLS, join(dir, 'out')) },
];

const x = (v) => `${v.toFixed(3)}x`;
const ratios = (a, b) => a.map((v, i) => v / b[i]);

let failed = 0;
let missed = 0;
console.log(`=== ${TOOLS} on production codes (-np 2, shared memory, OMP_NUM_THREADS=1), ${ROUNDS} interleaved rounds ===`);
console.log(`load before: ${run(['uptime']).stdout.trim()}`);
for (const code of CODES) {
  try {
    const own = { plain: [], overlap: [] };
    const wall = { plain: [], overlap: [] };
    const stats = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const c of shuffle(CONFIGS(code))) {
        const o = runCode(tmp, code, c.argv, c.tool ? totals : undefined);
        if (o.own === undefined) throw new Error(`${code.name}: its own timer is not in its output (${code.own})`);
        own[c.name].push(o.own);
        wall[c.name].push(o.ms / 1000);
        if (o.read) stats.push(o.read);
      }
      log(`${code.name} round ${r + 1}/${ROUNDS}: plain ${own.plain.at(-1)} s, overlap ${own.overlap.at(-1)} s`);
    }
    const q = ratios(own.overlap, own.plain);
    const w = ratios(wall.overlap, wall.plain);
    const m = median(q);
    const ok = m <= GOAL;
    if (!ok) missed++;
    console.log(`\n${code.name} (${code.mpi ?? 'openmpi'}: ${code.bin})`);
    console.log(`  ${pad('config', 9)}${lpad('own timer', 11)}${lpad('wall', 9)}  own timer per round (s)`);
    for (const c of ['plain', 'overlap'])
      console.log(`  ${pad(c, 9)}${lpad(`${median(own[c]).toFixed(2)} s`, 11)}${lpad(`${median(wall[c]).toFixed(2)} s`, 9)}  ${own[c].join(' ')}`);
    const st = stats.length ? (k) => (median(stats.map((t) => t[k] ?? 0)) / 2).toFixed(0) : () => '?';
    console.log(
      `  overlap per rank (median over rounds): ${st('call sites')} call sites, ${st('receives converted')} receives and ${st('sendrecvs converted')} sendrecvs in the background, ` +
        `${st('adaptive decisions')} decisions, ${st('call sites decided plain')} sites decided plain`,
    );
    console.log(
      `  verdict: overlap / plain ${x(m)} (rounds ${x(Math.min(...q))}-${x(Math.max(...q))}; wall clock ${x(median(w))}): ${ok ? `ok, <= ${GOAL}x` : `MISSED, > ${GOAL}x`}`,
    );
  } catch (e) {
    failed++;
    console.log(`\n${code.name}: benchmark failed: ${e.message}`);
  }
}
console.log(`\nload after: ${run(['uptime']).stdout.trim()}`);
console.log(`${CODES.length - failed - missed} codes within ${GOAL}x, ${missed} missed, ${failed} failed`);
rmSync(tmp, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;

#!/usr/bin/env node
// bench/memcheck-codes.mjs - memcheck on production codes: what it finds (per kind) and what it
// costs (wall time next to the code alone).
//
// The codes of bench/codes.mjs (QE, CP2K, LAMMPS, NWChem on Open MPI and MPICH), -np 2,
// OMP_NUM_THREADS=1, each run in a fresh directory, configurations
//   plain     the MPI's launcher alone
//   memcheck  mpii run --tools memcheck (default options)
//   before    (with BEFORE=<another checkout's bin/mpii.js>) the same from that checkout
// interleaved in rounds (a fresh order each round), median wall time per configuration. Prints
// the ratio memcheck / plain (goal <= 1.5x) and each memcheck configuration's findings per kind
// (the last round's; the counts of every round when they differ) and its statistics.
//
// Usage (after `npm run build`): node bench/memcheck-codes.mjs
// Knobs: ROUNDS (default 3), CODES (comma list of QE,CP2K,LAMMPS,NWChem,NWChem-MPICH; default
// all installed),
// BEFORE (path of another checkout's bin/mpii.js: its memcheck as a third configuration).
// Plain text on stdout, progress on stderr.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installedCodes, mpiiArgv, plainArgv, runCode } from './codes.mjs';
import { MPII, ROOT, log, lpad, median, pad, run, shuffle } from './common.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const GOAL = 1.5;
const CODES = installedCodes();
const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-codes-'));

function configs(code) {
  const mc = (name, mpii) => ({ name, mpii, argv: (dir) => mpiiArgv(code, mpii, 'memcheck', join(dir, 'out')) });
  return [{ name: 'plain', argv: () => plainArgv(code) }, mc('memcheck', MPII), ...(process.env.BEFORE ? [mc('before', process.env.BEFORE)] : [])];
}

/** A memcheck run's findings per kind and statistics, from its profile. */
function findings(mpii, dir) {
  const rep = JSON.parse(run([process.execPath, mpii, 'report', '--json', '--top', '0', join(dir, 'out')]).stdout);
  const runs = Array.isArray(rep.memcheck) ? rep.memcheck : [rep.memcheck];
  const m = runs[0] ?? { errors: [], hints: [], stats: {} };
  const kinds = {};
  for (const f of [...m.errors, ...m.hints]) kinds[`${f.class}: ${f.kind}`] = (kinds[`${f.class}: ${f.kind}`] ?? 0) + f.count;
  return { kinds, sites: m.errors.length + m.hints.length, stats: m.stats };
}

const once = (code, c) => {
  const r = runCode(tmp, code, c.argv, c.mpii ? (dir) => findings(c.mpii, dir) : undefined);
  return { ms: r.ms, found: r.read ?? null };
};

let failed = 0;
console.log('=== memcheck on production codes (-np 2, OMP_NUM_THREADS=1) ===');
console.log(`load before: ${run(['uptime']).stdout.trim()}`);
for (const code of CODES) {
  try {
    const cs = configs(code);
    const samples = Object.fromEntries(cs.map((c) => [c.name, []]));
    const found = Object.fromEntries(cs.map((c) => [c.name, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const c of shuffle(cs)) {
        const o = once(code, c);
        samples[c.name].push(o.ms);
        if (o.found) found[c.name].push(o.found);
      }
      log(`${code.name} round ${r + 1}/${ROUNDS}`);
    }
    const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
    console.log(`\n${code.name} (${code.mpi ?? 'openmpi'}: ${code.bin} ${code.args.map((a) => a.replace(ROOT + '/', '')).join(' ')})`);
    console.log(`${pad('config', 10)}${lpad('median', 10)}${lpad('/plain', 9)}  samples (s)`);
    for (const c of cs) {
      const ratio = m[c.name] / m.plain;
      const verdict = c.mpii ? `  ${ratio <= GOAL ? 'ok' : 'MISSED'} (goal <= ${GOAL}x)` : '';
      console.log(
        `${pad(c.name, 10)}${lpad((m[c.name] / 1000).toFixed(1) + ' s', 10)}${lpad(ratio.toFixed(2) + 'x', 9)}  ${samples[c.name].map((x) => (x / 1000).toFixed(1)).join(' ')}${verdict}`,
      );
    }
    for (const c of cs.filter((x) => x.mpii)) {
      const last = found[c.name].at(-1);
      console.log(`  ${c.name} findings per kind (${last.sites} rows):${Object.keys(last.kinds).length ? '' : ' none'}`);
      for (const [k, n] of Object.entries(last.kinds).sort()) {
        const each = found[c.name].map((f) => f.kinds[k] ?? 0);
        console.log(`    ${k}: ${n}${each.some((x) => x !== n) ? ` (rounds: ${each.join(', ')})` : ''}`);
      }
      const s = last.stats;
      const stat = (k) => s[Object.keys(s).find((x) => x.startsWith(k)) ?? ''] ?? 0;
      console.log(
        `  ${c.name} stats: checked ${stat('buffers checked')}, faults ${stat('faults')}, steps ${stat('steps')}, lifts ${stat('lifts')}, ` +
          `receives watched ${stat('receives tracked')}, not sampled ${stat('receives not tracked')} + ${stat('pending operations not checked')}, ` +
          `library accesses ${stat("the library's accesses to watched")}`,
      );
    }
  } catch (e) {
    failed++;
    console.log(`${code.name}: benchmark failed: ${e.message}`);
  }
}
console.log(`\nload after: ${run(['uptime']).stdout.trim()}`);
rmSync(tmp, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;

#!/usr/bin/env node
// bench/codes-results.mjs - do production codes give the same results under every tool as plain,
// and does memcheck find nothing in them? The codes of bench/codes.mjs that are installed (QE,
// CP2K, LAMMPS, NWChem on Open MPI and MPICH, PETSc through petsc4py), -np 2, OMP_NUM_THREADS=1,
// each run in a fresh directory: once plain, then once under each stack of STACKS, each stack
// compiled in (MPII_BUILD=wait: the form a user's later runs get). A run passes when its result
// lines (codes.mjs: energies, thermodynamic output, iteration counts and norms) are those of the
// plain run, numbers within the code's own tolerance where it has one, and, under memcheck, when
// the report holds no error. This is a check, not a timing: it prints one line per run and a
// table of codes x stacks, and exits 1 when any run differs.
//
// Usage (after `npm run build`): node bench/codes-results.mjs
// Knobs: CODES (comma list, default every installed code), STACKS (semicolon list, default
// 'trace-count;monitor;profile;memcheck;overlap;monitor,profile'). In a root of a current Debian
// release: scripts/in-root.sh ROOT sh -c 'cd CHECKOUT && node bench/codes-results.mjs'
// (docs/testing.md says which packages the codes come from).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installedCodes, mpiiArgv, plainArgv, runCode } from './codes.mjs';
import { MPII, log, pad, run } from './common.mjs';

const STACKS = (process.env.STACKS ?? 'trace-count;monitor;profile;memcheck;overlap;monitor,profile').split(';').filter(Boolean);
const CODES = installedCodes();
const tmp = mkdtempSync(join(tmpdir(), 'mpii-codes-results-'));

/** The result lines of one run's output. */
const resultsOf = (code, stdout) => stdout.match(code.result) ?? [];

/** Where `got` differs from `want`: undefined when every line agrees (numbers within tolerance). */
function difference(code, want, got) {
  if (got.length !== want.length) return `${got.length} result lines, plain printed ${want.length}`;
  for (let i = 0; i < want.length; i++) {
    if (got[i] === want[i]) continue;
    const numbers = (l) => l.match(/-?\d+\.?\d*(?:[eE][-+]?\d+)?/g)?.map(Number) ?? [];
    const [a, b] = [numbers(want[i]), numbers(got[i])];
    const close = code.tolerance !== undefined && a.length === b.length && a.every((x, k) => Math.abs(x - b[k]) <= code.tolerance);
    if (!close) return `plain: ${want[i].trim()}\n      here:  ${got[i].trim()}`;
  }
  return undefined;
}

/** memcheck's errors in a run's profile, per kind (hints are not errors). */
function memcheckErrors(dir) {
  const rep = JSON.parse(run([process.execPath, MPII, 'report', '--json', '--top', '0', join(dir, 'out')]).stdout);
  const runs = Array.isArray(rep.memcheck) ? rep.memcheck : [rep.memcheck];
  const kinds = {};
  for (const f of runs[0]?.errors ?? []) kinds[f.kind] = (kinds[f.kind] ?? 0) + f.count;
  return kinds;
}

if (CODES.length === 0) {
  console.error('codes-results: no production code is installed: apt-get install lammps nwchem-openmpi nwchem-mpich cp2k python3-petsc4py');
  process.exit(2);
}
console.log(`=== production codes under every tool: results against plain (-np 2, OMP_NUM_THREADS=1) ===`);
console.log(`load before: ${run(['uptime']).stdout.trim()}`);
const table = [];
let failed = 0;
for (const code of CODES) {
  const row = { code: code.name, cells: [] };
  table.push(row);
  let want;
  try {
    const plain = runCode(tmp, code, () => plainArgv(code), undefined);
    want = resultsOf(code, plain.stdout);
    if (want.length === 0) throw new Error('plain printed no result line');
    console.log(`${code.name} (${code.mpi ?? 'openmpi'}) plain: ${want.length} result lines, last: ${want.at(-1).trim()}`);
  } catch (e) {
    failed++;
    console.log(`${code.name}: the plain run failed: ${e.message}`);
    row.cells = STACKS.map(() => 'no plain');
    continue;
  }
  for (const stack of STACKS) {
    log(`${code.name} under ${stack}`);
    try {
      const r = runCode(
        tmp,
        code,
        (dir) => mpiiArgv(code, MPII, stack, join(dir, 'out')),
        (dir, stdout) => ({
          diff: difference(code, want, resultsOf(code, stdout)),
          errors: stack.split(',').includes('memcheck') ? memcheckErrors(dir) : {},
        }),
      );
      const errors = Object.entries(r.read.errors);
      const ok = !r.read.diff && errors.length === 0;
      if (!ok) failed++;
      row.cells.push(r.read.diff ? 'DIFFERS' : errors.length ? 'ERRORS' : 'same');
      console.log(
        `  ${pad(stack, 18)} ${ok ? 'same as plain' : 'FAILED'}${stack.includes('memcheck') ? `, memcheck errors: ${errors.map(([k, n]) => `${k} ${n}`).join(', ') || 0}` : ''}` +
          (r.read.diff ? `\n      ${r.read.diff}` : ''),
      );
    } catch (e) {
      failed++;
      row.cells.push('FAILED');
      console.log(`  ${pad(stack, 18)} FAILED: ${e.message.split('\n').slice(0, 6).join('\n      ')}`);
    }
  }
}
console.log(`\n| code | ${STACKS.map((s) => `\`${s}\``).join(' | ')} |`);
console.log(`| --- | ${STACKS.map(() => '---').join(' | ')} |`);
for (const r of table) console.log(`| ${r.code} | ${r.cells.join(' | ')} |`);
console.log(`\nload after: ${run(['uptime']).stdout.trim()}`);
rmSync(tmp, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;

#!/usr/bin/env node
// bench/instructions.mjs - instructions per MPI call under each tool stack, counted by callgrind.
//
// bench/calls.c runs under `mpii run --tools STACK -np 1 valgrind --tool=callgrind calls N [self]`
// twice, with N = LO and N = HI; (total(HI) - total(LO)) / (HI - LO) is the cost of one call (one
// MPI_Send to MPI_PROC_NULL) or of one iteration of `self` (an 8-byte MPI_Isend + MPI_Recv +
// MPI_Wait to the rank itself), start-up and finalize cancelled out. Instruction counts do not
// depend on the machine's load, so two checkouts can be compared on a busy machine: MPII_ROOT=DIR
// runs the mpii of another built checkout (its shim, its tools) on this checkout's calls.c.
//
// MODES=send,self,poll adds `poll`: one MPI_Testany on an inactive request (HPCC's polling call).
//
// Usage (after `npm run build`): node bench/instructions.mjs
// Knobs (environment): MPI=openmpi|mpich, STACKS (comma-separated stacks, `+` joins tools of one
// stack, `-` is the empty stack, `direct` the program without mpii; default
// -,noop,trace-count,monitor,profile,monitor+profile), MODES (send,self),
// LO/HI (default 20000/80000), MPII_ROOT (default this checkout), FORMS (default
// specialised,chained: each stack of built-in tools compiled into one wrapper, and through the
// QMPI chain with --chained; give FORMS=specialised for an MPII_ROOT older than --chained).
// A table on stdout (instructions per call, per MPI and stack); progress on stderr.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { forEachFlavor, log, lpad, mpiiRun, pad, ROOT, run, which } from './common.mjs';

const MPII = join(resolve(process.env.MPII_ROOT ?? ROOT), 'bin', 'mpii.js');
const LO = Number(process.env.LO ?? 20000);
const HI = Number(process.env.HI ?? 80000);
const STACKS = (process.env.STACKS ?? '-,noop,trace-count,monitor,profile,monitor+profile').split(',');
const FORMS = (process.env.FORMS ?? 'specialised,chained').split(',');
const MODE_NAMES = { send: 'MPI_Send to MPI_PROC_NULL', self: 'Isend+Recv+Wait, 8 B to itself', poll: 'MPI_Testany, inactive' };
const MODES = (process.env.MODES ?? 'send,self').split(',').map((m) => [m, MODE_NAMES[m]]);
if (MODES.some(([, what]) => !what)) {
  console.error(`bench/instructions.mjs: MODES takes ${Object.keys(MODE_NAMES).join(', ')}`);
  process.exit(2);
}

if (!which('valgrind')) {
  console.log('valgrind is not installed: nothing to count');
  process.exit(0);
}
const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-instructions-'));
let seq = 0;

/** Instructions of the whole run of `calls n mode` under `tools` (callgrind's summary line). */
function total(fl, exe, tools, form, n, mode) {
  const file = join(tmp, `callgrind-${++seq}`);
  // the program is valgrind, so mpii is told which MPI the real program uses; warm-up 1000
  // iterations (the difference of two runs cancels it anyway); tools null: without mpii
  const prog = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${file}`, exe, String(n), mode, '1000'];
  run(
    tools === null
      ? [fl.run, '-np', '1', ...fl.extra, ...prog]
      : mpiiRun(join(tmp, `out-${seq}`), tools, '--mpi', fl.name, ...(form === 'chained' ? ['--chained'] : []), '-np', '1', ...fl.extra, ...prog),
    900_000,
  );
  const m = /^summary: (\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!m) throw new Error(`no summary line in ${file}`);
  return Number(m[1]);
}

log(`mpii: ${MPII}`);
forEachFlavor(tmp, (fl) => {
  const exe = join(tmp, `calls-${fl.name}`);
  run([fl.cc, '-O2', '-o', exe, join(ROOT, 'bench', 'calls.c')]);
  const rows = [];
  for (const stack of STACKS) {
    const tools = stack === 'direct' ? null : stack === '-' ? '' : stack.replaceAll('+', ',');
    const one = stack === '-' || stack === 'direct';
    for (const form of one ? ['specialised'] : FORMS) {
      const row = [stack === 'direct' ? 'without mpii' : stack === '-' ? 'empty stack' : `${stack}${FORMS.length > 1 ? `, ${form}` : ''}`];
      for (const [mode] of MODES) {
        log(`${fl.label}: ${row[0]}, ${mode}`);
        row.push(((total(fl, exe, tools, form, HI, mode) - total(fl, exe, tools, form, LO, mode)) / (HI - LO)).toFixed(1));
      }
      rows.push(row);
    }
  }
  console.log(`${fl.label}: instructions per call (callgrind, (N=${HI} - N=${LO}) / ${HI - LO})`);
  console.log(`  ${pad('stack', 30)} ${MODES.map(([, what]) => lpad(what, 30)).join(' ')}`);
  for (const [name, ...v] of rows) console.log(`  ${pad(name, 30)} ${v.map((x) => lpad(x, 30)).join(' ')}`);
  console.log('');
});

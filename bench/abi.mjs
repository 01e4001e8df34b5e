#!/usr/bin/env node
// bench/abi.mjs - what does a stack cost on a program of the MPI-5 standard ABI, against the same
// stack on the same MPI's own library?
//
// For each implementation of the standard ABI installed (libmpi_abi_mpich.so, libmpi_abi_openmpi.so,
// Debian forky): bench/calls.c built twice, once with that MPI's mpicc (its own ABI) and once with
// the standard header and -lmpi_abi (one binary for every implementation); both run in one process
// (-np 1) plain and under each stack, compiled in, configurations interleaved in rounds (order
// shuffled every round), median ns per call. The table shows, side by side, the native and the ABI
// time per call, their ratio, and the stack's own cost (stack minus plain) on each: the ABI's
// handle conversion is the library's cost (the plain rows), the stack's is mpii's.
//
// Usage (after `npm run build`, the shims built: mpii build --mpi all; mpii build --mpi abi):
//   node bench/abi.mjs
// Knobs (environment): ROUNDS (default 7), CALLS (calls per run, default 2000000), MODE (calls.c's
// mode: send = MPI_Send to MPI_PROC_NULL, self = Isend/Recv/Wait to oneself; default self),
// MPI=openmpi|mpich. COUNT=instructions counts instructions per call with callgrind instead of
// timing ((total at N=HI - total at N=LO) / (HI - LO), as bench/instructions.mjs): the same on a
// loaded machine, one run per configuration and N; memcheck is left out there (under Valgrind its
// checks become Valgrind's client requests, another path). Plain text on stdout; progress on stderr.
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLAVORS, log, lpad, median, mpiiRun, pad, ROOT, run, shuffle } from './common.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const CALLS = Number(process.env.CALLS ?? 2000000);
const MODE = process.env.MODE ?? 'self';
const COUNT = process.env.COUNT === 'instructions';
const [LO, HI] = [20000, 80000];
const STACKS = ['', 'trace-count', 'monitor,profile,trace-count', ...(COUNT ? [] : ['memcheck'])];
const LIBDIR = '/usr/lib/x86_64-linux-gnu';
const HEADERS = [join(LIBDIR, 'mpi_abi_mpich', 'include'), join(LIBDIR, 'openmpi', 'include', 'standard_abi')];

const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-abi-'));
let outSeq = 0;
const header = HEADERS.find((d) => existsSync(join(d, 'mpi.h')));
if (!header) {
  console.log(`no MPI standard ABI header (${HEADERS.join(', ')}): nothing to compare`);
  process.exit(0);
}

const src = join(ROOT, 'bench', 'calls.c');
const abiExe = join(tmp, 'calls-abi');
run(['cc', '-O2', '-I', header, '-o', abiExe, src, '-lmpi_abi']);

const parse = (out) => {
  const m = /ns_per_call=([\d.]+)/.exec(out);
  if (!m) throw new Error(`no ns_per_call in:\n${out}`);
  return Number(m[1]);
};

for (const fl of FLAVORS) {
  if (process.env.MPI && process.env.MPI !== fl.name) continue;
  const lib = readdirSync(LIBDIR).find((n) => n.startsWith(`libmpi_abi_${fl.name}.so`));
  if (!lib) {
    console.log(`${fl.label}: no libmpi_abi_${fl.name}.so, skipped\n`);
    continue;
  }
  // plain runs of the ABI binary find this implementation as a user would: first on LD_LIBRARY_PATH
  const libs = join(tmp, `lib-${fl.name}`);
  run(['mkdir', '-p', libs]);
  symlinkSync(join(LIBDIR, lib), join(libs, 'libmpi_abi.so.1'));
  const nativeExe = join(tmp, `calls-${fl.name}`);
  run([fl.cc, '-O2', '-o', nativeExe, src]);
  const prog = (exe) => ['-np', '1', ...fl.extra, exe, String(CALLS), MODE];
  const plainAbi = fl.ompi ? [fl.run, '-x', `LD_LIBRARY_PATH=${libs}`, ...prog(abiExe)] : [fl.run, '-genv', 'LD_LIBRARY_PATH', libs, ...prog(abiExe)];
  const configs = [];
  for (const [kind, exe, mpi] of [
    ['native', nativeExe, fl.name],
    ['abi', abiExe, `abi:${fl.name}`],
  ]) {
    configs.push({ kind, stack: 'plain', argv: kind === 'native' ? [fl.run, ...prog(exe)] : plainAbi });
    for (const s of STACKS) configs.push({ kind, stack: s || '(empty)', argv: () => mpiiRun(join(tmp, `out-${++outSeq}`), s, '--mpi', mpi, ...prog(exe)) });
  }
  const argvOf = (c) => (typeof c.argv === 'function' ? c.argv() : c.argv);
  if (COUNT) {
    instructionTable(fl, configs, nativeExe, libs);
    continue;
  }
  log(`${fl.label}: warm-up (builds each compiled-in stack once for each shim)`);
  for (const c of configs) parse(run(argvOf(c), 900_000).stdout);
  const samples = new Map(configs.map((c) => [`${c.kind} ${c.stack}`, []]));
  for (let r = 0; r < ROUNDS; r++) {
    log(`${fl.label}: round ${r + 1}/${ROUNDS}`);
    for (const c of shuffle([...configs])) samples.get(`${c.kind} ${c.stack}`).push(parse(run(argvOf(c)).stdout));
  }
  const med = (kind, stack) => median(samples.get(`${kind} ${stack}`));
  console.log(
    `=== ${fl.label}: ns per ${MODE === 'self' ? 'Isend+Recv+Wait to oneself' : 'MPI_Send to MPI_PROC_NULL'}, -np 1, ${CALLS} per run, ${ROUNDS} rounds, medians ===`,
  );
  console.log(
    `${pad('stack', 30)}${lpad('native', 10)}${lpad('ABI', 10)}${lpad('ABI/nat', 9)}${lpad('stack nat', 11)}${lpad('stack ABI', 11)}${lpad('ratio', 8)}`,
  );
  const plainN = med('native', 'plain');
  const plainA = med('abi', 'plain');
  for (const stack of ['plain', ...STACKS.map((s) => s || '(empty)')]) {
    const n = med('native', stack);
    const a = med('abi', stack);
    const own = stack === 'plain' ? ['', '', ''] : [(n - plainN).toFixed(1), (a - plainA).toFixed(1), ((a - plainA) / (n - plainN)).toFixed(2)];
    console.log(
      `${pad(stack, 30)}${lpad(n.toFixed(1), 10)}${lpad(a.toFixed(1), 10)}${lpad((a / n).toFixed(2), 9)}${lpad(own[0], 11)}${lpad(own[1], 11)}${lpad(own[2], 8)}`,
    );
  }
  // the minima too: load only ever adds time, so on a busy machine they are the steadier view
  const low = (kind, stack) => Math.min(...samples.get(`${kind} ${stack}`));
  console.log(
    `minima: ${['plain', ...STACKS.map((s) => s || '(empty)')].map((s) => `${s} ${low('native', s).toFixed(1)}/${low('abi', s).toFixed(1)}`).join(', ')}`,
  );
  console.log('');
}

/** COUNT=instructions: each configuration at N=LO and N=HI under callgrind, the difference per
 * iteration (its argv as above, with valgrind before the program). */
function instructionTable(fl, configs, nativeExe, libs) {
  const counted = (argv) => {
    run(argv, 900_000);
    const file = argv.find((a) => a.startsWith('--callgrind-out-file=')).split('=')[1];
    const m = /^summary: (\d+)/m.exec(readFileSync(file, 'utf8'));
    if (!m) throw new Error(`no summary line in ${file}`);
    return Number(m[1]);
  };
  const argvAt = (c, n) => {
    const exe = c.kind === 'native' ? nativeExe : abiExe;
    const mpi = c.kind === 'native' ? fl.name : `abi:${fl.name}`;
    const p = [
      '-np',
      '1',
      ...fl.extra,
      'valgrind',
      '--tool=callgrind',
      `--callgrind-out-file=${join(tmp, `callgrind-${c.kind}-${c.stack}-${n}`)}`,
      exe,
      String(n),
      MODE,
      '1000',
    ];
    if (c.stack !== 'plain') return mpiiRun(join(tmp, `out-${++outSeq}`), c.stack === '(empty)' ? '' : c.stack, '--mpi', mpi, ...p);
    if (c.kind === 'native') return [fl.run, ...p];
    return fl.ompi ? [fl.run, '-x', `LD_LIBRARY_PATH=${libs}`, ...p] : [fl.run, '-genv', 'LD_LIBRARY_PATH', libs, ...p];
  };
  const per = new Map();
  for (const c of configs) {
    log(`${fl.label}: ${c.kind} ${c.stack} under callgrind`);
    per.set(`${c.kind} ${c.stack}`, (counted(argvAt(c, HI)) - counted(argvAt(c, LO))) / (HI - LO));
  }
  console.log(
    `=== ${fl.label}: instructions per ${MODE === 'self' ? 'Isend+Recv+Wait to oneself' : 'MPI_Send to MPI_PROC_NULL'}, -np 1, callgrind (N=${HI} - N=${LO}) ===`,
  );
  console.log(`${pad('stack', 30)}${lpad('native', 10)}${lpad('ABI', 10)}${lpad('ABI/nat', 9)}${lpad('stack nat', 11)}${lpad('stack ABI', 11)}`);
  const [pn, pa] = [per.get('native plain'), per.get('abi plain')];
  for (const stack of ['plain', ...STACKS.map((x) => x || '(empty)')]) {
    const [n, a] = [per.get(`native ${stack}`), per.get(`abi ${stack}`)];
    const own = stack === 'plain' ? ['', ''] : [(n - pn).toFixed(1), (a - pa).toFixed(1)];
    console.log(`${pad(stack, 30)}${lpad(n.toFixed(1), 10)}${lpad(a.toFixed(1), 10)}${lpad((a / n).toFixed(2), 9)}${lpad(own[0], 11)}${lpad(own[1], 11)}`);
  }
  console.log('');
}

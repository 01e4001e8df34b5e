#!/usr/bin/env node
// bench/memcheck-codes.mjs - memcheck on production codes: what it finds (per kind) and what it
// costs (wall time next to the code alone).
//
// Debian's builds, each on an input written for mpii (test/apps/):
//   QE      pw.x -in test/apps/si.pw.in           (silicon, LDA, 4x4x4 k-points: FFTs, reductions)
//   CP2K    cp2k.psmp -i test/apps/h2o-dzvp.inp   (two waters, DZVP: DBCSR, ScaLAPACK, grids)
//   LAMMPS  lmp -in test/apps/in.lj               (Lennard-Jones liquid: halo exchange)
//   NWChem  nwchem.openmpi and nwchem.mpich test/apps/c6h6-b3lyp.nw (benzene DFT gradient: Global
//           Arrays over MPI one-sided, ScaLAPACK); on MPICH with ARMCI_USE_WIN_ALLOCATE=0, which
//           Debian's build needs to run at all
// the first three linked with Open MPI; with -np 2, OMP_NUM_THREADS=1, each run in a fresh
// directory, configurations
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
import { MPII, ROOT, env, log, lpad, median, pad, run, shuffle, which } from './common.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const GOAL = 1.5;
const TIMEOUT_MS = 1_800_000;
const apps = (f) => join(ROOT, 'test', 'apps', f);

const CODES = [
  { name: 'QE', bin: 'pw.x', args: ['-in', apps('si.pw.in')], ok: /convergence has been achieved/ },
  { name: 'CP2K', bin: 'cp2k.psmp', args: ['-i', apps('h2o-dzvp.inp')], ok: /ENERGY\| Total FORCE_EVAL/ },
  { name: 'LAMMPS', bin: 'lmp', args: ['-in', apps('in.lj'), '-log', 'none'], ok: /Loop time/ },
  { name: 'NWChem', bin: 'nwchem.openmpi', args: [apps('c6h6-b3lyp.nw')], ok: /DFT ENERGY GRADIENTS/ },
  {
    name: 'NWChem-MPICH',
    mpi: 'mpich',
    bin: 'nwchem.mpich',
    args: [apps('c6h6-b3lyp.nw')],
    ok: /DFT ENERGY GRADIENTS/,
    env: { ARMCI_USE_WIN_ALLOCATE: '0' },
  },
].filter((c) => (!process.env.CODES || process.env.CODES.split(',').includes(c.name)) && which(c.bin));

env.OMP_NUM_THREADS = '1';
env.CP2K_DATA_DIR = env.CP2K_DATA_DIR ?? '/usr/share/cp2k';

const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-codes-'));
let seq = 0;
const fresh = () => mkdtempSync(join(tmp, `run-${++seq}-`));
/** MPICH's launcher refuses --oversubscribe (it never needs it). */
const launchFor = (mpi) => (mpi === 'mpich' ? ['-np', '2'] : ['-np', '2', '--oversubscribe']);

function configs(code) {
  const mpi = code.mpi ?? 'openmpi';
  const launch = launchFor(mpi);
  const mc = (name, mpii) => ({
    name,
    memcheck: true,
    argv: (dir) => [
      process.execPath,
      mpii,
      'run',
      '--quiet',
      '--mpi',
      mpi,
      '--out',
      join(dir, 'out'),
      '--tools',
      'memcheck',
      ...launch,
      code.bin,
      ...code.args,
    ],
    mpii,
  });
  return [
    { name: 'plain', argv: () => [`mpirun.${mpi}`, ...launch, code.bin, ...code.args] },
    mc('memcheck', MPII),
    ...(process.env.BEFORE ? [mc('before', process.env.BEFORE)] : []),
  ];
}

/** One run in its own directory (the codes write files where they run). */
function once(code, c) {
  const dir = fresh();
  const argv = c.argv(dir);
  const vars = Object.entries(code.env ?? {}).map(([k, v]) => `${k}=${v}`);
  const r = run(['env', ...vars, 'sh', '-c', `cd '${dir}' && exec "$@"`, 'sh', ...argv], TIMEOUT_MS);
  if (!code.ok.test(r.stdout)) throw new Error(`${code.name} ${c.name}: no result in its output:\n${r.stdout.slice(-2000)}`);
  let found = null;
  if (c.memcheck) {
    const rep = JSON.parse(run([process.execPath, c.mpii, 'report', '--json', '--top', '0', join(dir, 'out')]).stdout);
    const runs = Array.isArray(rep.memcheck) ? rep.memcheck : [rep.memcheck];
    const m = runs[0] ?? { errors: [], hints: [], stats: {} };
    const kinds = {};
    for (const f of [...m.errors, ...m.hints]) kinds[`${f.class}: ${f.kind}`] = (kinds[`${f.class}: ${f.kind}`] ?? 0) + f.count;
    found = { kinds, sites: m.errors.length + m.hints.length, stats: m.stats };
  }
  rmSync(dir, { recursive: true, force: true });
  return { ms: r.ms, found };
}

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
      const verdict = c.memcheck ? `  ${ratio <= GOAL ? 'ok' : 'MISSED'} (goal <= ${GOAL}x)` : '';
      console.log(
        `${pad(c.name, 10)}${lpad((m[c.name] / 1000).toFixed(1) + ' s', 10)}${lpad(ratio.toFixed(2) + 'x', 9)}  ${samples[c.name].map((x) => (x / 1000).toFixed(1)).join(' ')}${verdict}`,
      );
    }
    for (const c of cs.filter((x) => x.memcheck)) {
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

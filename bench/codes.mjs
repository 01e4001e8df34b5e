// bench/codes.mjs - the production codes the benchmarks run (Debian's builds, each on an input
// written for mpii in test/apps/), and how one run of one is made: -np 2, OMP_NUM_THREADS=1, in a
// fresh directory (the codes write files where they run).
//   QE      pw.x -in test/apps/si.pw.in           (silicon, LDA, 4x4x4 k-points: FFTs, reductions);
//           timed by its own clock (overlap-codes.mjs) on si-dense.pw.in (10x10x10 k-points: ~2.5 s,
//           where si.pw.in's 0.2 s made the timer's 0.01 s steps 5 %)
//   CP2K    cp2k.psmp -i test/apps/h2o-dzvp.inp   (two waters, DZVP: DBCSR, ScaLAPACK, grids)
//   LAMMPS  lmp -in test/apps/in.lj               (Lennard-Jones liquid: halo exchange)
//   NWChem  nwchem.openmpi and nwchem.mpich test/apps/c6h6-b3lyp.nw (benzene DFT gradient: Global
//           Arrays over MPI one-sided, ScaLAPACK); on MPICH with ARMCI_USE_WIN_ALLOCATE=0, which
//           Debian's build needs to run at all
//   PETSc   python3 test/apps/poisson.py 64       (petsc4py: 2-D Poisson by CG, PETSc's scatters and
//           reductions; Debian 13 and later, whose python3-petsc4py is built for Open MPI)
// The first three and PETSc are linked with Open MPI. `ok` is what a finished run prints; `own` the code's
// own timer of its run (seconds), which leaves out the launcher's start: what a tool costs inside
// the run; `timedArgs`, where given, the input a benchmark judged by that timer runs instead;
// `result` the lines that hold the code's results (what a tool must leave as they are), with
// `tolerance` where the code's own last digits vary from run to run plain; `present`, where the
// binary alone does not tell, whether the code is installed.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, env, run, which } from './common.mjs';

const apps = (f) => join(ROOT, 'test', 'apps', f);
const TIMEOUT_MS = 1_800_000;
/** Debian's PETSc with real scalars: /usr/lib/petscdir/petsc<version>/<triplet>-real, the newest. */
const PETSC_REAL = (() => {
  const base = '/usr/lib/petscdir';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((d) => /^petsc\d/.test(d))
        .sort()
    : [];
  return versions.length ? join(base, versions.at(-1), `${process.arch === 'x64' ? 'x86_64' : process.arch}-linux-gnu-real`) : join(base, 'none');
})();

/** NWChem for one MPI (Debian's nwchem.<mpi>), on the benzene DFT gradient. */
function nwchem(name, mpi, env) {
  return {
    name,
    ...(mpi === 'openmpi' ? {} : { mpi }),
    bin: `nwchem.${mpi}`,
    args: [apps('c6h6-b3lyp.nw')],
    ok: /DFT ENERGY GRADIENTS/,
    own: /Total times\s+cpu:\s*[\d.]+s\s+wall:\s*([\d.]+)s/,
    result: /Total DFT energy =.*$/gm,
    // Global Arrays' dynamic load balancing sums in another order from run to run (6e-12 seen)
    tolerance: 1e-8,
    ...(env ? { env } : {}),
  };
}

const ALL = [
  {
    name: 'QE',
    bin: 'pw.x',
    args: ['-in', apps('si.pw.in')],
    timedArgs: ['-in', apps('si-dense.pw.in')],
    ok: /convergence has been achieved/,
    result: /^!\s+total energy\s+=.*$/gm,
    own: /PWSCF\s*:.*?([\d.]+)s WALL/,
  },
  {
    name: 'CP2K',
    bin: 'cp2k.psmp',
    args: ['-i', apps('h2o-dzvp.inp')],
    ok: /ENERGY\| Total FORCE_EVAL/,
    result: /^\s*ENERGY\| Total FORCE_EVAL.*$/gm,
    // the timing table's CP2K row: calls, ASD, self average, self maximum, total average, total maximum
    own: /^ CP2K\s+1\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s*$/m,
  },
  {
    name: 'LAMMPS',
    bin: 'lmp',
    args: ['-in', apps('in.lj'), '-log', 'none'],
    ok: /Loop time/,
    own: /Loop time of ([\d.]+) on/,
    // the thermodynamic output: step, temperature, energies, pressure
    result: /^\s+\d+\s+[-\d.e]+\s+[-\d.e]+\s+[-\d.e]+\s+[-\d.e]+\s+[-\d.e]+\s*$/gm,
  },
  nwchem('NWChem', 'openmpi'),
  // Debian's MPICH build needs ARMCI's windows on the program's memory to run at all
  nwchem('NWChem-MPICH', 'mpich', { ARMCI_USE_WIN_ALLOCATE: '0' }),
  {
    name: 'PETSc',
    bin: 'python3',
    args: [apps('poisson.py'), '64'],
    ok: /^poisson residual/m,
    result: /^poisson .*$/gm,
    // Debian installs petsc4py under PETSC_DIR; /usr/lib/petsc, its default, comes with petsc-dev
    env: { PETSC_DIR: PETSC_REAL },
    present: () => existsSync(join(PETSC_REAL, 'lib', 'python3', 'dist-packages', 'petsc4py')),
  },
];

/** The codes that are installed, only those $CODES names (a comma list) when it is set. */
export const installedCodes = () =>
  ALL.filter((c) => (!process.env.CODES || process.env.CODES.split(',').includes(c.name)) && which(c.bin) && (c.present?.() ?? true));

env.OMP_NUM_THREADS = '1';
env.CP2K_DATA_DIR = env.CP2K_DATA_DIR ?? '/usr/share/cp2k';

/** MPICH's launcher refuses --oversubscribe (it never needs it). */
export const launchFor = (mpi) => (mpi === 'mpich' ? ['-np', '2'] : ['-np', '2', '--oversubscribe']);

/** The code under its MPI's own launcher. */
export const plainArgv = (code) => [`mpirun.${code.mpi ?? 'openmpi'}`, ...launchFor(code.mpi ?? 'openmpi'), code.bin, ...code.args];

/** The code under `mpii run --tools TOOLS`, its profile in OUT. */
export const mpiiArgv = (code, mpii, tools, out) => [
  process.execPath,
  mpii,
  'run',
  '--quiet',
  '--mpi',
  code.mpi ?? 'openmpi',
  '--out',
  out,
  '--tools',
  tools,
  ...launchFor(code.mpi ?? 'openmpi'),
  code.bin,
  ...code.args,
];

/**
 * One run of `code` in a fresh directory under `tmp`: argvOf(dir) is the command; read(dir), when
 * given, reads what the run left there (and its output) before the directory goes. Returns the wall
 * clock (ms), the code's own time (s, or undefined when it printed none), the output and what read
 * returned.
 */
export function runCode(tmp, code, argvOf, read) {
  const dir = mkdtempSync(join(tmp, `${code.name}-`));
  try {
    const vars = Object.entries(code.env ?? {}).map(([k, v]) => `${k}=${v}`);
    const r = run(['env', ...vars, 'sh', '-c', `cd '${dir}' && exec "$@"`, 'sh', ...argvOf(dir)], TIMEOUT_MS);
    if (!code.ok.test(r.stdout)) throw new Error(`${code.name}: no result in its output:\n${r.stdout.slice(-2000)}`);
    const own = code.own?.exec(r.stdout);
    return { ms: r.ms, own: own ? Number(own[1]) : undefined, stdout: r.stdout, read: read?.(dir, r.stdout) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

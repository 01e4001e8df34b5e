// Which MPI a program uses: its dynamic dependencies first, then the launcher on PATH.
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { MpiiError } from '../errors.js';
import { FLAVORS, findTool, flavorOfBinary, which, type FlavorName } from './flavors.js';

export interface Detected {
  flavor: FlavorName;
  /** how we know, for --dry-run and doctor */
  how: string;
  program: string;
}

function isElf(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(4);
    readSync(fd, b, 0, 4, 0);
    return b.toString('latin1') === '\x7fELF';
  } finally {
    closeSync(fd);
  }
}

export function resolveProgram(program: string, env: NodeJS.ProcessEnv): string {
  const path = which(program, env);
  if (!path) {
    const hint = program.includes('/') ? 'check the path and that it is executable' : `give a path such as ./${program}, or put it on PATH`;
    throw new MpiiError(`program '${program}' not found`, hint);
  }
  if (!statSync(path).isFile()) throw new MpiiError(`'${program}' is not a file`, 'name the MPI program to run');
  return path;
}

/** The flavour of the first launcher on PATH (mpirun/mpiexec). */
export function launcherFlavor(env: NodeJS.ProcessEnv): FlavorName | undefined {
  for (const l of ['mpirun', 'mpiexec']) {
    const p = which(l, env);
    if (p) {
      const f = flavorOfBinary(p);
      if (f) return f;
    }
  }
  return undefined;
}

export async function detectMpi(program: string, env: NodeJS.ProcessEnv, override?: string): Promise<Detected> {
  if (override !== undefined && override !== 'openmpi' && override !== 'mpich') {
    throw new MpiiError(`unknown MPI '${override}' for --mpi`, 'use --mpi openmpi or --mpi mpich');
  }
  const path = resolveProgram(program, env);
  if (override) return { flavor: override as FlavorName, how: '--mpi', program: path };
  if (isElf(path)) {
    const ldd = spawnSync('ldd', [path], { env, encoding: 'utf8' });
    for (const f of ['openmpi', 'mpich'] as FlavorName[]) {
      const m = FLAVORS[f].libraries.exec(ldd.stdout);
      if (m) return { flavor: f, how: `${program} links ${m[0]}`, program: path };
    }
    const bytes = readFileSync(path).toString('latin1');
    if (/ompi_mpi_init|MPIR_Init_thread|MPID_Init|\bPMPI_Init\b/.test(bytes)) {
      throw new MpiiError(`${program} is linked against a static MPI library: a preloaded shim cannot intercept it`,
        'relink it with the shared MPI library (the default of mpicc), or build it with mpii.h (see README, "static MPI")');
    }
    throw new MpiiError(`${program} is not an MPI program (it does not link an MPI library)`,
      'run an MPI program, or pass --mpi openmpi|mpich if it loads MPI at run time (e.g. python with mpi4py)');
  }
  // a script or interpreter: it will load MPI at run time; the launcher on PATH decides
  const f = launcherFlavor(env);
  if (f) return { flavor: f, how: `${program} is not an ELF binary; mpirun on PATH is ${FLAVORS[f].label}`, program: path };
  throw new MpiiError(`cannot tell which MPI ${program} uses and no mpirun is on PATH`, 'pass --mpi openmpi or --mpi mpich');
}

export function findLauncher(flavor: FlavorName, env: NodeJS.ProcessEnv): string {
  const l = findTool(flavor, FLAVORS[flavor].launchers, env);
  if (!l) {
    throw new MpiiError(`no ${FLAVORS[flavor].label} launcher found (tried ${FLAVORS[flavor].launchers.join(', ')})`,
      `install it: apt-get install -y ${FLAVORS[flavor].packages}`);
  }
  return l;
}

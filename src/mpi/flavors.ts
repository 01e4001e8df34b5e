// The two MPI flavours mpii knows, and how to reach their tools on this machine.
import { accessSync, constants, readFileSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export type FlavorName = 'openmpi' | 'mpich';

/** What a shim is built for: an MPI's own ABI, or the MPI-5 standard ABI (`abi`), whose one shim
 * serves every implementation of it (src/mpi/abi.ts). */
export type ShimFlavor = FlavorName | 'abi';

/** The name of what a shim is built for, in messages. */
export const flavorLabel = (f: ShimFlavor): string => (f === 'abi' ? 'MPI standard ABI' : FLAVORS[f].label);

export interface Flavor {
  name: FlavorName;
  /** human name for messages */
  label: string;
  /** compiler wrappers to try, most specific first */
  compilers: string[];
  /** launchers to try, most specific first */
  launchers: string[];
  /** sonames that identify this MPI in `ldd` output */
  libraries: RegExp;
  /** Debian packages that provide it, for error messages */
  packages: string;
}

export const FLAVORS: Record<FlavorName, Flavor> = {
  openmpi: {
    name: 'openmpi',
    label: 'Open MPI',
    compilers: ['mpicc.openmpi', 'mpicc'],
    launchers: ['mpirun.openmpi', 'mpiexec.openmpi', 'mpirun', 'mpiexec'],
    libraries: /\blibmpi\.so\.(?!12\b)\d+/, // .12 is the MPICH ABI's soname
    packages: 'openmpi-bin libopenmpi-dev',
  },
  mpich: {
    name: 'mpich',
    label: 'MPICH',
    compilers: ['mpicc.mpich', 'mpicc'],
    launchers: ['mpirun.mpich', 'mpiexec.hydra', 'mpiexec.mpich', 'mpirun', 'mpiexec'],
    libraries: /\blibmpich\.so\.\d+|\blibmpi\.so\.12\b/,
    packages: 'mpich libmpich-dev',
  },
};

/** Absolute path of an executable on PATH, or undefined. */
export function which(cmd: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (cmd.includes('/')) return isExecutable(cmd) ? cmd : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, cmd);
    if (isExecutable(p)) return p;
  }
  return undefined;
}

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Which flavour a launcher or wrapper binary belongs to, from its real name. */
export function flavorOfBinary(path: string): FlavorName | undefined {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return undefined;
  }
  if (/orterun|opal_wrapper|prterun|\.openmpi$/.test(real)) return 'openmpi';
  if (/hydra|\.mpich$/.test(real)) return 'mpich';
  try {
    // a generic `mpicc` script of MPICH says so in its text; Open MPI's wrapper is one binary
    const head = readFileSync(real)
      .subarray(0, 1 << 16)
      .toString('latin1');
    if (head.includes('MPICH')) return 'mpich';
    if (head.includes('Open MPI') || head.includes('OMPI_')) return 'openmpi';
  } catch {
    /* unreadable: unknown */
  }
  return undefined;
}

/** The first tool of `candidates` on PATH that really belongs to `flavor`. */
export function findTool(flavor: FlavorName, candidates: string[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const c of candidates) {
    const p = which(c, env);
    if (p && flavorOfBinary(p) === flavor) return p;
  }
  return undefined;
}

// How a job is started: the launcher, its arguments and its environment. mpirun/mpiexec hand the
// shim's variables to every rank with a flag per variable (one adapter per MPI); srun is in srun.ts.
import type { FlavorName } from '../mpi/flavors.js';

export interface LaunchPlan {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** A launcher checked before anything is built: the plan once the ranks' variables are known. */
export type Launcher = (vars: Record<string, string>, programArgv: string[]) => LaunchPlan;

export interface LauncherAdapter {
  flavor: FlavorName;
  /** launcher arguments that set `vars` in every rank (and only there) */
  envArgs(vars: Record<string, string>): string[];
}

const openmpi: LauncherAdapter = {
  flavor: 'openmpi',
  envArgs: (vars) => Object.entries(vars).flatMap(([k, v]) => ['-x', `${k}=${v}`]),
};

const mpich: LauncherAdapter = {
  flavor: 'mpich',
  envArgs: (vars) => Object.entries(vars).flatMap(([k, v]) => ['-genv', k, v]),
};

export const ADAPTERS: Record<FlavorName, LauncherAdapter> = { openmpi, mpich };

/** mpirun/mpiexec of `flavor` at `path`: the variables as flags, the user's options untouched. */
export function mpirunLauncher(flavor: FlavorName, path: string, launcherArgs: string[], env: NodeJS.ProcessEnv): Launcher {
  return (vars, programArgv) => ({ command: path, args: [...ADAPTERS[flavor].envArgs(vars), ...launcherArgs, ...programArgv], env });
}

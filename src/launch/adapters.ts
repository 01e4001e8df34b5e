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

/** Whether the launcher of this MPI (its version as mpiVersionOf says it) gives a job started by
 *  MPI_Comm_spawn its own environment instead of the -x variables: Open MPI 5 and later, launched
 *  by PRRTE, whose daemons start a spawned job with the environment they were started with
 *  (open-mpi/ompi#13399); Open MPI 4's ORTE and MPICH's hydra hand a spawned job the flags' variables. */
export const spawnSeesLauncherEnv = (flavor: FlavorName, version: string | undefined): boolean =>
  flavor === 'openmpi' && Number(/^Open MPI (\d+)/.exec(version ?? '')?.[1] ?? 0) >= 5;

/** mpirun/mpiexec of `flavor` at `path`: the variables as flags, the user's options untouched.
 *  `launcherEnvToo` (spawnSeesLauncherEnv): the variables go into the launcher's own environment as
 *  well, so that a spawned job on the launcher's node runs under the shim too. The shim, preloaded
 *  into the launcher then, stays inert there: the launcher never calls MPI_Init. */
export function mpirunLauncher(flavor: FlavorName, path: string, launcherArgs: string[], env: NodeJS.ProcessEnv, launcherEnvToo = false): Launcher {
  return (vars, programArgv) => ({
    command: path,
    args: [...ADAPTERS[flavor].envArgs(vars), ...launcherArgs, ...programArgv],
    env: launcherEnvToo ? { ...env, ...vars } : env,
  });
}

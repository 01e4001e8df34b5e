// What a run finds out before it is planned (plan.ts's RunFacts): the stack from the
// configuration, the MPI from the program, the launcher, the pvars checked with the library, the
// output directory checked, the shim built or found in the cache, a Python program's call-site
// helper. Everything that asks the machine happens here, in this order (the output directory
// before any build), so that the plan itself is pure.
import { hostname } from 'node:os';
import { resolveStack } from '../config/resolve.js';
import { checkToolLibraries } from '../elf.js';
import { MpiiError } from '../errors.js';
import { mpirunLauncher, spawnSeesLauncherEnv, type Launcher } from '../launch/adapters.js';
import type { RunArgs } from '../launch/args.js';
import { currentJob } from '../launch/sbcast.js';
import { srunLauncher } from '../launch/srun.js';
import { detectMpi, findLauncher } from '../mpi/detect.js';
import type { FlavorName } from '../mpi/flavors.js';
import { cacheRoot, implementationVersion } from '../shim/shim.js';
import type { Run } from './execute.js';
import { defaultOutDir } from './output-dir.js';
import type { RunFacts } from './plan.js';
import { pythonSites } from './python.js';
import { chooseShim, type BuildShim, type GeneralCached } from './shim-choice.js';
import { applyToolRules } from './tool-rules.js';

/** The arguments' own rules, before anything is looked at. */
export function checkRunArgs(args: RunArgs): void {
  if (!args.program) throw new MpiiError('no program to run', 'usage: mpii run [mpii options] [launcher options] ./app [args]');
  if (args.copyShim && args.launcher !== 'srun') {
    throw new MpiiError(
      "--copy-shim copies with Slurm's sbcast and needs --launcher srun",
      'with mpirun, install the shim at the same path on every host (mpii install --prefix on a path every host has)',
    );
  }
}

/** `version`: the MPI's as its header says it, where the launcher's behaviour depends on it. */
function chooseLauncher(args: RunArgs, flavor: FlavorName, env: NodeJS.ProcessEnv, version: string | undefined): Launcher {
  if (args.launcher === 'srun') return srunLauncher(flavor, args.launcherArgs, env);
  return mpirunLauncher(flavor, findLauncher(flavor, env), args.launcherArgs, env, spawnSeesLauncherEnv(flavor, version));
}

export async function probeRun(
  args: RunArgs,
  env: NodeJS.ProcessEnv,
  run: Run,
  o: { defaultsFile: string; build: BuildShim; generalCached: GeneralCached },
): Promise<RunFacts> {
  checkRunArgs(args);
  const program = args.program!;
  const cwd = process.cwd();
  const stack = resolveStack({ tools: args.tools, stack: args.stack, configFile: args.config, env, cwd, defaultsFile: o.defaultsFile });
  applyToolRules(stack.tools, args.toolFlags);
  checkToolLibraries(stack.tools); // a .so the ranks could not load: one line now, not a failure in every rank
  const mpi = await detectMpi(program, env, args.mpi, cacheRoot(env));
  // the version: for the report of a standard-ABI run, and Open MPI's launcher (PRRTE from 5 on);
  // MPICH's native runs need it for neither
  const version = mpi.abi || mpi.flavor === 'openmpi' ? await implementationVersion(mpi.flavor, env) : undefined;
  if (mpi.abi) mpi.abi.version = version;
  const launcher = chooseLauncher(args, mpi.flavor, env, version);
  const job = args.copyShim ? currentJob(env) : undefined;
  if (args.pvars.length) {
    // the names are checked with the library before anything runs (loaded only when asked)
    const { findAbiInstall, findInstall, askMpit } = await import('../mpit/library.js');
    const { checkSampled } = await import('../mpit/vars.js');
    const inst = mpi.abi ? await findAbiInstall(mpi.flavor, env) : await findInstall(mpi.flavor, env);
    checkSampled(await askMpit(inst, { pvars: true }), args.pvars);
  }
  const outDir = run.outDir(args.out ?? defaultOutDir(program), args.force, args.dryRun);
  // a standard-ABI program's shim is the ABI's, whichever implementation runs it
  const shim = await chooseShim(mpi.abi ? 'abi' : mpi.flavor, args, stack.tools, env, o.build, o.generalCached);
  const sites = mpi.python ? await pythonSites(mpi.python.include, env) : undefined;
  return { args, env, cwd, host: hostname(), pid: process.pid, cacheDir: cacheRoot(env), stack, mpi, launcher, job, outDir, shim, pythonSites: sites };
}

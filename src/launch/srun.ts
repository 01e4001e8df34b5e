// `mpii run --launcher srun`: Slurm starts the ranks. What srun needs from mpii: the PMI plugin
// that really works with the program's MPI, mpirun's -np spelled -n, and the shim's environment
// in every task.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { MpiiError } from '../errors.js';
import { FLAVORS, which, type FlavorName } from '../mpi/flavors.js';
import type { Launcher } from './adapters.js';

/** The Slurm plugin each MPI needs, found by running both under Slurm 22.05 (docs/multihost.md, "Slurm").
 * Debian's Open MPI 4.1 has only PMIx clients (its pmix components: ext3x, flux, isolated); under
 * pmi2 or none MPI_Init stops with "OMPI was not built with SLURM's PMI support". MPICH 4.0's
 * built-in PMI client speaks PMI-2 to srun; under pmix or none every task silently starts as a
 * job of its own with one rank, so mpii refuses those rather than let the job run wrong. */
const PLUGINS: Record<FlavorName, { plugin: string; accepts: RegExp; otherwise: string }> = {
  openmpi: { plugin: 'pmix', accepts: /^pmix(_v\d+)?$/, otherwise: 'MPI_Init fails: it only talks PMIx to srun' },
  mpich: { plugin: 'pmi2', accepts: /^pmi2$/, otherwise: 'every task would start as a separate 1-rank job: it only talks PMI-2 to srun' },
};

/** The plugin mpii passes for each MPI. */
export const SRUN_PLUGIN = Object.fromEntries(Object.entries(PLUGINS).map(([f, p]) => [f, p.plugin])) as Record<FlavorName, string>;

/** srun, sbcast: Slurm's client commands on PATH. */
export function slurmCommand(name: string, env: NodeJS.ProcessEnv): string {
  const path = which(name, env);
  if (!path)
    throw new MpiiError(`${name} not found on PATH`, "install Slurm's client (apt-get install -y slurm-client), or drop --launcher srun to use mpirun");
  return path;
}

/** Why a Slurm command failed: its last line says why it gave up ("srun: fatal: …"). */
export function slurmFailure(r: SpawnSyncReturns<string>): string {
  return (
    `${r.stderr ?? ''}${r.error?.message ?? ''}`
      .split('\n')
      .filter((l) => l.trim())
      .pop()
      ?.trim() ?? `exit ${r.status}`
  );
}

/** The MPI plugins this Slurm has (`srun --mpi=list`: pmix, pmi2, none, pmix_v4 …). */
export function srunPlugins(srun: string, env: NodeJS.ProcessEnv): string[] {
  const r = spawnSync(srun, ['--mpi=list'], { env, encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) throw new MpiiError(`srun --mpi=list failed (${slurmFailure(r)})`, 'check the Slurm configuration (SLURM_CONF) with sinfo');
  const names = [...r.stdout.matchAll(/^\t(\S+)$/gm)].map((m) => m[1]);
  const versions =
    /versions available: (.*)$/m
      .exec(r.stdout)?.[1]
      .split(/[\s,]+/)
      .filter(Boolean) ?? [];
  return [...names, ...versions];
}

/** The user's own --mpi among the srun options (the argument splitter spells it `--mpi=X`). */
const userPlugin = (args: string[]) => args.find((a) => a.startsWith('--mpi='))?.slice('--mpi='.length);

/** srun takes `-n N`; mpii's usage (and every mpirun) says `-np N`. */
function translateArgs(args: string[]): string[] {
  return args.map((a) => (a === '-np' || a === '--np' ? '-n' : a));
}

/** srun for a program of `flavor`, with the user's srun options: checked before the shim is built. */
export function srunLauncher(flavor: FlavorName, launcherArgs: string[], env: NodeJS.ProcessEnv): Launcher {
  if (launcherArgs.some((a) => a === '--export' || a.startsWith('--export='))) {
    throw new MpiiError("mpii sets srun's --export itself", "leave --export out and set the variables in mpii's environment: srun passes it on");
  }
  const want = PLUGINS[flavor];
  const label = FLAVORS[flavor].label;
  const given = userPlugin(launcherArgs);
  if (given !== undefined && !want.accepts.test(given)) {
    throw new MpiiError(
      `srun --mpi=${given} cannot start ${label} programs (${want.otherwise})`,
      `use --mpi=${want.plugin}, or leave --mpi out and mpii picks it`,
    );
  }
  const srun = slurmCommand('srun', env);
  const plugins = srunPlugins(srun, env);
  const plugin = given ?? want.plugin;
  if (!plugins.includes(plugin)) {
    throw new MpiiError(
      `this Slurm has no ${plugin} MPI plugin (srun --mpi=list: ${plugins.join(', ') || 'none'}), which ${label} needs`,
      `install Slurm with ${plugin} support, or drop --launcher srun to start the job with mpirun`,
    );
  }
  return (vars, programArgv) => {
    // srun hands its own environment to every task, so the variables go there, except the shim
    // itself: preloaded into srun it would sit in a process that never calls MPI. --export
    // separates variables with commas and cannot quote one inside a value.
    const { LD_PRELOAD: preload, ...rest } = vars;
    if (preload.includes(',')) {
      throw new MpiiError(
        `the shim's LD_PRELOAD (${preload}) contains a comma, which srun --export cannot carry`,
        'set XDG_CACHE_HOME (and LD_PRELOAD) to paths without commas',
      );
    }
    const args = [...(given ? [] : [`--mpi=${plugin}`]), `--export=ALL,LD_PRELOAD=${preload}`, ...translateArgs(launcherArgs), ...programArgv];
    return { command: srun, args, env: { ...env, ...rest } };
  };
}

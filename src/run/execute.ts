// The executor of `mpii run`: owns the run's signals and its output directory, and carries out a
// plan (plan.ts): starts the background build, makes the links, prints the banner, creates the
// run mark and the run's description, copies the libraries to the nodes, starts the launcher and
// waits for the job, prints the report, and takes back what the run made.
import { rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { MpiiError } from '../errors.js';
import { copyToNodes, removeFromNodes } from '../launch/sbcast.js';
import { bySignal, exitCodeOf, supervise, TIMEOUT_EXIT } from '../launch/supervise.js';
import { mpiiVersion, programIdentity, writeRunInfo } from '../report/run-info.js';
import { backgroundNotice, startBackground } from '../shim/background.js';
import { flavorLabel } from '../mpi/flavors.js';
import { lastBuildSeconds } from '../shim/build-times.js';
import { cacheRoot } from '../shim/shim.js';
import { ROOT } from '../paths.js';
import { prepareOutDir, removeIfEmpty } from './output-dir.js';
import type { RunPlan } from './plan.js';
import { linkAbiName } from './python.js';
import { reportAfterJob } from './summary.js';
import { rankEnds } from '../profile-file/read.js';

/** A run from its first step to its end: what it made, and whether the launcher runs. */
export class Run {
  /** directories mpii made for the output (taken back when the run never got going) */
  readonly created: string[] = [];
  /** a job that succeeded keeps its output directory even when empty */
  keep = false;
  /** from the launch on, signals go to the launcher (supervise) */
  launched = false;
  mark?: string;

  /** The output directory, checked before anything is built or launched (output-dir.ts). */
  outDir(dir: string, force: boolean, dryRun: boolean): string {
    return prepareOutDir(dir, force, dryRun, this.created);
  }
}

/** Runs `body` with the run's signals and output directory owned here. A run that never got going
 * (an error before the launch, a launch that failed, --dry-run) leaves no empty output directory
 * behind; a job that succeeded keeps it even when empty (INJ_IGNORE, or the profile went to rank
 * 0's host: the hint says to copy it there). A signal before the launcher runs (say, Ctrl-C
 * during a shim build) ends mpii with 128+signal and takes back what this run made; from the
 * launch on, the job's supervision passes signals on. */
export async function withRun(body: (run: Run) => Promise<number>): Promise<number> {
  const run = new Run();
  const early = (sig: NodeJS.Signals) => () => {
    if (run.launched) return;
    if (run.mark) rmSync(run.mark, { force: true });
    removeIfEmpty(run.created);
    process.exit(bySignal(sig));
  };
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as NodeJS.Signals[]).map((s) => [s, early(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  try {
    return await body(run);
  } finally {
    for (const [s, h] of handlers) process.off(s, h);
    if (!run.keep) removeIfEmpty(run.created);
  }
}

/** Carries out `plan` (not a dry run): returns the job's exit code. */
export async function executePlan(plan: RunPlan, run: Run, env: NodeJS.ProcessEnv): Promise<number> {
  if (plan.background) {
    const { shim, stack, tools, general } = plan.background;
    const b = startBackground(
      general ? { kind: 'general', flavor: shim.flavor, cache: cacheRoot(env), key: general, tools } : { kind: 'stack', shim, tools },
      env,
    );
    const last = lastBuildSeconds(cacheRoot(env), general ? 'shim' : 'stack');
    process.stderr.write(`${backgroundNotice(stack, b, last, general && flavorLabel(shim.flavor))}\n`);
  }
  for (const link of plan.links) linkAbiName(link);
  if (!plan.quiet) {
    for (const n of plan.notes) process.stderr.write(`mpii: note: ${n}\n`);
    process.stderr.write(`${plan.banner}\n`);
  }
  run.mark = plan.runMark;
  writeFileSync(plan.runMark, '');
  writeRunInfo(plan.outDir, {
    mpii: mpiiVersion(ROOT),
    ...plan.runInfo,
    program: programIdentity(plan.command, plan.runInfo.cwd, env, cacheRoot(env)),
    started: new Date().toISOString(),
  });
  try {
    if (plan.copies) copyToNodes(plan.copies, env);
    run.launched = true;
    const code = await runJob(plan, env);
    run.keep = code === 0;
    return code;
  } finally {
    rmSync(plan.runMark, { force: true });
    if (plan.copies) {
      const warning = removeFromNodes(plan.copies, env);
      if (warning) process.stderr.write(`mpii: ${warning}\n`);
    }
  }
}

/** Starts the launcher, waits for the job, prints the report; returns the job's exit code. */
async function runJob(plan: RunPlan, env: NodeJS.ProcessEnv): Promise<number> {
  const { command, args, env: launchEnv } = plan.launch;
  const child = spawn(command, args, { stdio: 'inherit', env: launchEnv });
  // signals to mpii go on to the launcher (exit 128+signal), --timeout stops it (exit 124)
  const outcome = await supervise(
    child,
    (e) => new MpiiError(`cannot start ${command}: ${e.message}`, 'check the MPI installation with mpii doctor'),
    plan.timeout,
  );
  const code = lostExitCode(exitCodeOf(outcome), plan);
  if (outcome.timedOut) {
    process.stderr.write(
      `mpii: the job ran past --timeout ${plan.timeout} s and was stopped (exit ${TIMEOUT_EXIT}): its profile is partial, marked INCOMPLETE\n`,
    );
  }
  if (!plan.quiet) await reportAfterJob(code, plan.outDir, plan.tools, env);
  return code;
}

/** A launcher that exits 0 for a job whose ranks did not all end well: MPICH 4.1 to 4.2.1's hydra
 * loses the ranks' exit codes when a second rank ends while the first is being cleaned up
 * (pmodels/mpich#7057: 9 runs in 40 here on Debian 13's MPICH 4.2.1). A stopped or crashed job
 * must not look like a success, and the ranks' files say what happened: memcheck's fatal stop
 * ends its rank with exit 86 (docs/tools/memcheck.md), so mpii exits 86; a rank that ended
 * between MPI_Init and MPI_Finalize without MPI_Abort (a signal, say) gives exit 1. (An
 * MPI_Abort's own code is not in the files, and MPI_Abort(comm, 0) is a success: those keep the
 * launcher's code.) */
export const MEMCHECK_FATAL_EXIT = 86;
export const UNFINISHED_EXIT = 1;
function lostExitCode(code: number, plan: RunPlan): number {
  if (code !== 0) return code;
  const lost = `${plan.launch.command} exited 0 (a launcher that lost the rank's exit code, e.g. MPICH 4.1-4.2.1's hydra: pmodels/mpich#7057)`;
  const { stopped, unfinished } = rankEnds(plan.outDir);
  if (stopped.length > 0 && plan.tools.some((t) => t.name === 'memcheck' && String(t.options.fatal) === 'true')) {
    process.stderr.write(
      `mpii: memcheck stopped the job at rank ${stopped.join(', ')} (exit ${MEMCHECK_FATAL_EXIT}) but ${lost}: mpii exits ${MEMCHECK_FATAL_EXIT}\n`,
    );
    return MEMCHECK_FATAL_EXIT;
  }
  if (unfinished.length === 0) return code;
  process.stderr.write(
    `mpii: rank ${unfinished.join(', ')} ended without MPI_Finalize (the ranks' profile files say so) but ${lost}: mpii exits ${UNFINISHED_EXIT}\n`,
  );
  return UNFINISHED_EXIT;
}

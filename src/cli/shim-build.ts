// A shim build with its progress on stderr: one line that says what is built and why (even when
// quiet), a spinner on a terminal (ora, loaded only when a build really happens), the time it took
// kept for the next notice. `mpii build` and `mpii run` build through it.
import { buildShim, cacheRoot, type BuildReason, type Shim } from '../shim/shim.js';
import type { ToolManifest } from '../tools/manifest.js';
import { ensureSpecialised } from '../shim/specialise.js';
import { buildNotice, lastBuildSeconds, recordBuildSeconds } from '../shim/build-times.js';
import { flavorLabel, type ShimFlavor } from '../mpi/flavors.js';
import { progressMode, startProgress, type Progress } from './progress.js';

export async function buildWithSpinner(
  flavor: ShimFlavor,
  quiet: boolean,
  env: NodeJS.ProcessEnv,
  force = false,
  specialise?: ToolManifest[],
  quick?: ToolManifest[],
  system = false,
): Promise<Shim> {
  // ora is loaded only when a build really happens (a warm run starts faster without it)
  let progress: Progress | undefined;
  const label = flavorLabel(flavor);
  const stream = process.stderr;
  try {
    let started: { kind: BuildReason['kind']; t0: number } | undefined;
    const finished = () => {
      if (started) recordBuildSeconds(cacheRoot(env), started.kind, (Date.now() - started.t0) / 1000);
      started = undefined;
    };
    const say = async (line: string) => {
      if (quiet) stream.write(`${line}\n`);
      // a spinner only on a terminal of known width (a 0-column pty made ora write escapes
      // forever); elsewhere the first and the last line only
      if (progress) progress.update(line);
      else progress = await startProgress(line, progressMode(stream, env, { quiet }), stream, env);
    };
    const opts = {
      env,
      force,
      beforeBuild: async (why: BuildReason) => {
        started = { kind: why.kind, t0: Date.now() };
        // a build takes seconds to minutes: one line says what and why, even when quiet
        await say(buildNotice(why, lastBuildSeconds(cacheRoot(env), why.kind)));
      },
      // another process builds the stack (a run's background build, another `mpii build`)
      onWait: (pid: number, what: string) => say(`mpii: waiting for ${what}, which another mpii (pid ${pid}) is building; the job starts when it is done`),
      onStep: (t: string) => progress?.update(`mpii: building the ${quick ? 'quick ' : ''}${label} shim: ${t}`),
    };
    const general = await buildShim(flavor, { ...opts, quick, system });
    finished();
    // the stack's specialised shim, made from the general one's objects
    const shim = specialise ? await ensureSpecialised(general, specialise, opts) : general;
    finished();
    progress?.succeed(`mpii: built the ${quick ? 'quick ' : ''}${label} shim (${shim.functions} MPI functions wrapped)`);
    return shim;
  } catch (e) {
    progress?.fail();
    throw e;
  }
}

// A new stack's first `mpii run` does not wait for its compiled-in shim: the stack runs at once
// through the QMPI chain of the general shim (the same tools, the same results field by field:
// test/specialised.test.ts), while a detached process (background-main.ts) compiles the stack's
// one translation unit, niced, for the runs after it. The very first run on an MPI does not wait
// for the general shim either: it runs on a quick shim (shim.ts, quickShimDir) while the same
// kind of process builds the general shim, then the stack's compiled-in one. A stack's compile
// is minutes of one core on a loaded 2-core machine (docs/performance.md, "Cold builds"). One process builds a stack at a
// time (build-lock.ts); a build that failed is not tried again by every run (its `.failed` file
// says why; `mpii build --tools` and MPII_BUILD=wait build in the foreground and show the error).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MpiiError } from '../errors.js';
import { makeDirs } from '../fsdirs.js';
import { stackName } from '../gen/specialised-c.js';
import type { ToolManifest } from '../tools/manifest.js';
import { acquireLock, handOverLock, lockHolder, lockPath, releaseLock } from './build-lock.js';
import type { Shim } from './shim.js';
import type { ShimFlavor } from '../mpi/flavors.js';
import { ENV } from '../environment.gen.js';

/** How `mpii run` gets a stack's compiled-in shim that is not cached: MPII_BUILD. */
export type BuildMode = 'background' | 'wait';

export function buildMode(env: NodeJS.ProcessEnv): BuildMode {
  const v = env[ENV.MPII_BUILD];
  if (v === undefined || v === '' || v === 'background') return 'background';
  if (v === 'wait') return 'wait';
  throw new MpiiError(
    `MPII_BUILD=${v} is not a build mode`,
    "set MPII_BUILD=wait (wait for a stack's compiled-in shim) or background (the default), or unset it",
  );
}

/** What a background build makes. `stack`: a stack's compiled-in shim, next to the general shim
 *  `shim` (in its home). `general`: the very first run on an MPI started on a quick shim; the
 *  general shim of cache key `key` is built first, then the compiled-in shim of `tools` if the
 *  run's stack has one (`tools` empty: none). */
export type BackgroundBuild =
  { kind: 'stack'; shim: Shim; tools: ToolManifest[] } | { kind: 'general'; flavor: ShimFlavor; cache: string; key: string; tools: ToolManifest[] };

const files = (b: BackgroundBuild) => {
  // the general shim's lock is in the cache itself (its directory does not exist yet): one build
  // of it at a time, whatever stack each first run asked for
  const [dir, name] = b.kind === 'general' ? [b.cache, `general-${b.key}`] : [b.shim.home, stackName(b.tools)];
  return { lock: lockPath(dir, name), log: join(dir, `.spec-${name}.log`), failed: join(dir, `.spec-${name}.failed`) };
};

/** What a background build is doing: `started` by this run, `building` in another
 *  process, or `failed` the last time (and why). */
export type Background = { state: 'started' | 'building'; pid: number } | { state: 'failed'; why: string; log: string };

/** The background build's own record of a failure, read by the runs after it. */
export function recordFailure(b: BackgroundBuild, why: string): void {
  writeFileSync(files(b).failed, `${why}\n`);
}

/** A successful build in the foreground clears what a failed background build left. */
export function clearFailure(b: BackgroundBuild): void {
  for (const f of [files(b).failed, files(b).log]) rmSync(f, { force: true });
}

/** The lock a background build holds, for it to release at its end. */
export const backgroundLock = (b: BackgroundBuild) => files(b).lock;

const MAIN = join(dirname(fileURLToPath(import.meta.url)), 'background-main.js');

/** Starts the background build `b` unless one is running or the last one failed. */
export function startBackground(b: BackgroundBuild, env: NodeJS.ProcessEnv): Background {
  const { lock, log, failed } = files(b);
  if (existsSync(failed)) return { state: 'failed', why: readFileSync(failed, 'utf8').trim(), log };
  makeDirs(dirname(lock)); // a stack of a system cache's shim is built in the user's cache
  if (!acquireLock(lock)) {
    const pid = lockHolder(lock);
    // the holder finished between the two looks: its result is for the next run
    return { state: 'building', pid: pid ?? 0 };
  }
  let pid: number | undefined;
  try {
    const out = openSync(log, 'w');
    try {
      // its own session: Ctrl-C on the run, the run's end, a terminal closed do not stop it
      const [flavor, key] = b.kind === 'general' ? [b.flavor, b.key] : [b.shim.flavor, '-'];
      const args = [MAIN, flavor, b.kind, key, ...b.tools.map((t) => t.name)];
      const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', out, out], env });
      child.on('error', () => {}); // reported by its missing result: the next run tries again
      pid = child.pid;
      if (pid === undefined) throw new Error('no process');
      handOverLock(lock, pid);
      child.unref();
    } finally {
      closeSync(out);
    }
  } catch {
    releaseLock(lock);
    return { state: 'failed', why: 'the background build could not be started', log };
  }
  try {
    setPriority(pid, 10); // the job that runs meanwhile comes first; the compilers inherit it
  } catch {
    // only a slower job meanwhile
  }
  return { state: 'started', pid };
}

/** The one line a run that does not wait prints, even with --quiet. */
export function backgroundNotice(stack: string, b: Background, lastSeconds: number | undefined, first?: string): string {
  if (b.state === 'failed') {
    if (first) {
      return (
        `mpii: running on a quick shim: the full ${first} shim failed to build in the background (${b.why}); ` + `\`mpii build\` tries again and shows why`
      );
    }
    return (
      `mpii: running chained: the compiled-in stack ${stack} failed to build in the background (${b.why}); ` +
      `\`mpii build --tools ${stack.replaceAll('+', ',')}\` tries again and shows why`
    );
  }
  const why =
    b.state === 'started'
      ? `${first ? 'the first run on this MPI' : 'its first run with this shim'}${lastSeconds === undefined ? '' : `; the last build took ${lastSeconds} s`}, pid ${b.pid}`
      : `started by another run, pid ${b.pid}`;
  if (first) {
    const then = stack ? `, then the compiled-in stack ${stack}` : '';
    return `mpii: running on a quick shim (-Og, this stack's tools only) while the full ${first} shim${then} builds in the background (${why}); the next run uses it (MPII_BUILD=wait waits for it)`;
  }
  return `mpii: running chained while the compiled-in stack ${stack} builds in the background (${why}); the next run uses it (MPII_BUILD=wait waits for it)`;
}

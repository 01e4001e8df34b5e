// A new stack's first `mpii run` does not wait for its compiled-in shim: the stack runs at once
// through the QMPI chain of the general shim (the same tools, the same results field by field:
// test/specialised.test.ts), while a detached process (background-main.ts) compiles the stack's
// one translation unit, niced, for the runs after it. That compile is minutes of one core on a
// loaded 2-core machine (docs/performance.md, "Cold builds"). One process builds a stack at a
// time (build-lock.ts); a build that failed is not tried again by every run (its `.failed` file
// says why; `mpii build --tools` and MPII_BUILD=wait build in the foreground and show the error).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MpiiError } from '../errors.js';
import { stackName } from '../gen/specialised-c.js';
import type { ToolManifest } from '../tools/manifest.js';
import { acquireLock, handOverLock, lockHolder, lockPath, releaseLock } from './build-lock.js';
import type { Shim } from './shim.js';
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

const files = (shim: Shim, tools: ToolManifest[]) => {
  const dir = dirname(shim.library);
  const stack = stackName(tools);
  return { lock: lockPath(dir, stack), log: join(dir, `.spec-${stack}.log`), failed: join(dir, `.spec-${stack}.failed`) };
};

/** What a background build of the stack is doing: `started` by this run, `building` in another
 *  process, or `failed` the last time (and why). */
export type Background = { state: 'started' | 'building'; pid: number } | { state: 'failed'; why: string; log: string };

/** The background build's own record of a failure, read by the runs after it. */
export function recordFailure(shim: Shim, tools: ToolManifest[], why: string): void {
  writeFileSync(files(shim, tools).failed, `${why}\n`);
}

/** A successful build in the foreground clears what a failed background build left. */
export function clearFailure(shim: Shim, tools: ToolManifest[]): void {
  for (const f of [files(shim, tools).failed, files(shim, tools).log]) rmSync(f, { force: true });
}

const MAIN = join(dirname(fileURLToPath(import.meta.url)), 'background-main.js');

/** Starts the background build of `tools`' compiled-in shim unless one is running or the last
 *  one failed. */
export function startBackground(shim: Shim, tools: ToolManifest[], env: NodeJS.ProcessEnv): Background {
  const { lock, log, failed } = files(shim, tools);
  if (existsSync(failed)) return { state: 'failed', why: readFileSync(failed, 'utf8').trim(), log };
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
      const child = spawn(process.execPath, [MAIN, shim.flavor, ...tools.map((t) => t.name)], { detached: true, stdio: ['ignore', out, out], env });
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
export function backgroundNotice(stack: string, b: Background, lastSeconds: number | undefined): string {
  if (b.state === 'failed') {
    return (
      `mpii: running chained: the compiled-in stack ${stack} failed to build in the background (${b.why}); ` +
      `\`mpii build --tools ${stack.replaceAll('+', ',')}\` tries again and shows why`
    );
  }
  const why =
    b.state === 'started'
      ? `its first run with this shim${lastSeconds === undefined ? '' : `; the last build took ${lastSeconds} s`}, pid ${b.pid}`
      : `started by another run, pid ${b.pid}`;
  return `mpii: running chained while the compiled-in stack ${stack} builds in the background (${why}); the next run uses it (MPII_BUILD=wait waits for it)`;
}

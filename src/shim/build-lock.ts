// One build of a stack's compiled-in shim at a time, across processes (two `mpii run`s of a new
// stack, a run and `mpii build --tools`, a run and the background build another run started).
// The lock is a file holding the builder's pid, made atomically with link(2), which fails when
// the lock exists; a lock whose process is gone (a build killed with SIGKILL, a machine that
// rebooted) is stale and taken over. Node has no flock, and a pid file can be handed from the
// run that decided to build to the detached process that builds (handOverLock).
import { linkSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The lock of the compiled-in shim `spec-<stack>` in the shim directory `dir`. */
export const lockPath = (dir: string, stack: string) => join(dir, `.spec-${stack}.lock`);

/** Whether process `pid` exists (EPERM: it does, under another user) and is not a zombie: a
 *  killed build whose parent is gone stays one for ever where the container's init reaps no one. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // the state is the field after the command's name, which is in parentheses and may hold any
    return !/^Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, ''));
  } catch {
    return true; // no /proc: kill's answer
  }
}

function pidIn(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The live process holding the lock, or undefined (no lock, or a stale one). */
export function lockHolder(lock: string): number | undefined {
  const pid = pidIn(lock);
  return pid !== undefined && alive(pid) ? pid : undefined;
}

/** A private file holding `pid` (written whole before anyone can see it under the lock's name). */
function pidFile(lock: string, pid: number): string {
  const tmp = `${lock}.${process.pid}.${pid}.tmp`;
  writeFileSync(tmp, `${pid}\n`);
  return tmp;
}

/** Takes the lock for `pid` (this process by default): true when taken, false when a live process
 *  holds it. A stale lock is moved aside and the taking tried once more. */
export function acquireLock(lock: string, pid = process.pid): boolean {
  const tmp = pidFile(lock, pid);
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        linkSync(tmp, lock);
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      if (lockHolder(lock) !== undefined || !breakStale(lock)) return false;
    }
    return false;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Moves a stale lock aside. Two processes may both find it stale: the second one's rename can
 *  take the lock the first has just made, so what was moved is checked, and a live holder's lock
 *  is put back (link: never over a newer one). False when the lock is live after all. */
function breakStale(lock: string): boolean {
  const aside = `${lock}.stale.${process.pid}`;
  try {
    renameSync(lock, aside);
  } catch {
    return true; // gone already: someone else broke it, try to take it
  }
  const pid = pidIn(aside);
  try {
    if (pid !== undefined && alive(pid)) {
      try {
        linkSync(aside, lock);
      } catch {
        // a third process took the lock meanwhile: it holds it
      }
      return false;
    }
    return true;
  } finally {
    rmSync(aside, { force: true });
  }
}

/** Gives the lock this process holds to `pid` (the background build it started): an atomic
 *  replace, so a reader sees the one pid or the other. */
export function handOverLock(lock: string, pid: number): void {
  renameSync(pidFile(lock, pid), lock);
}

/** Lets go of the lock if `pid` (this process by default) holds it. */
export function releaseLock(lock: string, pid = process.pid): void {
  if (pidIn(lock) === pid) rmSync(lock, { force: true });
}

/** Waits while a live process holds the lock and `done()` is false; polls (a build takes
 *  seconds, a poll costs a stat). */
export async function waitForLock(lock: string, done: () => boolean, pollMs = 250): Promise<void> {
  while (!done() && lockHolder(lock) !== undefined) await new Promise((r) => setTimeout(r, pollMs));
}

/** The work directory of a build by this process: `.spec-<stack>-<pid>-XXXXXX` (mkdtemp's suffix). */
export const workPrefix = (dir: string, stack: string) => join(dir, `.spec-${stack}-${process.pid}-`);

/** Removes the work directories (and stray lock files) of builds whose process is gone: what a
 *  killed build leaves. Never used (only a whole build is renamed into place), only disk. */
export function removeDeadWork(dir: string): void {
  for (const name of readdirSync(dir)) {
    const m = /^\.spec-.+-(\d+)-[A-Za-z0-9]{6}$/.exec(name) ?? /^\.spec-.+\.lock\.(\d+)\.\d+\.tmp$/.exec(name);
    if (m && !alive(Number(m[1]))) rmSync(join(dir, name), { recursive: true, force: true });
  }
}

// Waiting for the launcher: signals sent to mpii are passed on to it, --timeout stops it, and a
// launcher that does not go away after being told to is killed.
import type { ChildProcess } from 'node:child_process';
import { constants as osConstants } from 'node:os';

/** What `--timeout` exits with (as coreutils' timeout). */
export const TIMEOUT_EXIT = 124;
/** How long a launcher may take to tear its job down after SIGTERM/SIGINT before SIGKILL. */
export const GRACE_MS = 15_000;

export interface Outcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** the signal mpii received and passed on, if any */
  received?: NodeJS.Signals;
  /** --timeout ran out and mpii stopped the job */
  timedOut: boolean;
}

export const bySignal = (s: string): number => 128 + (osConstants.signals[s as NodeJS.Signals] ?? 15);

/** The exit code of a job: a signal mpii received gives 128+signal (Ctrl-C 130, SIGTERM 143)
 * whatever the launcher made of it, a timeout gives 124, else the launcher's own. */
export function exitCodeOf(o: Outcome): number {
  if (o.timedOut) return TIMEOUT_EXIT;
  if (o.received) return bySignal(o.received);
  return o.exitCode ?? (o.signal ? bySignal(o.signal) : 1);
}

/** Waits for `child`. Ctrl-C reaches the launcher through the terminal's process group as well;
 * SIGINT/SIGTERM/SIGHUP sent to mpii alone are passed on so the launcher tears the job down
 * instead of orphaning it. `timeoutSec`: SIGTERM to the launcher after that many seconds. */
export function supervise(child: ChildProcess, onError: (e: Error) => Error, timeoutSec?: number, graceMs = GRACE_MS): Promise<Outcome> {
  let received: NodeJS.Signals | undefined;
  let timedOut = false;
  let killer: NodeJS.Timeout | undefined;
  const stop = (sig: NodeJS.Signals) => {
    child.kill(sig);
    // a launcher that is still there after the grace period is killed (its job with it, as far
    // as the MPI's own daemons go)
    killer ??= setTimeout(() => child.kill('SIGKILL'), graceMs);
  };
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as NodeJS.Signals[]).map(
    (s) =>
      [
        s,
        () => {
          received ??= s;
          stop(s);
        },
      ] as const,
  );
  for (const [s, h] of handlers) process.on(s, h);
  const timer =
    timeoutSec !== undefined
      ? setTimeout(() => {
          timedOut = true;
          stop('SIGTERM');
        }, timeoutSec * 1000)
      : undefined;
  return new Promise<Outcome>((done, fail) => {
    const finish = () => {
      for (const [s, h] of handlers) process.off(s, h);
      clearTimeout(timer);
      clearTimeout(killer);
    };
    child.on('error', (e) => {
      finish();
      fail(onError(e));
    });
    child.on('exit', (exitCode, signal) => {
      finish();
      done({ exitCode, signal, received, timedOut: timedOut && !received });
    });
  });
}

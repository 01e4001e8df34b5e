// When the build progress may be drawn as a spinner, and how long its line may be.
// ora counts the lines it must clear as ⌈width / columns⌉: a pseudo-terminal that reports 0
// columns (a CI runner's pty, `script` without a size, a serial console) makes that Infinity and
// ora then writes cursor escapes without end. So: a spinner only on a terminal of known width.

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
}

/** A spinner only on a TTY that reports a width of at least one column, not TERM=dumb, not CI. */
export function spinnerWanted(stream: ProgressStream, env: NodeJS.ProcessEnv): boolean {
  if (!stream.isTTY) return false;
  const cols = stream.columns;
  if (typeof cols !== 'number' || !Number.isFinite(cols) || cols < 1) return false;
  if (env.TERM === 'dumb' || (env.CI !== undefined && env.CI !== '' && env.CI !== 'false')) return false;
  return true;
}

/** The spinner's text cut to one line of the terminal (frame and a space take two columns). */
export function fitLine(text: string, columns: number | undefined): string {
  const width = typeof columns === 'number' && Number.isFinite(columns) && columns > 0 ? Math.floor(columns) : 80;
  const room = Math.max(1, width - 3);
  return text.length <= room ? text : `${text.slice(0, Math.max(0, room - 1))}…`;
}

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

/** How long work shows its progress: `spinner` on a terminal of known width (spinnerWanted),
 * else `lines`, one line when it starts and one when it ends (bounded whatever the stream is),
 * or `off`: when quiet, and where lines would be noise (`lines: false`, for --json). */
export type ProgressMode = 'spinner' | 'lines' | 'off';

export function progressMode(stream: ProgressStream, env: NodeJS.ProcessEnv, o: { quiet?: boolean; lines?: boolean } = {}): ProgressMode {
  if (o.quiet) return 'off';
  if (spinnerWanted(stream, env)) return 'spinner';
  return o.lines === false ? 'off' : 'lines';
}

/** Reading a profile bigger than this shows progress (`mpii report`). */
export const BIG_PROFILE_BYTES = 64 * 1024 * 1024;
/** Writing the HTML page of this many ranks or more shows progress. */
export const MANY_RANKS_HTML = 1024;

/** Whether work is long enough for progress: most reports take well under a second, and say nothing. */
export function progressWorthIt(work: { profileBytes?: number; htmlRanks?: number }): boolean {
  return (work.profileBytes ?? 0) > BIG_PROFILE_BYTES || (work.htmlRanks ?? 0) >= MANY_RANKS_HTML;
}

/** The stream progress is written to: process.stderr, or a test's stand-in. */
export type ProgressOutput = ProgressStream & NodeJS.WritableStream;

export interface Progress {
  /** the text shown from now on (a spinner draws it at its next turn) */
  update(text: string): void;
  /** draw it now: before synchronous work, during which a spinner cannot turn */
  show(): void;
  /** a last line ✔ text; lines mode writes nothing else between start and this */
  succeed(text: string): void;
  fail(text?: string): void;
  /** take the spinner's line away, write nothing more */
  stop(): void;
}

/** Starts showing `text` in `mode` (ora, as the shim build has always used: its symbols, colour
 * by the NO_COLOR/FORCE_COLOR rule, a spinner's line cut to the terminal's width). */
export async function startProgress(
  text: string,
  mode: ProgressMode,
  stream: ProgressOutput = process.stderr,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Progress> {
  if (mode === 'lines') return await progressLines(text, stream, env);
  // a spinner's line must fit the terminal to be redrawn in place; a line in a log stays whole
  const fit = (t: string) => (mode === 'spinner' ? fitLine(t, stream.columns) : t);
  if (mode !== 'off') {
    // ora and its symbols colour through chalk's shared instance (loaded only when progress is shown)
    const { colorLevel } = await import('../color.js');
    (await import('chalk')).default.level = colorLevel(stream, env);
  }
  const { default: ora } = await import('ora');
  const spinner = ora({ text: fit(text), stream, isSilent: mode === 'off', isEnabled: mode === 'spinner' }).start();
  return {
    update: (t) => {
      spinner.text = fit(t);
    },
    show: () => {
      if (mode === 'spinner') spinner.render();
    }, // ora's render() writes even when disabled
    succeed: (t) => {
      spinner.succeed(t);
    },
    fail: (t) => {
      spinner.fail(t);
    },
    stop: () => {
      spinner.stop();
    },
  };
}

/** Lines mode: the lines ora writes when it does not spin (`- text`, then `✔ text` or `✖ text`
 *  with log-symbols' symbols, coloured as ora's would be), without loading ora and its dozen
 *  modules for them (`mpii report` of a big profile into a log: 10 to 15 ms of its start). */
async function progressLines(text: string, stream: ProgressOutput, env: NodeJS.ProcessEnv): Promise<Progress> {
  const { colorLevel } = await import('../color.js');
  const { green, red } = await import('../report/ansi.js');
  const colour = colorLevel(stream, env) > 0; // green and red are the same codes at every level
  // log-symbols' rule (is-unicode-supported) on Linux: Unicode but on the Linux console; it reads process.env
  const unicode = process.env.TERM !== 'linux';
  let last = text; // a line without a text of its own repeats the last one, as ora's
  stream.write(`- ${text}\n`);
  return {
    update: (t) => {
      last = t;
    },
    show: () => {},
    succeed: (t) => {
      const s = unicode ? '✔' : '√';
      stream.write(`${colour ? green(s) : s} ${t}\n`);
    },
    fail: (t) => {
      const s = unicode ? '✖' : '×';
      stream.write(`${colour ? red(s) : s} ${t ?? last}\n`);
    },
    stop: () => {},
  };
}

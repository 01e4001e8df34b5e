// One rule for colour everywhere (reports, `mpii tools`/`doctor`, the build spinner), as Node's
// own tty.getColorDepth has it: FORCE_COLOR set (and not 0/false) forces colour even into a pipe,
// FORCE_COLOR=0/false forbids it, then NO_COLOR (non-empty, https://no-color.org) forbids it,
// else colour on a terminal that is not TERM=dumb.

export interface ColorStream {
  isTTY?: boolean;
}

const forced = (env: NodeJS.ProcessEnv): boolean | undefined => {
  const f = env.FORCE_COLOR;
  if (f === undefined) return undefined;
  return !(f === '0' || f === 'false');
};

export function wantColor(stream: ColorStream, env: NodeJS.ProcessEnv = process.env): boolean {
  const f = forced(env);
  if (f !== undefined) return f;
  if (env.NO_COLOR) return false;
  return !!stream.isTTY && env.TERM !== 'dumb';
}

/** chalk's level for `stream`: 0 without colour; FORCE_COLOR=1..3 picks it; else 256 colours. */
export function colorLevel(stream: ColorStream, env: NodeJS.ProcessEnv = process.env): 0 | 1 | 2 | 3 {
  if (!wantColor(stream, env)) return 0;
  const n = Number.parseInt(env.FORCE_COLOR ?? '', 10);
  return n >= 1 && n <= 3 ? (n as 1 | 2 | 3) : 2;
}

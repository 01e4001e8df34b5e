/**
 * The one error type mpii raises for user-facing problems. `message` names the
 * problem (and where it came from, e.g. `mpii.yaml:4:` or `--tools:`), `fix`
 * tells the user what to do, `exitCode` is what the CLI should exit with.
 */
export class MpiiError extends Error {
  constructor(
    message: string,
    public fix?: string,
    public exitCode = 2,
  ) {
    super(message);
    this.name = 'MpiiError';
  }
}

/** One line: `mpii: <message> — <fix>` (the fix part only when there is one). */
export function formatError(e: MpiiError): string {
  return `mpii: ${e.message}${e.fix ? ` — ${e.fix}` : ''}`;
}

// `mpii pvars` / `mpii cvars` output, their name filter, and the checks of `mpii run --pvar`.
import { MpiiError } from '../errors.js';
import type { CvarInfo, MpitListing, PvarInfo } from './library.js';

/** Types mpii can sample (preload/core/mpit_sample.c). */
export const SAMPLED_TYPES = new Set([
  'MPI_INT',
  'MPI_UNSIGNED',
  'MPI_LONG',
  'MPI_UNSIGNED_LONG',
  'MPI_LONG_LONG',
  'MPI_LONG_LONG_INT',
  'MPI_UNSIGNED_LONG_LONG',
  'MPI_COUNT',
  'MPI_DOUBLE',
]);

/** A filter: a glob (`*`, `?`) matches the whole name; anything else is a substring. Case-insensitive. */
export function nameFilter(patterns: string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => true;
  const tests = patterns.map((p) => {
    if (!/[*?]/.test(p)) return (n: string) => n.toLowerCase().includes(p.toLowerCase());
    const re = new RegExp(
      `^${p
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
      'i',
    );
    return (n: string) => re.test(n);
  });
  return (n) => tests.some((t) => t(n));
}

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => (c === r.length - 1 ? 0 : r[c].length))));
  return rows.map((r) =>
    r
      .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c])))
      .join('  ')
      .trimEnd(),
  );
}

function header(l: MpitListing, what: string, n: number, total: number, filtered: boolean): string {
  return `${l.version} (${l.library}): ${filtered ? `${n} of ${total}` : n} ${what}`;
}

export function formatPvars(l: MpitListing, shown: PvarInfo[], filtered: boolean): string[] {
  const out = [header(l, 'performance variables', shown.length, l.pvars.length, filtered)];
  if (l.pvars.length === 0) {
    out.push(`(${l.version} registers none; a program run under mpii also sees the tools' own, e.g. mpii_monitor_*: docs/mpi-t.md)`);
  }
  if (shown.length === 0) return out;
  out.push(
    ...table([
      ['name', 'class', 'type', 'binding', 'verbosity', 'flags', 'description'],
      ...shown.map((v) => [
        v.name,
        v.class,
        v.type,
        v.binding,
        v.verbosity,
        [v.readonly ? 'ro' : 'rw', v.continuous ? 'cont' : '', v.atomic ? 'atomic' : ''].filter(Boolean).join(','),
        v.description,
      ]),
    ]),
  );
  return out;
}

export function formatCvars(l: MpitListing, shown: CvarInfo[], filtered: boolean): string[] {
  const out = [header(l, 'control variables', shown.length, l.cvars.length, filtered)];
  if (shown.length === 0) return out;
  out.push(
    ...table([
      ['name', 'type', 'binding', 'scope', 'verbosity', 'description'],
      ...shown.map((v) => [v.name, v.type, v.binding, v.scope, v.verbosity, v.description]),
    ]),
  );
  return out;
}

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return d[a.length][b.length];
}

export function suggest(name: string, names: string[]): string | undefined {
  const lower = name.toLowerCase();
  const contains = names.filter((n) => n.toLowerCase().includes(lower) || lower.includes(n.toLowerCase()));
  if (contains.length) return contains.sort((a, b) => a.length - b.length)[0];
  let best: string | undefined;
  let bestD = Infinity;
  for (const n of names) {
    const d = distance(lower, n.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = n;
    }
  }
  return best !== undefined && bestD <= Math.max(3, Math.floor(name.length / 3)) ? best : undefined;
}

/** `mpii run --pvar a,b`: every name must be a numeric library variable bound to nothing or to
 *  a communicator (the shim binds MPI_COMM_WORLD). Throws one clear MpiiError otherwise. */
export function checkSampled(l: MpitListing, names: string[]): void {
  for (const name of names) {
    if (!/^[\w.:-]+$/.test(name)) throw new MpiiError(`--pvar '${name}' is not a variable name`, 'give names as `mpii pvars` lists them');
    const v = l.pvars.find((p) => p.name === name);
    if (!v) {
      if (/^mpii_/.test(name)) {
        throw new MpiiError(
          `--pvar ${name}: that is one of mpii's own variables, not the library's`,
          "its tool's results are in the profile already; --pvar samples the MPI library's variables (mpii pvars)",
        );
      }
      if (l.pvars.length === 0) {
        throw new MpiiError(
          `--pvar ${name}: ${l.version} has no MPI_T performance variables at all`,
          'drop --pvar, or run the program with an MPI that has some (mpii pvars --mpi openmpi)',
        );
      }
      const near = suggest(
        name,
        l.pvars.map((p) => p.name),
      );
      throw new MpiiError(
        `--pvar ${name}: ${l.version} has no performance variable of that name`,
        near ? `did you mean ${near}? (mpii pvars lists all ${l.pvars.length})` : `mpii pvars lists all ${l.pvars.length}`,
      );
    }
    if (!SAMPLED_TYPES.has(v.type)) {
      throw new MpiiError(
        `--pvar ${name}: its type is ${v.type}, and mpii samples numbers only (integers, MPI_COUNT, double)`,
        'pick a numeric variable: mpii pvars shows each type',
      );
    }
    if (v.binding !== 'none' && v.binding !== 'MPI_Comm') {
      throw new MpiiError(
        `--pvar ${name}: it is bound to ${v.binding} objects, and mpii binds variables to MPI_COMM_WORLD or to nothing`,
        'pick a variable whose binding is none or MPI_Comm (mpii pvars)',
      );
    }
  }
}

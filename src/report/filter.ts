// The report's row filters, the same for the text, --json, CSV and HTML outputs: `--top N` call
// sites, `--sites LIST` (site numbers as printed, MPI function names, or file:line / file
// names), `--ranks [LIST]` (the per-rank breakdown of each call site, of these ranks only).
// Filters choose rows; every number stays of the whole job (a site's app % is of all ranks'
// time whichever ranks are listed). Here they are parsed; the tools whose rows they choose apply
// them (the profile tool: preload/tools/profile/report/filter.ts).
import { MpiiError } from '../errors.js';

/** Rows of a table of call sites (and of every table of `mpii report A B`) when --top is not
 *  given: the same in the text, --json, --csv and --html (`--top 0`: every row). */
export const DEFAULT_TOP = 15;
/** Rows of the busiest point-to-point pairs without --top (text and HTML; the monitor's `top`). */
export const DEFAULT_PAIRS = 10;

export interface ReportFilter {
  /** call sites per table (after --sites); DEFAULT_TOP when not given, Infinity for every one */
  top?: number;
  /** --sites: which call sites */
  sites?: string[];
  /** --ranks: the per-rank breakdown, of these ranks (true: all ranks) */
  ranks?: number[] | true;
}

/** "0,2-5,9" -> [0, 2, 3, 4, 5, 9] */
export function parseRanks(spec: string): number[] {
  const out = new Set<number>();
  for (const part of spec
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new MpiiError(`--ranks: '${part}' is not a rank or a range of ranks`, 'e.g. --ranks 0,2-5 (or --ranks alone for every rank)');
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a) throw new MpiiError(`--ranks: the range '${part}' runs backwards`, `write it as ${b}-${a}`);
    if (b - a > 1 << 22) throw new MpiiError(`--ranks: the range '${part}' is too large`, 'name fewer ranks');
    for (let r = a; r <= b; r++) out.add(r);
  }
  if (!out.size) throw new MpiiError('--ranks: no rank given', 'e.g. --ranks 0,2-5 (or --ranks alone for every rank)');
  return [...out].sort((x, y) => x - y);
}

/** "1,3-4,MPI_Send,solver.c:42" -> the items */
export function parseSites(spec: string): string[] {
  const items = spec
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (!items.length) throw new MpiiError('--sites: no call site given', 'e.g. --sites 1,3 or --sites MPI_Allreduce or --sites solver.c:42');
  for (const it of items) {
    const m = /^(\d+)-(\d+)$/.exec(it);
    if (m && Number(m[2]) < Number(m[1])) throw new MpiiError(`--sites: the range '${it}' runs backwards`, `write it as ${m[2]}-${m[1]}`);
  }
  return items;
}

/** The filter of `mpii report`'s options. */
export function reportFilter(o: { top?: number; ranks?: string | boolean; sites?: string }): ReportFilter {
  const f: ReportFilter = {};
  if (o.top !== undefined) f.top = o.top === 0 ? Infinity : o.top; // --top 0: every row
  if (o.ranks === true) f.ranks = true;
  else if (typeof o.ranks === 'string') f.ranks = parseRanks(o.ranks);
  if (o.sites !== undefined) f.sites = parseSites(o.sites);
  return f;
}

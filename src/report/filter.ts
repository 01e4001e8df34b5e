// The report's row filters, the same for the text, --json, CSV and HTML outputs: `--top N` call
// sites, `--sites LIST` (site numbers as printed, MPI function names, or file:line / file
// names), `--ranks [LIST]` (the per-rank breakdown of each call site, of these ranks only).
// Filters choose rows; every number stays of the whole job (a site's app % is of all ranks'
// time whichever ranks are listed).
import { MpiiError } from '../errors.js';
import type { ProfileRun, SiteTotal } from '../../preload/tools/profile/report/data.js';

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

/** Does call site `t` match one of the --sites items? Numbers are the sites' numbers as printed
 *  (1 = the most time), names match the MPI function (any case), anything else a frame's
 *  "file:line" or file name or function. */
export function siteMatches(t: SiteTotal, items: string[]): boolean {
  const no = t.site.id + 1;
  for (const it of items) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(it);
    if (range) {
      if (no >= Number(range[1]) && no <= Number(range[2] ?? range[1])) return true;
      continue;
    }
    if (t.site.fn.toLowerCase() === it.toLowerCase()) return true;
    for (const f of t.site.frames) {
      const file = f.file.split('/').pop() ?? '';
      if (file && (it === file || it === `${file}:${f.line}` || it === f.file || it === `${f.file}:${f.line}`)) return true;
      if (f.func && it === f.func) return true;
    }
  }
  return false;
}

/** The sites a table lists: --sites, then the first `top` (most time first). */
export function chooseSites<T extends SiteTotal>(sites: T[], f: ReportFilter, defaultTop = DEFAULT_TOP): T[] {
  const chosen = f.sites ? sites.filter((t) => siteMatches(t, f.sites!)) : sites;
  return chosen.slice(0, f.top ?? defaultTop);
}

/** Indices (into run.ranks) of the ranks the per-rank breakdown lists. */
export function chooseRanks(run: ProfileRun, f: ReportFilter): number[] {
  if (!f.ranks) return [];
  const all = run.ranks.map((_, i) => i);
  if (f.ranks === true) return all;
  const want = new Set(f.ranks);
  return all.filter((i) => want.has(run.ranks[i].rank));
}

/** Checks the filters against the runs: a --ranks or --sites that selects nothing is an error,
 *  not an empty report. */
export function checkFilter(runs: { run: ProfileRun; sites: SiteTotal[] }[], f: ReportFilter): void {
  if (!runs.length) {
    if (f.ranks || f.sites) throw new MpiiError('--ranks and --sites select profile data, and this run has none', 'run the job with --tools profile');
    return;
  }
  if (f.sites && !runs.some(({ sites }) => sites.some((t) => siteMatches(t, f.sites!)))) {
    throw new MpiiError(
      `--sites ${f.sites.join(',')}: no call site matches`,
      'give site numbers as the report prints them, an MPI function (MPI_Send) or a file:line',
      1,
    );
  }
  if (Array.isArray(f.ranks)) {
    const have = new Set(runs.flatMap(({ run }) => run.ranks.map((r) => r.rank)));
    const missing = f.ranks.filter((r) => !have.has(r));
    if (missing.length === f.ranks.length) {
      throw new MpiiError(
        `--ranks ${f.ranks.join(',')}: the profile has none of these ranks`,
        `it has ranks ${[...have].sort((a, b) => a - b).slice(0, 1)[0] ?? 0} to ${Math.max(...have)}`,
        1,
      );
    }
  }
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

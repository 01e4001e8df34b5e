// --sites, --top and --ranks (src/report/filter.ts parses them) applied to the profile tool's call
// sites and ranks, the same in the text, --json, --csv and --html.
import { DEFAULT_TOP, MpiiError, type ReportFilter } from '../../../../src/tool-api/index.js';
import type { ProfileRun, SiteTotal } from './types.js';

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
 *  not an empty report. Without profile data --ranks still asks for monitor's per-rank rows in
 *  --json; --sites selects profile data only. */
export function checkFilter(runs: { run: ProfileRun; sites: SiteTotal[] }[], f: ReportFilter): void {
  if (!runs.length) {
    if (f.sites) throw new MpiiError('--sites selects profile data, and this run has none', 'run the job with --tools profile');
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

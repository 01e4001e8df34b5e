// `mpii report DIR --csv OUT` for the profile tool: OUT/profile_sites.csv (one row per call site,
// mpiP's statistics) and OUT/profile_site_ranks.csv (one row per call site and rank: mpiP's
// "Callsite Time statistics"). Times in seconds, bytes in bytes; --sites, --top and --ranks
// choose the rows as in the other formats.
import { writeFileSync } from 'node:fs';
import { ensureDir, MpiiError, type ReportFilter } from '../../../../src/tool-api/index.js';
import { chooseRanks, chooseSites } from './filter.js';
import { join } from 'node:path';
import type { ProfileRun } from './data.js';
import { siteRankRows, siteRows } from './stats.js';

/** RFC 4180: quoted when it holds a comma, a quote or a line break. */
export const csvField = (v: string | number) => {
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
const csv = (rows: (string | number)[][]) => `${rows.map((r) => r.map(csvField).join(',')).join('\n')}\n`;

export const SITE_COLUMNS = [
  'site',
  'call',
  'location',
  'file',
  'line',
  'function',
  'calls',
  'timed',
  'time_s',
  'min_s',
  'mean_s',
  'max_s',
  'app_percent',
  'mpi_percent',
  'cov',
  'ranks',
  'sent_bytes',
  'sent_percent',
  'recv_bytes',
  'size_min',
  'size_max',
];
export const SITE_RANK_COLUMNS = ['site', 'call', 'rank', 'calls', 'max_s', 'mean_s', 'min_s', 'app_percent', 'mpi_percent', 'sent_bytes', 'recv_bytes'];

export function profileCsv(run: ProfileRun, f: ReportFilter): { sites: string; ranks: string } {
  const sites = chooseSites(siteRows(run), f);
  const rankIdx = Array.isArray(f.ranks) ? chooseRanks(run, f) : run.ranks.map((_, i) => i);
  const s = sites.map((t) => {
    const fr = t.site.frames[0];
    return [
      t.site.id + 1,
      t.site.fn,
      t.site.location,
      fr?.file ?? '',
      fr?.line ?? '',
      fr?.func ?? '',
      t.count,
      t.timed,
      t.time,
      t.tmin,
      t.mean,
      t.tmax,
      t.appPercent,
      t.mpiPercent,
      t.cov,
      t.ranks,
      t.sent,
      t.sentPercent,
      t.recv,
      Math.max(0, t.smin),
      t.smax,
    ];
  });
  const r = sites.flatMap((t) =>
    siteRankRows(run, t.site.id, rankIdx).map((x) => [
      t.site.id + 1,
      t.site.fn,
      x.rank,
      x.count,
      x.tmax,
      x.mean,
      x.tmin,
      x.appPercent,
      x.mpiPercent,
      x.sent,
      x.recv,
    ]),
  );
  return { sites: csv([SITE_COLUMNS, ...s]), ranks: csv([SITE_RANK_COLUMNS, ...r]) };
}

/** Writes the two files of each profile instance (the second instance's as profile<tool>_…). */
export function writeProfileCsv(runs: ProfileRun[], dir: string, f: ReportFilter): string[] {
  ensureDir(dir, '--csv');
  return runs.flatMap((run, i) => {
    const { sites, ranks } = profileCsv(run, f);
    const base = i === 0 ? 'profile' : `profile${run.tool}`;
    const out = [join(dir, `${base}_sites.csv`), join(dir, `${base}_site_ranks.csv`)];
    try {
      writeFileSync(out[0], sites);
      writeFileSync(out[1], ranks);
    } catch (e) {
      throw new MpiiError(`cannot write ${out[0]}: ${(e as Error).message}`, 'choose a writable location');
    }
    return out;
  });
}

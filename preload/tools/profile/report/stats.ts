// mpiP's statistics of the profile tool's data, computed once for every output (text, JSON, CSV,
// HTML): per call site its share of all time (App %, MPI %) and of all bytes sent (Sent %), its
// time per call (min/mean/max); per call site and rank the same, with App % and MPI % of that
// rank's time (mpiP's "Callsite Time statistics").
import { pct, runTotals, siteTotals } from './totals.js';
import type { ProfileRun, SiteStats, SiteTotal } from './types.js';

export interface SiteRow extends SiteTotal {
  /** % of all ranks' application time (recording on), of all MPI time, of all bytes sent */
  appPercent: number;
  mpiPercent: number;
  sentPercent: number;
  /** seconds per call */
  mean: number;
}

export function siteRows(run: ProfileRun): SiteRow[] {
  const total = runTotals(run);
  const sites = siteTotals(run);
  const sent = sites.reduce((a, t) => a + t.sent, 0);
  return sites.map((t) => ({
    ...t,
    appPercent: pct(t.time, total.recorded),
    mpiPercent: pct(t.time, total.mpi),
    sentPercent: pct(t.sent, sent),
    mean: t.count ? t.time / t.count : 0,
  }));
}

export interface SiteRankRow extends SiteStats {
  rank: number;
  /** seconds per call */
  mean: number;
  /** % of this rank's application time (recording on) and of its MPI time */
  appPercent: number;
  mpiPercent: number;
}

/** One call site on the given ranks (indices into run.ranks), in rank order; ranks that never
 *  called it are left out. */
export function siteRankRows(run: ProfileRun, siteId: number, rankIndices: number[]): SiteRankRow[] {
  const per = run.stats[siteId];
  const out: SiteRankRow[] = [];
  for (const ri of rankIndices) {
    const s = per.get(ri);
    if (!s) continue;
    const r = run.ranks[ri];
    out.push({ ...s, rank: r.rank, mean: s.count ? s.time / s.count : 0, appPercent: pct(s.time, r.recorded), mpiPercent: pct(s.time, r.mpi) });
  }
  return out;
}

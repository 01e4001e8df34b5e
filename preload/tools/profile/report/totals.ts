// Sums over ranks of the profile tool's data: per call site (siteTotals), per run (runTotals),
// and the spread of MPI time across ranks (imbalance).
import type { Imbalance, ProfileRun, SiteTotal } from './types.js';

/** the smaller of two message sizes, -1 standing for none */
export const minSize = (x: number, y: number) => (x < 0 ? y : y < 0 ? x : Math.min(x, y));

/** Every call site summed over ranks, most time first. */
export function siteTotals(run: ProfileRun): SiteTotal[] {
  const n = run.ranks.length;
  return run.sites
    .map((site) => {
      // merge()'s sums, in the same order, into plain variables: one object per site, not per rank
      let count = 0,
        timed = 0,
        time = 0,
        tmin = 0,
        tmax = 0,
        sent = 0,
        recv = 0,
        smin = 0,
        smax = 0;
      let first = true;
      let sum = 0;
      let sq = 0;
      let maxRank = -1;
      let maxRankTime = -1;
      run.stats[site.id].forEach((s, ri) => {
        if (first) {
          ({ count, timed, time, tmin, tmax, sent, recv, smin, smax } = s);
          first = false;
        } else {
          count += s.count;
          timed += s.timed;
          time += s.time;
          tmin = Math.min(tmin, s.tmin);
          tmax = Math.max(tmax, s.tmax);
          sent += s.sent;
          recv += s.recv;
          smin = minSize(smin, s.smin);
          smax = Math.max(smax, s.smax);
        }
        sum += s.time;
        sq += s.time * s.time;
        if (s.time > maxRankTime) {
          maxRankTime = s.time;
          maxRank = run.ranks[ri].rank;
        }
      });
      const mean = n ? sum / n : 0;
      const cov = mean > 0 && n > 1 ? Math.sqrt(Math.max(0, sq / n - mean * mean)) / mean : 0;
      return { count, timed, time, tmin, tmax, sent, recv, smin, smax, site, ranks: run.stats[site.id].size, cov, maxRank, maxRankTime };
    })
    .sort((a, b) => b.time - a.time || b.count - a.count || a.site.id - b.site.id);
}

/** MPI time across ranks: the spread an HPC user looks at first. */
export function imbalance(run: ProfileRun): Imbalance {
  const r = run.ranks;
  if (!r.length) return { min: 0, minRank: -1, max: 0, maxRank: -1, mean: 0, ratio: 1 };
  let lo = r[0];
  let hi = r[0];
  let sum = 0;
  for (const x of r) {
    if (x.mpi < lo.mpi) lo = x;
    if (x.mpi > hi.mpi) hi = x;
    sum += x.mpi;
  }
  const mean = sum / r.length;
  return { min: lo.mpi, minRank: lo.rank, max: hi.mpi, maxRank: hi.rank, mean, ratio: mean > 0 ? hi.mpi / mean : 1 };
}

export function runTotals(run: ProfileRun): { app: number; recorded: number; mpi: number } {
  let app = 0;
  let recorded = 0;
  let mpi = 0;
  for (const r of run.ranks) {
    app += r.app;
    recorded += r.recorded;
    mpi += r.mpi;
  }
  return { app, recorded, mpi };
}

export const pct = (part: number, whole: number) => (whole > 0 ? (100 * part) / whole : 0);

// The profile tool's data (layout: preload/tools/profile/profile.h), read out of a run: per rank
// the application and MPI time, per call site and rank the calls, times and bytes. Call sites are
// the same across ranks when they are the same place in the same object file (addresses differ
// between ranks under address-space randomisation); they are named with function and file:line.
import { toolInstances, type Profile, describe, placeKey, Symbolizer, type Location, type ReportFilter } from '../../../../src/tool-api/index.js';
import { chooseRanks, chooseSites, siteMatches } from './filter.js';
import { PlaceTable, RankReader, type RawRank } from './rank.js';
import { siteRankRows, siteRows } from './stats.js';
import { imbalance, minSize, runTotals } from './totals.js';
import type { ProfileRun, Site, SiteStats } from './types.js';

export type { Imbalance, ProfileRun, RankTimes, Site, SiteStats, SiteTotal } from './types.js';
export { imbalance, pct, runTotals, siteTotals } from './totals.js';

export { scaledTicks } from './rank.js';

/** One entry per profile instance in the stack, call sites resolved (addr2line runs here). */
const runsOf = new WeakMap<Profile, ProfileRun[]>(); // the terminal summary, JSON and HTML share one reading
export function profileRuns(p: Profile): ProfileRun[] {
  const known = runsOf.get(p);
  if (known) return known;
  const runs = readRuns(p);
  runsOf.set(p, runs);
  return runs;
}

function readRuns(p: Profile): ProfileRun[] {
  return toolInstances(p, 'profile').map((tool) => {
    const places = new PlaceTable();
    const reader = new RankReader(places);
    const raw = p.ranks
      .map((r) => reader.read(r, tool))
      .filter((x): x is RawRank => !!x)
      .sort((a, b) => a.times.rank - b.times.rank);
    const sym = new Symbolizer();
    for (const rr of raw) for (const row of rr.rows) for (const id of row.places) sym.add(places.list[id]);
    sym.resolve();
    // per place its frame and its line: the key of its source line as a number (one per place)
    const frames: Location[] = [];
    const lines: number[] = [];
    const lineIds = new Map<string, number>();
    for (let id = 0; id < places.list.length; id++) {
      const pl = places.list[id];
      const frame = sym.get(pl);
      const key = frame.file ? `${frame.path}|${frame.file}:${frame.line}|${frame.func}` : placeKey(pl);
      let line = lineIds.get(key);
      if (line === undefined) lineIds.set(key, (line = lineIds.size));
      frames.push(frame);
      lines.push(line);
    }
    // one site per function and source line of each frame: calls the compiler duplicated
    // (unrolled loops, inlining) and ranks' different load addresses fall together; without
    // debug information, per address. Found through a tree of maps: function, then each frame's
    // line (OVERFLOW for the calls beyond the table), no key text per row.
    const OVERFLOW = -1;
    const siteIds = new Map<string, SiteNode>();
    const sites: Site[] = [];
    const stats: Map<number, SiteStats>[] = [];
    raw.forEach((rr, ri) => {
      for (const row of rr.rows) {
        let node = siteIds.get(row.fn);
        if (!node) siteIds.set(row.fn, (node = { id: -1 }));
        if (row.overflow) node = step(node, OVERFLOW);
        else for (const p of row.places) node = step(node, lines[p]);
        let id = node.id;
        if (id < 0) {
          id = node.id = sites.length;
          const frameList = row.places.map((p) => frames[p]);
          sites.push({
            id,
            fn: row.fn,
            frames: frameList,
            overflow: row.overflow,
            location: row.overflow ? '(sites beyond the table)' : frameList.length ? frameList.map(describe).join(' ← ') : '?',
          });
          stats.push(new Map());
        }
        const s = row.stats;
        const prev = stats[id].get(ri);
        stats[id].set(ri, prev ? merge(prev, s) : s); // two addresses on one line: one site
        rr.times.mpi += s.time;
      }
    });
    // number the sites by their total time, as they are listed: site 1 takes the most
    const time = (id: number) => {
      let t = 0;
      for (const s of stats[id].values()) t += s.time;
      return t;
    };
    const order = sites
      .map((x) => ({ id: x.id, t: time(x.id) }))
      .sort((a, b) => b.t - a.t || a.id - b.id)
      .map((x) => x.id);
    const tsc = raw.some((rr) => rr.timer === 1);
    return {
      tool,
      depth: Math.max(1, ...raw.map((rr) => rr.depth)),
      timer: tsc ? 'TSC' : 'CLOCK_MONOTONIC',
      ranks: raw.map((rr) => rr.times),
      sites: order.map((old, id) => ({ ...sites[old], id })),
      stats: order.map((old) => stats[old]),
      problems: sym.problems,
    };
  });
}

/** A node of the sites' tree: the site of the path to it (-1: none), the next frames' lines. */
interface SiteNode {
  id: number;
  next?: Map<number, SiteNode>;
}

function step(node: SiteNode, line: number): SiteNode {
  node.next ??= new Map();
  let n = node.next.get(line);
  if (!n) node.next.set(line, (n = { id: -1 }));
  return n;
}

function merge(a: SiteStats, b: SiteStats): SiteStats {
  return {
    count: a.count + b.count,
    timed: a.timed + b.timed,
    time: a.time + b.time,
    tmin: Math.min(a.tmin, b.tmin),
    tmax: Math.max(a.tmax, b.tmax),
    sent: a.sent + b.sent,
    recv: a.recv + b.recv,
    smin: minSize(a.smin, b.smin),
    smax: Math.max(a.smax, b.smax),
  };
}

/** Every site with every rank (mpiP's statistics named as mpiP names them: appPercent, mpiPercent,
 *  sentPercent, tmin/mean/tmax per call); --sites, --top and --ranks choose the rows as in the text. */
export function profileJson(p: Profile, f: ReportFilter = {}): unknown {
  return profileRuns(p).map((run) => {
    const total = runTotals(run);
    const rankIdx = Array.isArray(f.ranks) ? chooseRanks(run, f) : run.ranks.map((_, i) => i);
    return {
      tool: run.tool,
      depth: run.depth,
      timer: run.timer,
      totals: total,
      imbalance: imbalance(run),
      problems: run.problems,
      ranks: rankIdx.map((i) => run.ranks[i]),
      sitesTotal: f.sites ? siteRows(run).filter((t) => siteMatches(t, f.sites!)).length : siteRows(run).length,
      sites: chooseSites(siteRows(run), f).map((t) => ({
        id: t.site.id,
        call: t.site.fn,
        location: t.site.location,
        overflow: t.site.overflow,
        frames: t.site.frames.map((fr) =>
          fr.python
            ? { language: 'python', function: fr.func, file: fr.file, line: fr.line, cFrame: fr.python.cframe }
            : { function: fr.func, file: fr.file, line: fr.line, object: fr.path, offset: fr.offset },
        ),
        total: {
          count: t.count,
          timed: t.timed,
          time: t.time,
          tmin: t.tmin,
          mean: t.mean,
          tmax: t.tmax,
          sent: t.sent,
          recv: t.recv,
          smin: t.smin,
          smax: t.smax,
          ranks: t.ranks,
          cov: t.cov,
          appPercent: t.appPercent,
          mpiPercent: t.mpiPercent,
          sentPercent: t.sentPercent,
        },
        ranks: siteRankRows(run, t.site.id, rankIdx),
      })),
    };
  });
}

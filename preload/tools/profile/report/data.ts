// The profile tool's data (layout: preload/tools/profile/profile.h), read out of a run: per rank
// the application and MPI time, per call site and rank the calls, times and bytes. Call sites are
// the same across ranks when they are the same place in the same object file (addresses differ
// between ranks under address-space randomisation); they are named with function and file:line.
import { toolInstances, type CounterSection, type Profile, type RankProfile } from '../../../../src/profile-file/read.js';
import { MpiiError } from '../../../../src/errors.js';
import { describe, parseModules, placeKey, placeOf, Symbolizer, type Location, type Place } from '../../../../src/report/addr2line.js';
import { pythonSites } from '../../../../src/report/python-sites.js';
import { chooseRanks, chooseSites, siteMatches, type ReportFilter } from '../../../../src/report/filter.js';
import { siteRankRows, siteRows } from './stats.js';
import { CONSTANTS } from '../../../../src/profile-file/format.gen.js';

export interface SiteStats {
  count: number;
  /** calls that were timed (option sample: all of a site's first 64, then one in N) */
  timed: number;
  /** seconds: total (the timed calls' time scaled by count / timed), shortest and longest timed call */
  time: number;
  tmin: number;
  tmax: number;
  /** bytes sent and received in all calls; smallest and largest per call (sent + received) */
  sent: number;
  recv: number;
  smin: number;
  smax: number;
}

export interface Site {
  id: number;
  fn: string;
  /** the calling address and, with a stack depth above 1, the callers' */
  frames: Location[];
  /** "file.c:42 main" (with its callers, "← file.c:7 solve", at a stack depth above 1) */
  location: string;
  /** calls that found the rank's site table full, filed under their function only */
  overflow: boolean;
}

export interface RankTimes {
  rank: number;
  /** seconds from MPI_Init to MPI_Finalize (to the last MPI call when the rank did not finish) */
  app: number;
  /** seconds with recording on (MPI_Pcontrol) */
  recorded: number;
  /** seconds inside MPI calls while recording */
  mpi: number;
  pcontrol: number;
  finished: boolean;
}

export interface ProfileRun {
  tool: number;
  depth: number;
  timer: string;
  ranks: RankTimes[];
  sites: Site[];
  /** stats[site id]: rank index (into `ranks`) -> statistics */
  stats: Map<number, SiteStats>[];
  /** why some call sites have no file:line */
  problems: string[];
}

const NONE = 2 ** 63; // the C side's UINT64_MAX ("no value yet") reads as 2^64
const ALWAYS_TIMED = CONSTANTS.PF_ALWAYS_TIMED; // a site's first calls, all timed (preload/tools/profile/blocks.yaml)

interface RawRank {
  times: RankTimes;
  rate: number;
  timer: number;
  depth: number;
  rows: { fn: string; places: Place[]; v: Float64Array; overflow: boolean }[];
  /** field name -> index into a row's `v` */
  fields: Map<string, number>;
}

/** The ticks a site spent in MPI: its timed calls' ticks scaled to all its calls. A site's first
 * ALWAYS_TIMED calls are all timed and are taken as they are (the first call may set up a
 * connection and take milliseconds: scaled, it would count many times); the later timed calls
 * stand for all later calls. Without `ticksFirst` (older profiles) all timed calls are scaled. */
export function scaledTicks(count: number, timed: number, ticks: number, ticksFirst?: number): number {
  if (timed <= 0) return 0;
  const first = Math.min(timed, ALWAYS_TIMED);
  if (ticksFirst === undefined || timed <= first) return ticks * (count / timed);
  return ticksFirst + (ticks - ticksFirst) * ((count - first) / (timed - first));
}

function section(r: RankProfile, tool: number, name: string): CounterSection | undefined {
  return r.counters.find((c) => c.tool === tool && c.name === name);
}

function values(c: CounterSection | undefined): Map<string, number> {
  const m = new Map<string, number>();
  c?.forEach((i, v) => { if (c.labels[i]) m.set(c.labels[i], v); });
  return m;
}

function readRank(r: RankProfile, tool: number): RawRank | undefined {
  const clock = values(section(r, tool, 'clock'));
  if (!clock.get('timer')) return undefined; // the tool never started (no MPI_Init)
  const names = new Map<number, string>();
  const moduleLines: string[] = [];
  for (const t of r.texts) {
    if (t.tool !== tool) continue;
    if (t.name === 'module') moduleLines.push(t.text);
    else if (t.name === 'function') {
      const m = /^(\d+) (\S+)$/.exec(t.text);
      if (m) names.set(Number(m[1]), m[2]);
    }
  }
  const fnName = (id: number) => names.get(id) ?? `function #${id}`;
  const modules = parseModules(moduleLines);
  const python = pythonSites(r.texts);
  const g = (k: string) => clock.get(k) ?? 0;
  const timer = g('timer');
  const t0 = g('t0_ticks');
  let rate = 1e9;
  if (timer === 1) {
    const span = g('end_ns') - g('t0_ns');
    const cal = g('t0_ns') - g('cal_ns');
    if (g('end_ticks') && span >= 1e7) rate = ((g('end_ticks') - t0) / span) * 1e9;
    else if (cal > 0) rate = ((t0 - g('cal_ticks')) / cal) * 1e9;
  }
  const end = g('end_ticks') || g('last_ticks') || t0;
  const onSince = g('on_since');
  const times: RankTimes = {
    rank: r.rank, app: Math.max(0, end - t0) / rate, recorded: (g('on_ticks') + (onSince ? Math.max(0, end - onSince) : 0)) / rate,
    mpi: 0, pcontrol: g('pcontrol'), finished: g('end_ticks') > 0,
  };
  const rows: RawRank['rows'] = [];
  const fields = new Map<string, number>();
  const sites = section(r, tool, 'sites');
  if (sites) {
    const labels = sites.labels;
    const depth = labels.filter((l) => l.startsWith('address')).length;
    const len = labels.length;
    if (!depth || labels[0] !== 'function' || len < depth + 2) {
      throw new MpiiError(`rank ${r.rank}: the profile tool's call-site table has an unknown layout`, 'the profile was written by a different mpii version; re-run the job');
    }
    for (let f = depth + 1; f < len; f++) fields.set(labels[f], f - depth - 1);
    for (const a of rowsOf(sites, len).values()) {
      if (!a[0]) continue; // a row a crash left without its key
      const places: Place[] = [];
      for (let k = 0; k < depth; k++) if (k === 0 || a[1 + k]) places.push(placeOf(modules, a[1 + k], python));
      rows.push({ fn: fnName(a[0] - 1), places, v: a.subarray(depth + 1), overflow: false });
    }
  }
  const over = section(r, tool, 'overflow');
  if (over && over.labels.length) {
    const len = over.labels.length;
    if (!fields.size) over.labels.forEach((l, i) => fields.set(l, i));
    for (const [fn, a] of rowsOf(over, len)) if (a[fields.get('count') ?? 0]) rows.push({ fn: fnName(fn), places: [], v: a, overflow: true });
  }
  return { times, rate, timer, depth: g('depth') || 1, rows, fields };
}

/** A table stored as one counters section of `len` values a row: its rows that have a non-zero
 *  value, by row number. */
function rowsOf(section: CounterSection, len: number): Map<number, Float64Array> {
  const rows = new Map<number, Float64Array>();
  section.forEach((i, v) => {
    const row = Math.floor(i / len);
    let a = rows.get(row);
    if (!a) rows.set(row, (a = new Float64Array(len)));
    a[i % len] = v;
  });
  return rows;
}

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
    const raw = p.ranks.map((r) => readRank(r, tool)).filter((x): x is RawRank => !!x).sort((a, b) => a.times.rank - b.times.rank);
    const sym = new Symbolizer();
    for (const rr of raw) for (const row of rr.rows) for (const pl of row.places) sym.add(pl);
    sym.resolve();
    const siteIds = new Map<string, number>();
    const frameKeys = new Map<string, { frame: Location; key: string }>(); // per place: ranks share them
    const frameOf = (pl: Place) => {
      const pk = placeKey(pl);
      let f = frameKeys.get(pk);
      if (!f) {
        const frame = sym.get(pl);
        frameKeys.set(pk, (f = { frame, key: frame.file ? `${frame.path}|${frame.file}:${frame.line}|${frame.func}` : pk }));
      }
      return f;
    };
    const sites: Site[] = [];
    const stats: Map<number, SiteStats>[] = [];
    raw.forEach((rr, ri) => {
      for (const row of rr.rows) {
        // one site per source line: calls the compiler duplicated (unrolled loops, inlining) and
        // ranks' different load addresses fall together; without debug information, per address
        const fk = row.places.map(frameOf);
        const frames = fk.map((f) => f.frame);
        const key = `${row.fn}|${row.overflow ? 'overflow' : fk.map((f) => f.key).join('|')}`;
        let id = siteIds.get(key);
        if (id === undefined) {
          id = sites.length;
          siteIds.set(key, id);
          sites.push({ id, fn: row.fn, frames, overflow: row.overflow,
            location: row.overflow ? '(sites beyond the table)' : frames.length ? frames.map(describe).join(' ← ') : '?' });
          stats.push(new Map());
        }
        const g = (k: string) => { const f = rr.fields.get(k); return f === undefined ? 0 : row.v[f]; };
        const timed = rr.fields.has('timed') ? g('timed') : g('count'); // profiles from before sampling timed every call
        const s: SiteStats = {
          count: g('count'), timed, time: scaledTicks(g('count'), timed, g('ticks'), rr.fields.has('ticks_first') ? g('ticks_first') : undefined) / rr.rate, tmin: g('ticks_min') >= NONE ? 0 : g('ticks_min') / rr.rate, tmax: g('ticks_max') / rr.rate,
          sent: g('bytes_sent'), recv: g('bytes_recv'), smin: g('size_min') >= NONE ? -1 : g('size_min'), smax: g('size_max'),
        };
        const prev = stats[id].get(ri);
        stats[id].set(ri, prev ? merge(prev, s) : s); // two addresses on one line: one site
        rr.times.mpi += s.time;
      }
    });
    // number the sites by their total time, as they are listed: site 1 takes the most
    const time = (id: number) => { let t = 0; for (const s of stats[id].values()) t += s.time; return t; };
    const order = sites.map((x) => ({ id: x.id, t: time(x.id) })).sort((a, b) => b.t - a.t || a.id - b.id).map((x) => x.id);
    const tsc = raw.some((rr) => rr.timer === 1);
    return {
      tool, depth: Math.max(1, ...raw.map((rr) => rr.depth)), timer: tsc ? 'TSC' : 'CLOCK_MONOTONIC',
      ranks: raw.map((rr) => rr.times), sites: order.map((old, id) => ({ ...sites[old], id })), stats: order.map((old) => stats[old]),
      problems: sym.problems,
    };
  });
}

function merge(a: SiteStats, b: SiteStats): SiteStats {
  const min = (x: number, y: number) => (x < 0 ? y : y < 0 ? x : Math.min(x, y));
  return {
    count: a.count + b.count, timed: a.timed + b.timed, time: a.time + b.time, tmin: Math.min(a.tmin, b.tmin), tmax: Math.max(a.tmax, b.tmax),
    sent: a.sent + b.sent, recv: a.recv + b.recv, smin: min(a.smin, b.smin), smax: Math.max(a.smax, b.smax),
  };
}

export interface SiteTotal extends SiteStats {
  site: Site;
  /** ranks that called it */
  ranks: number;
  /** coefficient of variation of the per-rank time over all ranks (0 = perfectly even) */
  cov: number;
  /** the rank that spent the most time there */
  maxRank: number;
  maxRankTime: number;
}

/** Every call site summed over ranks, most time first. */
export function siteTotals(run: ProfileRun): SiteTotal[] {
  const n = run.ranks.length;
  return run.sites.map((site) => {
    const per = run.stats[site.id];
    let t: SiteStats | undefined;
    let sum = 0;
    let sq = 0;
    let maxRank = -1;
    let maxRankTime = -1;
    for (const [ri, s] of per) {
      t = t ? merge(t, s) : { ...s };
      sum += s.time;
      sq += s.time * s.time;
      if (s.time > maxRankTime) {
        maxRankTime = s.time;
        maxRank = run.ranks[ri].rank;
      }
    }
    const mean = n ? sum / n : 0;
    const cov = mean > 0 && n > 1 ? Math.sqrt(Math.max(0, sq / n - mean * mean)) / mean : 0;
    return { ...t!, site, ranks: per.size, cov, maxRank, maxRankTime };
  }).sort((a, b) => b.time - a.time || b.count - a.count || a.site.id - b.site.id);
}

export interface Imbalance { min: number; minRank: number; max: number; maxRank: number; mean: number; ratio: number }

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

/** Every site with every rank (mpiP's statistics named as mpiP names them: appPercent, mpiPercent,
 *  sentPercent, tmin/mean/tmax per call); --sites, --top and --ranks choose the rows as in the text. */
export function profileJson(p: Profile, f: ReportFilter = {}): unknown {
  return profileRuns(p).map((run) => {
    const total = runTotals(run);
    const rankIdx = Array.isArray(f.ranks) ? chooseRanks(run, f) : run.ranks.map((_, i) => i);
    return {
      tool: run.tool, depth: run.depth, timer: run.timer, totals: total, imbalance: imbalance(run), problems: run.problems,
      ranks: rankIdx.map((i) => run.ranks[i]),
      sitesTotal: f.sites ? siteRows(run).filter((t) => siteMatches(t, f.sites!)).length : siteRows(run).length,
      sites: chooseSites(siteRows(run), f).map((t) => ({
        id: t.site.id, call: t.site.fn, location: t.site.location, overflow: t.site.overflow,
        frames: t.site.frames.map((fr) => (fr.python
          ? { language: 'python', function: fr.func, file: fr.file, line: fr.line, cFrame: fr.python.cframe }
          : { function: fr.func, file: fr.file, line: fr.line, object: fr.path, offset: fr.offset })),
        total: { count: t.count, timed: t.timed, time: t.time, tmin: t.tmin, mean: t.mean, tmax: t.tmax, sent: t.sent, recv: t.recv, smin: t.smin, smax: t.smax,
          ranks: t.ranks, cov: t.cov, appPercent: t.appPercent, mpiPercent: t.mpiPercent, sentPercent: t.sentPercent },
        ranks: siteRankRows(run, t.site.id, rankIdx),
      })),
    };
  });
}

export const pct = (part: number, whole: number) => (whole > 0 ? (100 * part) / whole : 0);

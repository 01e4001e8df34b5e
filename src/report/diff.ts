// `mpii report A B`: what changed from run A to run B of the same program (the same or another
// rank count). Call sites are matched by MPI function and location (file:line and function of
// every frame, as the report names them), so a rebuilt program's sites match while its addresses
// moved; ranks by number; communicating pairs by (sender, receiver). Everything is sorted by the
// size of the change, largest first.
import type { Profile } from '../profile-file/read.js';
import { MpiiError } from '../errors.js';
import { imbalance, profileRuns, runTotals, siteTotals, type Imbalance, type ProfileRun } from '../../preload/tools/profile/report/data.js';
import { CLASSES, monitorRuns, totals as monitorTotals, type MonitorRun } from '../../preload/tools/monitor/report/data.js';
import { traceCountTables } from '../../preload/tools/trace-count/report.js';
import { runHeader, type RunHeader } from './header.js';
import { siteMatches, type ReportFilter } from './filter.js';

export interface Side<T> { a: T | null; b: T | null }
const change = (a: number | null, b: number | null) => (b ?? 0) - (a ?? 0);
const relative = (a: number | null, b: number | null) => (a ? (100 * change(a, b)) / a : null);

export interface SiteValues { site: number; count: number; time: number; sent: number; recv: number; ranks: number; tmin: number; tmax: number }
export interface SiteChange extends Side<SiteValues> {
  call: string;
  location: string;
  /** 'both', or only in B ('appeared') or only in A ('vanished') */
  status: 'both' | 'appeared' | 'vanished';
  time: number;
  /** change of time in % of A's (null: not in A) */
  timePercent: number | null;
  count: number;
  bytes: number;
}

export interface RankChange extends Side<number> { rank: number; change: number }
export interface PairChange { from: number; to: number; a: { bytes: number; count: number }; b: { bytes: number; count: number }; bytes: number; count: number }

export interface ProfileDiff {
  totals: Side<{ app: number; recorded: number; mpi: number; mpiPercent: number; ranks: number }>;
  imbalance: Side<Imbalance>;
  /** MPI seconds per rank */
  ranks: RankChange[];
  sites: SiteChange[];
}

export interface MonitorDiff {
  size: Side<number>;
  classes: { class: string; label: string; a: { count: number; bytes: number }; b: { count: number; bytes: number } }[];
  /** point-to-point pairs (bytes and messages sent from `from` to `to`) */
  pairs: PairChange[];
  pairsChanged: number;
}

export interface RunDiff {
  a: { dir: string; ranks: number; complete: boolean; header: RunHeader };
  b: { dir: string; ranks: number; complete: boolean; header: RunHeader };
  notes: string[];
  profile?: ProfileDiff;
  monitor?: MonitorDiff;
  traceCount?: { fn: string; a: number; b: number; change: number }[];
}

const toolNames = (p: Profile) => {
  const ids = new Map<number, string>();
  for (const r of p.ranks) for (const [id, name] of r.tools) ids.set(id, name);
  return [...ids].sort((x, y) => x[0] - y[0]).map(([, n]) => n);
};

/** Two runs are comparable when they ran the same tools (in any order of the stack). */
export function checkComparable(a: Profile, b: Profile): void {
  const ta = toolNames(a);
  const tb = toolNames(b);
  if ([...ta].sort().join(',') !== [...tb].sort().join(',')) {
    throw new MpiiError(`cannot compare ${a.dir} (tools: ${ta.join(',') || 'none'}) with ${b.dir} (tools: ${tb.join(',') || 'none'}): they ran different tools`,
      'compare two runs made with the same --tools');
  }
}

function notesOf(a: Profile, b: Profile, ha: RunHeader, hb: RunHeader): string[] {
  const notes: string[] = [];
  if (ha.program && hb.program) {
    if (ha.program.sha256 !== hb.program.sha256 || ha.program.size !== hb.program.size) {
      notes.push(`the program binary differs: A ${ha.program.path} (${ha.program.size} bytes, sha256 ${ha.program.sha256.slice(0, 12)}…), `
        + `B ${hb.program.path} (${hb.program.size} bytes, sha256 ${hb.program.sha256.slice(0, 12)}…)`);
    }
  } else {
    notes.push(`whether the program binary is the same is not known (${!ha.program ? 'A' : 'B'} was not started by mpii run or its program was not found)`);
  }
  if (ha.command && hb.command && ha.command.slice(1).join('\0') !== hb.command.slice(1).join('\0')) {
    notes.push(`the program's arguments differ: A ${ha.command.slice(1).join(' ') || '(none)'}, B ${hb.command.slice(1).join(' ') || '(none)'}`);
  }
  if (ha.mpi !== hb.mpi) notes.push(`the MPI differs: A ${ha.mpi}, B ${hb.mpi}`);
  if (a.ranks.length !== b.ranks.length) {
    notes.push(`A has ${a.ranks.length} ranks, B ${b.ranks.length}: totals and call sites compare the whole jobs, ranks compare by number`);
  }
  if (!a.complete) notes.push('A is INCOMPLETE (a rank did not finish): its numbers stop at each rank\'s last MPI call');
  if (!b.complete) notes.push('B is INCOMPLETE (a rank did not finish): its numbers stop at each rank\'s last MPI call');
  return notes;
}

function siteKey(call: string, location: string): string {
  return `${call}|${location}`;
}

function profileDiff(ra: ProfileRun, rb: ProfileRun, f: ReportFilter): ProfileDiff {
  const tot = (run: ProfileRun) => {
    const t = runTotals(run);
    return { ...t, mpiPercent: t.recorded > 0 ? (100 * t.mpi) / t.recorded : 0, ranks: run.ranks.length };
  };
  const ranks = new Map<number, RankChange>();
  for (const r of ra.ranks) ranks.set(r.rank, { rank: r.rank, a: r.mpi, b: null, change: 0 });
  for (const r of rb.ranks) {
    const x = ranks.get(r.rank) ?? { rank: r.rank, a: null, b: null, change: 0 };
    x.b = r.mpi;
    ranks.set(r.rank, x);
  }
  for (const x of ranks.values()) x.change = change(x.a, x.b);

  const sites = new Map<string, SiteChange>();
  const values = (t: ReturnType<typeof siteTotals>[0]): SiteValues =>
    ({ site: t.site.id + 1, count: t.count, time: t.time, sent: t.sent, recv: t.recv, ranks: t.ranks, tmin: t.tmin, tmax: t.tmax });
  const keep = (t: ReturnType<typeof siteTotals>[0]) => !f.sites || siteMatches(t, f.sites);
  for (const t of siteTotals(ra)) {
    if (!keep(t)) continue;
    const k = siteKey(t.site.fn, t.site.location);
    const old = sites.get(k);
    if (old?.a) { // two sites of A with one name (two objects, no debug information): add up
      old.a = { ...old.a, count: old.a.count + t.count, time: old.a.time + t.time, sent: old.a.sent + t.sent, recv: old.a.recv + t.recv };
      continue;
    }
    sites.set(k, { call: t.site.fn, location: t.site.location, status: 'vanished', a: values(t), b: null, time: 0, timePercent: null, count: 0, bytes: 0 });
  }
  for (const t of siteTotals(rb)) {
    if (!keep(t)) continue;
    const k = siteKey(t.site.fn, t.site.location);
    const x = sites.get(k) ?? { call: t.site.fn, location: t.site.location, status: 'appeared' as const, a: null, b: null, time: 0, timePercent: null, count: 0, bytes: 0 };
    if (x.b) x.b = { ...x.b, count: x.b.count + t.count, time: x.b.time + t.time, sent: x.b.sent + t.sent, recv: x.b.recv + t.recv };
    else x.b = values(t);
    if (x.a) x.status = 'both';
    sites.set(k, x);
  }
  for (const x of sites.values()) {
    x.time = change(x.a?.time ?? null, x.b?.time ?? null);
    x.timePercent = relative(x.a?.time ?? null, x.b?.time ?? null);
    x.count = change(x.a?.count ?? null, x.b?.count ?? null);
    x.bytes = change(x.a ? x.a.sent + x.a.recv : null, x.b ? x.b.sent + x.b.recv : null);
  }
  const bySize = (x: SiteChange, y: SiteChange) => Math.abs(y.time) - Math.abs(x.time) || Math.abs(y.count) - Math.abs(x.count)
    || Math.abs(y.bytes) - Math.abs(x.bytes) || x.call.localeCompare(y.call) || x.location.localeCompare(y.location);
  return {
    totals: { a: tot(ra), b: tot(rb) },
    imbalance: { a: imbalance(ra), b: imbalance(rb) },
    ranks: [...ranks.values()].sort((x, y) => Math.abs(y.change) - Math.abs(x.change) || x.rank - y.rank),
    sites: [...sites.values()].sort(bySize),
  };
}

function monitorDiff(ma: MonitorRun, mb: MonitorRun): MonitorDiff {
  const ta = monitorTotals(ma);
  const tb = monitorTotals(mb);
  const pairs = new Map<string, PairChange>();
  const zero = () => ({ bytes: 0, count: 0 });
  const add = (run: MonitorRun, side: 'a' | 'b') => {
    for (const r of run.ranks) {
      for (const [peer, s] of r.peers) {
        if (!s.p2p.count) continue;
        const k = `${r.rank}>${peer}`;
        const x = pairs.get(k) ?? { from: r.rank, to: peer, a: zero(), b: zero(), bytes: 0, count: 0 };
        x[side] = { bytes: s.p2p.bytes, count: s.p2p.count };
        pairs.set(k, x);
      }
    }
  };
  add(ma, 'a');
  add(mb, 'b');
  const list = [...pairs.values()];
  for (const x of list) {
    x.bytes = x.b.bytes - x.a.bytes;
    x.count = x.b.count - x.a.count;
  }
  const changed = list.filter((x) => x.bytes !== 0 || x.count !== 0)
    .sort((x, y) => Math.abs(y.bytes) - Math.abs(x.bytes) || Math.abs(y.count) - Math.abs(x.count) || x.from - y.from || x.to - y.to);
  return {
    size: { a: ma.size, b: mb.size },
    classes: CLASSES.map((c) => ({ class: c.name, label: c.label, a: ta[c.name], b: tb[c.name] })),
    pairs: changed,
    pairsChanged: changed.length,
  };
}

export function diffRuns(a: Profile, b: Profile, f: ReportFilter = {}): RunDiff {
  checkComparable(a, b);
  const ha = runHeader(a);
  const hb = runHeader(b);
  const d: RunDiff = {
    a: { dir: a.dir, ranks: a.ranks.length, complete: a.complete, header: ha },
    b: { dir: b.dir, ranks: b.ranks.length, complete: b.complete, header: hb },
    notes: notesOf(a, b, ha, hb),
  };
  const pa = profileRuns(a)[0];
  const pb = profileRuns(b)[0];
  if (pa && pb) d.profile = profileDiff(pa, pb, f);
  const ma = monitorRuns(a)[0];
  const mb = monitorRuns(b)[0];
  if (ma && mb) d.monitor = monitorDiff(ma, mb);
  const ca = traceCountTables(a)[0];
  const cb = traceCountTables(b)[0];
  if (ca && cb) {
    const m = new Map<string, { fn: string; a: number; b: number; change: number }>();
    for (const r of ca.rows) m.set(r.fn, { fn: r.fn, a: Number(r.total), b: 0, change: 0 });
    for (const r of cb.rows) m.set(r.fn, { ...(m.get(r.fn) ?? { fn: r.fn, a: 0, b: 0, change: 0 }), b: Number(r.total) });
    d.traceCount = [...m.values()].map((x) => ({ ...x, change: x.b - x.a })).filter((x) => x.change !== 0)
      .sort((x, y) => Math.abs(y.change) - Math.abs(x.change) || x.fn.localeCompare(y.fn));
  }
  return d;
}

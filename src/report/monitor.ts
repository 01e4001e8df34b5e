// The monitor tool's data (preload/tools/monitor/monitor.h), read out of a profile: per rank,
// per peer (MPI_COMM_WORLD ranks) point-to-point, one-sided and collective counts, histograms,
// and the per-communicator O2A/A2O/A2A records.
import type { Profile, RankProfile } from '../profile/read.js';
import { MpiiError } from '../errors.js';

export const HIST_BINS = 66;
const ROW = 8 + HIST_BINS; // monitor.h: MON_ROW

export type ClassName = 'p2p' | 'osc_sent' | 'osc_recv' | 'coll';
export const CLASSES: { name: ClassName; field: number; label: string; letter: string }[] = [
  { name: 'p2p', field: 0, label: 'point-to-point', letter: 'E' },
  { name: 'osc_sent', field: 2, label: 'one-sided written', letter: 'S' },
  { name: 'osc_recv', field: 4, label: 'one-sided read', letter: 'R' },
  { name: 'coll', field: 6, label: 'collective', letter: 'C' },
];

export interface Flow { count: number; bytes: number }
export interface PeerStats { p2p: Flow; osc_sent: Flow; osc_recv: Flow; coll: Flow; hist: number[] }
export interface CommRecord { name: string; procs: string; o2a: Flow; a2o: Flow; a2a: Flow }
/** table_bytes: the per-peer table's size; resident_bytes: the part that became memory. */
export interface MemoryUse { table_bytes: number; resident_bytes: number }
export interface RankMonitor { rank: number; peers: Map<number, PeerStats>; comms: CommRecord[]; memory?: MemoryUse }
export interface MonitorRun { tool: number; size: number; ranks: RankMonitor[] }

const emptyPeer = (): PeerStats => ({
  p2p: { count: 0, bytes: 0 }, osc_sent: { count: 0, bytes: 0 }, osc_recv: { count: 0, bytes: 0 },
  coll: { count: 0, bytes: 0 }, hist: new Array<number>(HIST_BINS).fill(0),
});

function rankMonitor(r: RankProfile, tool: number, size: number): RankMonitor {
  const peers = new Map<number, PeerStats>();
  const comms: CommRecord[] = [];
  for (const c of r.counters) {
    if (c.tool !== tool) continue;
    if (c.name === 'peers') {
      if (c.length !== size * ROW) {
        throw new MpiiError(`rank ${r.rank}: monitor table has ${c.length} entries, expected ${size} peers × ${ROW}`,
          'the profile was written by a different mpii version; re-run the job');
      }
      for (const [i, v] of c.nonzero) {
        const peer = Math.floor(i / ROW);
        const f = i % ROW;
        const s = peers.get(peer) ?? emptyPeer();
        peers.set(peer, s);
        if (f >= 8) s.hist[f - 8] = Number(v);
        else {
          const cls = CLASSES[f >> 1];
          s[cls.name][f & 1 ? 'bytes' : 'count'] = Number(v);
        }
      }
    } else if (c.name === 'comm') {
      const v = (k: number) => Number(c.nonzero.get(k) ?? 0n);
      comms.push({ name: c.labels[0] ?? '', procs: c.labels[1] ?? '',
        o2a: { bytes: v(0), count: v(1) }, a2o: { bytes: v(2), count: v(3) }, a2a: { bytes: v(4), count: v(5) } });
    }
  }
  let memory: MemoryUse | undefined;
  for (const t of r.texts) {
    if (t.tool !== tool) continue;
    // names given with MPI_Comm_set_name after the record was made
    if (t.name === 'comm-names') {
      for (const [k, name] of Object.entries(JSON.parse(t.text) as Record<string, string>)) {
        if (comms[Number(k)]) comms[Number(k)].name = name;
      }
    } else if (t.name === 'memory') memory = JSON.parse(t.text) as MemoryUse;
  }
  return { rank: r.rank, peers, comms, memory };
}

/** One entry per monitor instance in the stack. */
export function monitorRuns(p: Profile): MonitorRun[] {
  const ids = new Set<number>();
  for (const r of p.ranks) for (const [id, name] of r.tools) if (name === 'monitor') ids.add(id);
  const size = Math.max(p.size, ...p.ranks.map((r) => r.size));
  const ranks = p.ranks.filter((r) => r.size > 0);
  return [...ids].sort((a, b) => a - b).map((tool) => ({ tool, size, ranks: ranks.map((r) => rankMonitor(r, tool, r.size)) }));
}

export function totals(run: MonitorRun): Record<ClassName, Flow> {
  const t = Object.fromEntries(CLASSES.map((c) => [c.name, { count: 0, bytes: 0 }])) as Record<ClassName, Flow>;
  for (const r of run.ranks) {
    for (const s of r.peers.values()) {
      for (const c of CLASSES) {
        t[c.name].count += s[c.name].count;
        t[c.name].bytes += s[c.name].bytes;
      }
    }
  }
  return t;
}

/** Communicators merged over ranks (same name and members), with their summed totals. */
export function communicators(run: MonitorRun): (CommRecord & { ranks: number })[] {
  const byKey = new Map<string, CommRecord & { ranks: number }>();
  for (const r of run.ranks) {
    for (const c of r.comms) {
      const key = `${c.name}\n${c.procs}`;
      const m = byKey.get(key) ?? { name: c.name, procs: c.procs, o2a: { count: 0, bytes: 0 }, a2o: { count: 0, bytes: 0 },
        a2a: { count: 0, bytes: 0 }, ranks: 0 };
      byKey.set(key, m);
      m.ranks++;
      for (const k of ['o2a', 'a2o', 'a2a'] as const) {
        m[k].count += c[k].count;
        m[k].bytes += c[k].bytes;
      }
    }
  }
  return [...byKey.values()];
}

/** Rank × peer matrix of one class as recorded (row = the rank whose counters they are), or of
 *  all classes summed as data flow ('all': row = sender, so one-sided reads are transposed). */
export function matrix(run: MonitorRun, cls: ClassName | 'all', what: 'bytes' | 'count'): number[][] {
  const m = Array.from({ length: run.size }, () => new Array<number>(run.size).fill(0));
  for (const r of run.ranks) {
    for (const [peer, s] of r.peers) {
      if (peer >= run.size) continue;
      for (const c of CLASSES) {
        if (cls !== 'all' && cls !== c.name) continue;
        if (cls === 'all' && c.name === 'osc_recv') m[peer][r.rank] += s[c.name][what];
        else m[r.rank][peer] += s[c.name][what];
      }
    }
  }
  return m;
}

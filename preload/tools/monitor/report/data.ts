// The monitor tool's data (preload/tools/monitor/comm_cache.h), read out of a profile: per rank,
// per peer (MPI_COMM_WORLD ranks) point-to-point, one-sided and collective counts, histograms,
// and the per-communicator O2A/A2O/A2A records.
import type { CounterSection, Profile, RankProfile } from '../../../../src/profile-file/read.js';
import { MpiiError } from '../../../../src/errors.js';
import { BLOCKS } from '../../../../src/profile-file/format.gen.js';

const PEERS = BLOCKS.monitor.peers.row; // the declared layout (preload/tools/monitor/blocks.yaml)
export const HIST_BINS = PEERS.words.histogram;
const ROW = PEERS.size;
const HIST = PEERS.index.histogram; // the fields before it: count and bytes of each class
const COMM = BLOCKS.monitor.comm.row;

export type ClassName = 'p2p' | 'osc_sent' | 'osc_recv' | 'coll';
export const CLASSES: { name: ClassName; field: number; label: string; letter: string }[] = [
  { name: 'p2p', field: PEERS.index.pml_count, label: 'point-to-point', letter: 'E' },
  { name: 'osc_sent', field: PEERS.index.osc_sent_count, label: 'one-sided written', letter: 'S' },
  { name: 'osc_recv', field: PEERS.index.osc_recv_count, label: 'one-sided read', letter: 'R' },
  { name: 'coll', field: PEERS.index.coll_count, label: 'collective', letter: 'C' },
];

export interface Flow { count: number; bytes: number }
export interface PeerStats { p2p: Flow; osc_sent: Flow; osc_recv: Flow; coll: Flow; hist: number[] }
export interface CommRecord { name: string; procs: string; o2a: Flow; a2o: Flow; a2a: Flow }
/** table_bytes: the per-peer table's size; resident_bytes: the part that became memory. */
export interface MemoryUse { table_bytes: number; resident_bytes: number }
/** The peers of one rank column-wise: ids ascending, 8 values per peer (the count and bytes of
 *  each class, in CLASSES order). What the report's big loops read: no object per peer. */
export interface PeerFlows { ids: Int32Array; values: Float64Array }
export interface RankMonitor {
  rank: number;
  /** per peer, with the size histogram (made on first use from `flows` where there is one) */
  peers: Map<number, PeerStats>;
  comms: CommRecord[];
  memory?: MemoryUse;
  flows?: PeerFlows;
}
export interface MonitorRun { tool: number; size: number; ranks: RankMonitor[] }

const emptyPeer = (): PeerStats => ({
  p2p: { count: 0, bytes: 0 }, osc_sent: { count: 0, bytes: 0 }, osc_recv: { count: 0, bytes: 0 },
  coll: { count: 0, bytes: 0 }, hist: new Array<number>(HIST_BINS).fill(0),
});

/** Peers of one rank, read from its "peers" section in one pass; the per-peer objects (with
 *  their 66-bin histograms) only when someone asks for `peers`. */
class RankData implements RankMonitor {
  private peerMap?: Map<number, PeerStats>;
  flows: PeerFlows;
  constructor(public rank: number, private section: CounterSection | undefined, public comms: CommRecord[], public memory?: MemoryUse) {
    this.flows = section ? readFlows(section) : { ids: new Int32Array(0), values: new Float64Array(0) };
  }

  get peers(): Map<number, PeerStats> {
    if (this.peerMap) return this.peerMap;
    const peers = new Map<number, PeerStats>();
    this.section?.forEach((i, v) => {
      const peer = Math.floor(i / ROW);
      const f = i % ROW;
      let s = peers.get(peer);
      if (!s) peers.set(peer, (s = emptyPeer()));
      if (f >= HIST) s.hist[f - HIST] = v;
      else s[CLASSES[f >> 1].name][f & 1 ? 'bytes' : 'count'] = v;
    });
    this.peerMap = new Map([...peers.entries()].sort((a, b) => a[0] - b[0]));
    return this.peerMap;
  }
}

function readFlows(c: CounterSection): PeerFlows {
  const size = Math.ceil(c.length / ROW);
  // plain loops over the stored words (a big job has millions of entries); mpii stores them in
  // ascending order, so a peer's entries come together: one pass, integer arithmetic while the
  // indices fit in 31 bits (any table below 29 million peers)
  const { sparse, words: w, entries } = c.words();
  if (!sparse || c.length >= 2 ** 31) return readFlowsUnordered(c, size);
  const cap = Math.min(size, entries);
  let ids = new Int32Array(cap);
  let values = new Float64Array(cap * 8);
  let n = 0;
  let last = -1;
  for (let k = 0, q = 0; k < entries; k++, q += 4) {
    const i = w[q] | 0;
    const peer = (i / ROW) | 0;
    const f = i - peer * ROW;
    if (peer !== last) {
      if (peer < last || peer >= size || w[q + 1] !== 0) return readFlowsUnordered(c, size); // not mpii's order: the slow way
      ids[n++] = peer;
      last = peer;
    }
    if (f < HIST) values[(n - 1) * 8 + f] = w[q + 3] === 0 ? w[q + 2] : w[q + 3] * 4294967296 + w[q + 2];
  }
  if (n < cap) {
    ids = ids.slice(0, n);
    values = values.slice(0, n * 8);
  }
  return { ids, values };
}

function readFlowsUnordered(c: CounterSection, size: number): PeerFlows {
  const byPeer = new Map<number, Float64Array>();
  c.forEach((i, v) => {
    const peer = Math.floor(i / ROW);
    const f = i % ROW;
    if (peer >= size || f >= HIST) return;
    let a = byPeer.get(peer);
    if (!a) byPeer.set(peer, (a = new Float64Array(8)));
    a[f] = v;
  });
  const ids = Int32Array.from([...byPeer.keys()].sort((a, b) => a - b));
  const values = new Float64Array(ids.length * 8);
  ids.forEach((p, k) => values.set(byPeer.get(p)!, k * 8));
  return { ids, values };
}

/** `flows` of a rank made elsewhere (tests build RankMonitor objects by hand). */
const derived = new WeakMap<RankMonitor, PeerFlows>();
export function flowsOf(r: RankMonitor): PeerFlows {
  if (r.flows) return r.flows;
  let f = derived.get(r);
  if (!f) {
    const peers = [...r.peers.entries()].sort((a, b) => a[0] - b[0]);
    f = { ids: Int32Array.from(peers.map(([p]) => p)), values: new Float64Array(peers.length * 8) };
    peers.forEach(([, s], k) => CLASSES.forEach((c, j) => {
      f!.values[k * 8 + 2 * j] = s[c.name].count;
      f!.values[k * 8 + 2 * j + 1] = s[c.name].bytes;
    }));
    derived.set(r, f);
  }
  return f;
}

function rankMonitor(r: RankProfile, tool: number, size: number): RankMonitor {
  const comms: CommRecord[] = [];
  let section: CounterSection | undefined;
  for (const c of r.counters) {
    if (c.tool !== tool) continue;
    if (c.name === 'peers') {
      if (c.length !== size * ROW) {
        throw new MpiiError(`rank ${r.rank}: monitor table has ${c.length} entries, expected ${size} peers × ${ROW}`,
          'the profile was written by a different mpii version; re-run the job');
      }
      section = c;
    } else if (c.name === 'comm') {
      const v = new Array<number>(COMM.size).fill(0);
      c.forEach((k, x) => { if (k < COMM.size) v[k] = x; });
      const i = COMM.index;
      comms.push({ name: c.labels[0] ?? '', procs: c.labels[1] ?? '', o2a: { bytes: v[i.o2a_bytes], count: v[i.o2a_count] },
        a2o: { bytes: v[i.a2o_bytes], count: v[i.a2o_count] }, a2a: { bytes: v[i.a2a_bytes], count: v[i.a2a_count] } });
    }
  }
  let memory: MemoryUse | undefined;
  for (const t of r.texts) {
    if (t.tool !== tool) continue;
    // names given with MPI_Comm_set_name after the record was made
    if (t.name === 'comm-names') {
      for (const [k, name] of Object.entries(parseJson<Record<string, string>>(t.text, r.rank, t.name))) {
        if (comms[Number(k)]) comms[Number(k)].name = name;
      }
    } else if (t.name === 'memory') memory = parseJson<MemoryUse>(t.text, r.rank, t.name);
  }
  return new RankData(r.rank, section, comms, memory);
}

function parseJson<T>(text: string, rank: number, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new MpiiError(`rank ${rank}: the monitor's '${what}' block is corrupt`, 'the profile file is damaged; re-run the job');
  }
}

/** One entry per monitor instance in the stack. */
const runsOf = new WeakMap<Profile, MonitorRun[]>(); // the terminal summary, JSON and HTML share one reading
export function monitorRuns(p: Profile): MonitorRun[] {
  const known = runsOf.get(p);
  if (known) return known;
  const runs = readRuns(p);
  runsOf.set(p, runs);
  return runs;
}

function readRuns(p: Profile): MonitorRun[] {
  const ids = new Set<number>();
  for (const r of p.ranks) for (const [id, name] of r.tools) if (name === 'monitor') ids.add(id);
  const size = Math.max(p.size, ...p.ranks.map((r) => r.size));
  const ranks = p.ranks.filter((r) => r.size > 0);
  return [...ids].sort((a, b) => a - b).map((tool) => ({ tool, size, ranks: ranks.map((r) => rankMonitor(r, tool, r.size)) }));
}

const totalsOf = new WeakMap<MonitorRun, Record<ClassName, Flow>>();
export function totals(run: MonitorRun): Record<ClassName, Flow> {
  const known = totalsOf.get(run);
  if (known) return structuredClone(known);
  const t = Object.fromEntries(CLASSES.map((c) => [c.name, { count: 0, bytes: 0 }])) as Record<ClassName, Flow>;
  const sum = new Float64Array(8);
  for (const r of run.ranks) {
    const { values } = flowsOf(r);
    for (let k = 0; k < values.length; k++) sum[k & 7] += values[k];
  }
  CLASSES.forEach((c, j) => { t[c.name] = { count: sum[2 * j], bytes: sum[2 * j + 1] }; });
  totalsOf.set(run, t);
  return structuredClone(t);
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

/** Calls fn(row, column, value) for every peer entry of one class as recorded (row = the rank
 *  whose counters they are), or of all classes summed as data flow ('all': row = sender, so
 *  one-sided reads are transposed). */
export function eachCell(run: MonitorRun, cls: ClassName | 'all', what: 'bytes' | 'count', fn: (row: number, col: number, v: number) => void): void {
  const off = what === 'bytes' ? 1 : 0;
  const classes = CLASSES.map((c, j) => ({ j, on: cls === 'all' || cls === c.name, flip: cls === 'all' && c.name === 'osc_recv' }));
  for (const r of run.ranks) {
    const { ids, values } = flowsOf(r);
    for (let k = 0; k < ids.length; k++) {
      const peer = ids[k];
      if (peer >= run.size) continue;
      for (const c of classes) {
        if (!c.on) continue;
        const v = values[k * 8 + 2 * c.j + off];
        if (v === 0) continue;
        if (c.flip) fn(peer, r.rank, v);
        else fn(r.rank, peer, v);
      }
    }
  }
}

/** Rank × peer matrix (see eachCell), dense. */
export function matrix(run: MonitorRun, cls: ClassName | 'all', what: 'bytes' | 'count'): number[][] {
  const m = Array.from({ length: run.size }, () => new Array<number>(run.size).fill(0));
  eachCell(run, cls, what, (i, j, v) => { m[i][j] += v; });
  return m;
}

/** The matrix summed into blocks of `block` ranks per side (at most `cells` blocks per side):
 *  what a terminal or a page can show of a big job, made without the dense matrix. */
export interface Binned { n: number; block: number; side: number; cells: Float64Array }
export function binnedMatrix(run: MonitorRun, cls: ClassName | 'all', what: 'bytes' | 'count', cells: number): Binned {
  const n = run.size;
  const block = Math.max(1, Math.ceil(n / Math.max(1, cells)));
  const side = Math.ceil(n / block);
  const m = new Float64Array(side * side);
  const off = what === 'bytes' ? 1 : 0;
  const recv = CLASSES.findIndex((c) => c.name === 'osc_recv');
  const on = CLASSES.map((c) => cls === 'all' || cls === c.name);
  for (const r of run.ranks) { // as eachCell, in plain loops: a big job has millions of cells
    const { ids, values } = flowsOf(r);
    const row = Math.floor(r.rank / block);
    for (let k = 0; k < ids.length; k++) {
      if (ids[k] >= n) continue;
      const col = Math.floor(ids[k] / block);
      for (let j = 0; j < 4; j++) {
        const v = values[k * 8 + 2 * j + off];
        if (v === 0 || !on[j]) continue;
        if (cls === 'all' && j === recv) m[col * side + row] += v;
        else m[row * side + col] += v;
      }
    }
  }
  return { n, block, side, cells: m };
}

/** Every class (and 'all') binned at once, counts and bytes: one pass over the peers. */
export function binnedMatrices(run: MonitorRun, cells: number): { n: number; block: number; side: number; cells: Record<ClassName | 'all', { bytes: Float64Array; count: Float64Array }> } {
  const n = run.size;
  const block = Math.max(1, Math.ceil(n / Math.max(1, cells)));
  const side = Math.ceil(n / block);
  const make = () => ({ bytes: new Float64Array(side * side), count: new Float64Array(side * side) });
  const out = { all: make(), p2p: make(), osc_sent: make(), osc_recv: make(), coll: make() };
  const per = CLASSES.map((c) => out[c.name]);
  const recvIndex = CLASSES.findIndex((c) => c.name === 'osc_recv');
  for (const r of run.ranks) {
    const { ids, values } = flowsOf(r);
    const row = Math.floor(r.rank / block);
    for (let k = 0; k < ids.length; k++) {
      if (ids[k] >= n) continue;
      const col = Math.floor(ids[k] / block);
      const mine = row * side + col;
      const flipped = col * side + row;
      for (let j = 0; j < 4; j++) {
        const count = values[k * 8 + 2 * j];
        const bytes = values[k * 8 + 2 * j + 1];
        if (count === 0 && bytes === 0) continue;
        per[j].count[mine] += count;
        per[j].bytes[mine] += bytes;
        const at = j === recvIndex ? flipped : mine; // data flow: a read goes from the target to the reader
        out.all.count[at] += count;
        out.all.bytes[at] += bytes;
      }
    }
  }
  return { n, block, side, cells: out };
}

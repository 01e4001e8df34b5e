// The monitor tool's data (preload/tools/monitor/comm_cache.h), read out of a profile: per rank,
// per peer (MPI_COMM_WORLD ranks) point-to-point, one-sided and collective counts, histograms,
// and the per-communicator O2A/A2O/A2A records.
import { toolInstances, type CounterSection, type Profile, type RankProfile, MpiiError, BLOCKS, Float64Pool } from '../../../../src/tool-api/index.js';
import { MemberLists, parseMembers } from './members.js';

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

export interface Flow {
  count: number;
  bytes: number;
}
export interface PeerStats {
  p2p: Flow;
  osc_sent: Flow;
  osc_recv: Flow;
  coll: Flow;
  hist: number[];
}
export interface CommRecord {
  name: string;
  /** the members' world ranks joined by commas ('' when no rank's file has the list) */
  procs: string;
  o2a: Flow;
  a2o: Flow;
  a2a: Flow;
  /** collectives counted on the record, not per peer (a communicator past the option coll-peers;
   *  absent in files before format 3): what each other member got, each member of a higher rank
   *  (scans), and the messages of calls whose bytes differ by peer, in no peer's row */
  each?: Flow;
  higher?: Flow;
  apart?: Flow;
  /** the members (world ranks, communicator order) where `each` or `higher` is to be spread */
  members?: Int32Array;
}

/** A rank's collectives counted on its records, spread back over the members: `each` to every
 *  member but itself (at `me` in `members`), `higher` to those after it. */
export interface Spread {
  members: Int32Array;
  me: number;
  each: Flow;
  higher: Flow;
}
/** table_bytes: the per-peer table's size; resident_bytes: the part that became memory. */
export interface MemoryUse {
  table_bytes: number;
  resident_bytes: number;
}
/** The peers of one rank column-wise: ids ascending, 8 values per peer (the count and bytes of
 *  each class, in CLASSES order). What the report's big loops read: no object per peer. */
export interface PeerFlows {
  ids: Int32Array;
  values: Float64Array;
}
export interface RankMonitor {
  rank: number;
  /** per peer, with the size histogram (made on first use from `flows` where there is one) */
  peers: Map<number, PeerStats>;
  comms: CommRecord[];
  memory?: MemoryUse;
  flows?: PeerFlows;
}
export interface MonitorRun {
  tool: number;
  size: number;
  ranks: RankMonitor[];
}

const emptyPeer = (): PeerStats => ({
  p2p: { count: 0, bytes: 0 },
  osc_sent: { count: 0, bytes: 0 },
  osc_recv: { count: 0, bytes: 0 },
  coll: { count: 0, bytes: 0 },
  hist: new Array<number>(HIST_BINS).fill(0),
});

/** Peers of one rank, read from its "peers" section where it is (the file's bytes) each time a
 *  scan asks (flowsOf: into one scratch table for all ranks, so no memory per rank beyond the
 *  file's); the per-peer objects (with their 66-bin histograms) only when someone asks for `peers`. */
export class RankData implements RankMonitor {
  private peerMap?: Map<number, PeerStats>;
  /** the flows when the section is not in mpii's order (then made once and kept) */
  flows?: PeerFlows;
  /** the sum over peers of each of the 8 flow values, from the first scan */
  sums?: Float64Array;
  /** what monitorDigest took from the section while the file was read */
  digest?: Digest;
  /** its collectives counted per communicator, to spread over the members */
  spreads: Spread[];
  constructor(
    public rank: number,
    private section: CounterSection | undefined,
    public comms: CommRecord[],
    public memory?: MemoryUse,
  ) {
    this.digest = section && digests.get(section);
    this.sums = this.digest?.sums;
    this.spreads = spreadsOf(rank, comms);
  }

  /** The peers column-wise (with the collectives counted per communicator spread over their
   *  members): views of a scratch table, valid until the next rank's scan. */
  scan(): PeerFlows {
    const base = this.scanRows();
    return this.spreads.length ? withSpreads(base, this.spreads) : base;
  }

  /** The peers' rows as stored (`sums` is theirs: the spreads are added where totals are made). */
  private scanRows(): PeerFlows {
    if (this.flows) return this.flows;
    const f = this.section ? readFlows(this.section) : { ids: new Int32Array(0), values: new Float64Array(0) };
    if (f.ids.buffer !== scratch.ids.buffer) this.flows = f; // made on its own: kept
    if (!this.sums) {
      const sum = new Float64Array(8);
      addColumnSums(f.values, sum);
      this.sums = sum;
    }
    return f;
  }

  get peers(): Map<number, PeerStats> {
    if (this.peerMap) return this.peerMap;
    this.peerMap = this.readPeers();
    return this.peerMap;
  }

  /** Adds its peers' size histograms to `sum` (false when its peers are not read from a section). */
  addHistograms(sum: Float64Array): boolean {
    if (this.peerMap || !this.section) return false;
    this.section.forEach((i, v) => {
      const f = i % ROW;
      if (f >= HIST && v !== 0) sum[f - HIST] += v;
    });
    return true;
  }

  /** `peers` made again, not kept (--json writes a rank's and forgets them) */
  readPeers(): Map<number, PeerStats> {
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
    eachSpread(this.spreads, (peer, count, bytes) => {
      let s = peers.get(peer);
      if (!s) peers.set(peer, (s = emptyPeer()));
      s.coll.count += count;
      s.coll.bytes += bytes;
    });
    return new Map([...peers.entries()].sort((a, b) => a[0] - b[0]));
  }
}

/** The spreads of a rank's records (the members resolved by readRuns). */
function spreadsOf(rank: number, comms: CommRecord[]): Spread[] {
  const out: Spread[] = [];
  for (const c of comms) {
    const each = c.each ?? { count: 0, bytes: 0 };
    const higher = c.higher ?? { count: 0, bytes: 0 };
    if ((each.count === 0 && higher.count === 0) || !c.members) continue;
    out.push({ members: c.members, me: c.members.indexOf(rank), each, higher });
  }
  return out;
}

/** Calls fn(peer, messages, bytes) for every member a rank's spreads reach (a peer may come more than once). */
export function eachSpread(spreads: Spread[], fn: (peer: number, count: number, bytes: number) => void): void {
  for (const s of spreads) {
    const { members, me, each, higher } = s;
    for (let k = 0; k < members.length; k++) {
      if (k === me || members[k] < 0) continue;
      if (k > me && me >= 0) fn(members[k], each.count + higher.count, each.bytes + higher.bytes);
      else fn(members[k], each.count, each.bytes);
    }
  }
}

/** What a rank's spreads add to the totals: [messages, bytes]. */
export function spreadTotals(spreads: Spread[]): [number, number] {
  let count = 0;
  let bytes = 0;
  for (const { members, me, each, higher } of spreads) {
    let others = 0;
    for (let k = 0; k < members.length; k++) if (k !== me && members[k] >= 0) others++;
    const after = me >= 0 ? members.length - me - 1 : 0;
    count += each.count * others + higher.count * after;
    bytes += each.bytes * others + higher.bytes * after;
  }
  return [count, bytes];
}

/** The rows with the spreads added to their collective fields, in a second scratch table. */
let merged = { ids: new Int32Array(1024), values: new Float64Array(8 * 1024), acc: new Float64Array(2048), seen: new Uint8Array(1024) };
const COLL = CLASSES.findIndex((c) => c.name === 'coll');
function withSpreads(base: PeerFlows, spreads: Spread[]): PeerFlows {
  let top = base.ids.length ? base.ids[base.ids.length - 1] + 1 : 0;
  for (const s of spreads) for (const w of s.members) if (w + 1 > top) top = w + 1;
  if (merged.seen.length < top) merged = { ...merged, acc: new Float64Array(2 * top), seen: new Uint8Array(top) };
  const { acc, seen } = merged;
  const touched: number[] = [];
  eachSpread(spreads, (peer, count, bytes) => {
    if (!seen[peer]) {
      seen[peer] = 1;
      touched.push(peer);
    }
    acc[2 * peer] += count;
    acc[2 * peer + 1] += bytes;
  });
  const extra = Int32Array.from(touched).sort();
  const cap = base.ids.length + extra.length;
  if (merged.ids.length < cap) merged = { ...merged, ids: new Int32Array(cap), values: new Float64Array(8 * cap) };
  const { ids, values } = merged;
  let n = 0;
  for (let i = 0, j = 0; i < base.ids.length || j < extra.length;) {
    const a = i < base.ids.length ? base.ids[i] : Infinity;
    const b = j < extra.length ? extra[j] : Infinity;
    const peer = Math.min(a, b);
    const at = 8 * n;
    if (a === peer) values.set(base.values.subarray(8 * i, 8 * i + 8), at);
    else values.fill(0, at, at + 8);
    if (b === peer) {
      values[at + 2 * COLL] += acc[2 * peer];
      values[at + 2 * COLL + 1] += acc[2 * peer + 1];
      acc[2 * peer] = 0;
      acc[2 * peer + 1] = 0;
      seen[peer] = 0;
      j++;
    }
    if (a === peer) i++;
    ids[n++] = peer;
  }
  return { ids: ids.subarray(0, n), values: values.subarray(0, 8 * n) };
}

function readFlows(c: CounterSection): PeerFlows {
  const size = Math.ceil(c.length / ROW);
  // plain loops over the stored words (a big job has millions of entries); mpii stores them in
  // ascending order, so a peer's entries come together: one pass, integer arithmetic while the
  // indices fit in 31 bits (any table below 29 million peers), a division only at a new peer
  const { sparse, words: w, entries } = c.words();
  if (!sparse || c.length >= 2 ** 31) return readFlowsUnordered(c, size);
  const cap = Math.min(size, entries);
  if (scratch.ids.length < cap) scratch = { ids: new Int32Array(cap), values: new Float64Array(cap * 8) };
  const { ids, values } = scratch;
  let n = 0;
  let last = -1;
  let rowStart = 0;
  let rowEnd = 0; // the current peer's row: [rowStart, rowEnd)
  let at = -8;
  for (let k = 0, q = 0; k < entries; k++, q += 4) {
    const i = w[q];
    if (i >= rowEnd || i < rowStart) {
      const peer = (i / ROW) | 0;
      if (peer <= last || peer >= size || w[q + 1] !== 0) return readFlowsUnordered(c, size); // not mpii's order: the slow way
      ids[n++] = peer;
      last = peer;
      rowStart = peer * ROW;
      rowEnd = rowStart + ROW;
      at += 8;
      values[at] = 0;
      values[at + 1] = 0;
      values[at + 2] = 0;
      values[at + 3] = 0; // the last rank's
      values[at + 4] = 0;
      values[at + 5] = 0;
      values[at + 6] = 0;
      values[at + 7] = 0;
    }
    const f = i - rowStart;
    if (f < HIST) values[at + f] = w[q + 3] === 0 ? w[q + 2] : w[q + 3] * 4294967296 + w[q + 2];
  }
  return { ids: ids.subarray(0, n), values: values.subarray(0, n * 8) };
}

/** What the terminal report needs of one rank's peers, taken while the file is read (its chunk
 *  still in the cache) so that the per-peer table need not be kept: the sums of the 8 flow
 *  values, its `top` busiest point-to-point peers (to, bytes, messages; best first) and how many
 *  it has, its row of the matrix of all bytes binned into `cells` blocks (and the column its
 *  one-sided reads go to), for a job of `n` ranks. */
export interface Digest {
  n: number;
  cells: number;
  top: number;
  sums: Float64Array;
  pairs: Float64Array;
  pairCount: number;
  row: Float64Array;
  col: Float64Array;
}
const digests = new WeakMap<CounterSection, Digest>();

/** busiest-pair order: more bytes, then more messages, then lower sender, then lower receiver */
export const pairBefore = (aBytes: number, aCount: number, aFrom: number, aTo: number, bBytes: number, bCount: number, bFrom: number, bTo: number) =>
  aBytes !== bBytes ? aBytes > bBytes : aCount !== bCount ? aCount > bCount : aFrom !== bFrom ? aFrom < bFrom : aTo < bTo;

/** A reader's onImage hook (src/profile-file/read.ts) that digests each rank's monitor tables
 *  as they are read and drops them (read again from the file only if a report needs more). */
export function monitorDigest(o: { top: number; cells: number }): (r: RankProfile) => void {
  let top = o.top;
  let recorded = false;
  return (r) => {
    if (!recorded) {
      // the run's own monitor `top` (mpii run --monitor-top), in the first rank that has it
      const t = r.texts.find((x) => x.tool === 0 && x.name === 'report-options');
      if (t) {
        recorded = true;
        try {
          const v = (JSON.parse(t.text) as { monitor?: { top?: unknown } }).monitor?.top;
          if (typeof v === 'number' && Number.isFinite(v)) top = Math.max(top, v);
        } catch {
          /* the report reads it and says nothing either */
        }
      }
    }
    if (!Number.isFinite(top) || r.size <= 0) return;
    for (const [id, name] of r.tools) {
      if (name !== 'monitor') continue;
      for (const c of r.counters) {
        if (c.tool !== id || c.name !== 'peers' || c.length !== r.size * ROW) continue;
        digests.set(c, digest(c, r.rank, r.size, top, o.cells));
        c.drop();
      }
    }
  };
}

/** Where the digests' arrays are kept: every rank's live to the end of the report. */
const pool = new Float64Pool();
const EMPTY = new Float64Array(0);

function digest(c: CounterSection, rank: number, n: number, top: number, cells: number): Digest {
  const block = Math.max(1, Math.ceil(n / Math.max(1, cells)));
  const side = Math.ceil(n / block);
  const d: Digest = { n, cells, top, sums: pool.take(8), pairs: EMPTY, pairCount: 0, row: pool.take(side), col: pool.take(side) };
  const st: PairState = { d, rank, top, best: [], worstBytes: -1 };
  const size = Math.ceil(c.length / ROW);
  const { sparse, words: w, entries } = c.words();
  let ordered = sparse && c.length < 2 ** 31;
  if (ordered) {
    // readFlows's loop, each entry added where it goes: no table in between
    const { sums, row, col } = d;
    let last = -1;
    let rowStart = 0;
    let rowEnd = 0;
    let cell = 0;
    let inMatrix = false;
    let count = 0; // the current peer's point-to-point messages and bytes
    let bytes = 0;
    for (let q = 0; q < 4 * entries; q += 4) {
      const i = w[q];
      if (i >= rowEnd || i < rowStart) {
        const peer = (i / ROW) | 0;
        if (peer <= last || peer >= size || w[q + 1] !== 0) {
          // not mpii's order: the slow way
          ordered = false;
          break;
        }
        if (count !== 0) pair(st, last, count, bytes);
        count = 0;
        bytes = 0;
        last = peer;
        rowStart = peer * ROW;
        rowEnd = rowStart + ROW;
        cell = (peer / block) | 0;
        inMatrix = peer < n;
      }
      const f = i - rowStart;
      if (f >= HIST) continue;
      const v = w[q + 3] === 0 ? w[q + 2] : w[q + 3] * 4294967296 + w[q + 2];
      sums[f] += v;
      if (f === 0) count = v;
      else if (f & 1) {
        if (f === 1) bytes = v;
        if (inMatrix && v !== 0) {
          // binnedMatrix's cells of all bytes (one-sided reads: the column)
          if (f === 5) col[cell] += v;
          else row[cell] += v;
        }
      }
    }
    if (ordered && count !== 0) pair(st, last, count, bytes);
  }
  if (!ordered) {
    // start again from the table readFlows makes
    d.sums.fill(0);
    d.row.fill(0);
    d.col.fill(0);
    d.pairCount = 0;
    st.best.length = 0;
    st.worstBytes = -1;
    const { ids, values: v } = readFlows(c);
    for (let k = 0, b = 0; k < ids.length; k++, b += 8) {
      const peer = ids[k];
      for (let j = 0; j < 8; j++) d.sums[j] += v[b + j];
      if (peer < n) {
        const cell = (peer / block) | 0;
        if (v[b + 1] !== 0) d.row[cell] += v[b + 1];
        if (v[b + 3] !== 0) d.row[cell] += v[b + 3];
        if (v[b + 5] !== 0) d.col[cell] += v[b + 5];
        if (v[b + 7] !== 0) d.row[cell] += v[b + 7];
      }
      if (v[b] !== 0) pair(st, peer, v[b], v[b + 1]);
    }
  }
  if (!Number.isFinite(st.top)) sortPairs(st.best, rank); // every pair asked for: appended, sorted once
  d.pairs = pool.from(st.best);
  return d;
}

/** Orders a rank's (to, bytes, count) triples busiest first (pairBefore). */
function sortPairs(best: number[], rank: number): void {
  const order = Array.from({ length: best.length / 3 }, (_, i) => 3 * i);
  order.sort((a, b) => (pairBefore(best[a + 1], best[a + 2], rank, best[a], best[b + 1], best[b + 2], rank, best[b]) ? -1 : 1));
  const copy = best.slice();
  order.forEach((from, i) => {
    best[3 * i] = copy[from];
    best[3 * i + 1] = copy[from + 1];
    best[3 * i + 2] = copy[from + 2];
  });
}

/** A rank's busiest pairs while digested: to, bytes, count, best first; while full, the last one's bytes. */
interface PairState {
  d: Digest;
  rank: number;
  top: number;
  best: number[];
  worstBytes: number;
}

/** A peer with point-to-point messages: among the rank's busiest? (most are below the last one's bytes) */
function pair(st: PairState, peer: number, count: number, bytes: number): void {
  st.d.pairCount++;
  const { best, top, rank } = st;
  if (bytes < st.worstBytes || top <= 0) return;
  if (!Number.isFinite(top)) {
    // every pair (--top 0): kept in arrival order, sorted once at the end
    best.push(peer, bytes, count);
    return;
  }
  const m = best.length / 3;
  if (m === top && !pairBefore(bytes, count, rank, peer, best[3 * m - 2], best[3 * m - 1], rank, best[3 * m - 3])) return;
  let at = m;
  while (at > 0 && pairBefore(bytes, count, rank, peer, best[3 * at - 2], best[3 * at - 1], rank, best[3 * at - 3])) at--;
  best.splice(3 * at, 0, peer, bytes, count);
  if (best.length > 3 * top) best.length = 3 * top;
  if (best.length === 3 * top) st.worstBytes = best[3 * top - 2];
}

/** What readFlows decodes a rank's peers into: one table for every rank, grown to the most peers. */
let scratch = { ids: new Int32Array(1024), values: new Float64Array(8 * 1024) };

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

/** A rank's peers column-wise: for a rank read from a profile, views of a scratch table valid
 *  until the next call (scan one rank at a time); `flows` of a rank made elsewhere (tests build
 *  RankMonitor objects by hand) made once. */
const derived = new WeakMap<RankMonitor, PeerFlows>();
export function flowsOf(r: RankMonitor): PeerFlows {
  if (r instanceof RankData) return r.scan();
  if (r.flows) return r.flows;
  let f = derived.get(r);
  if (!f) {
    const peers = [...r.peers.entries()].sort((a, b) => a[0] - b[0]);
    f = { ids: Int32Array.from(peers.map(([p]) => p)), values: new Float64Array(peers.length * 8) };
    peers.forEach(([, s], k) =>
      CLASSES.forEach((c, j) => {
        f!.values[k * 8 + 2 * j] = s[c.name].count;
        f!.values[k * 8 + 2 * j + 1] = s[c.name].bytes;
      }),
    );
    derived.set(r, f);
  }
  return f;
}

function rankMonitor(r: RankProfile, tool: number, size: number, lists: MemberLists): RankMonitor {
  const comms: CommRecord[] = [];
  let section: CounterSection | undefined;
  for (const c of r.counters) {
    if (c.tool !== tool) continue;
    if (c.name === 'peers') {
      if (c.length !== size * ROW) {
        throw new MpiiError(
          `rank ${r.rank}: monitor table has ${c.length} entries, expected ${size} peers × ${ROW}`,
          'the profile was written by a different mpii version; re-run the job',
        );
      }
      section = c;
    } else if (c.name === 'comm') {
      const v = new Array<number>(COMM.size).fill(0);
      c.forEach((k, x) => {
        if (k < COMM.size) v[k] = x;
      });
      if (c.length < COMM.size) v.fill(0, c.length); // a shorter row of an older file
      const i = COMM.index;
      const text = lists.resolve(c.labels[1] ?? '');
      const members = text === undefined ? undefined : parseMembers(text);
      // fields a file before format 3 lacks read as 0 (the row is shorter)
      const flow = (count: number, bytes: number) => ({ count: v[count] ?? 0, bytes: v[bytes] ?? 0 });
      const each = flow(i.each_count, i.each_bytes);
      const higher = flow(i.higher_count, i.higher_bytes);
      const apart = flow(i.apart_count, i.apart_bytes);
      comms.push({
        name: c.labels[0] ?? '',
        procs: members?.list ?? '',
        o2a: { bytes: v[i.o2a_bytes], count: v[i.o2a_count] },
        a2o: { bytes: v[i.a2o_bytes], count: v[i.a2o_count] },
        a2a: { bytes: v[i.a2a_bytes], count: v[i.a2a_count] },
        ...(each.count || higher.count || apart.count ? { each, higher, apart, members: members?.ranks } : {}),
      });
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
  const size = Math.max(p.size, ...p.ranks.map((r) => r.size));
  const ranks = p.ranks.filter((r) => r.size > 0);
  return toolInstances(p, 'monitor').map((tool) => {
    // the member lists written in full (by each communicator's lowest member), which the other
    // members' records name by their hash
    const lists = new MemberLists();
    for (const r of ranks) for (const c of r.counters) if (c.tool === tool && c.name === 'comm') lists.add(c.labels[1] ?? '');
    return { tool, size, ranks: ranks.map((r) => rankMonitor(r, tool, r.size, lists)) };
  });
}

/** Adds the 8 columns of a peer table (`values`, 8 per peer) to `sum`. Unrolled into 8 running
 *  sums: they stay in registers, where a loop over `sum` would load and store it for every entry
 *  (millions per report). */
function addColumnSums(values: Float64Array, sum: Float64Array): void {
  let a0 = 0,
    a1 = 0,
    a2 = 0,
    a3 = 0,
    a4 = 0,
    a5 = 0,
    a6 = 0,
    a7 = 0;
  for (let k = 0; k < values.length; k += 8) {
    a0 += values[k];
    a1 += values[k + 1];
    a2 += values[k + 2];
    a3 += values[k + 3];
    a4 += values[k + 4];
    a5 += values[k + 5];
    a6 += values[k + 6];
    a7 += values[k + 7];
  }
  sum[0] += a0;
  sum[1] += a1;
  sum[2] += a2;
  sum[3] += a3;
  sum[4] += a4;
  sum[5] += a5;
  sum[6] += a6;
  sum[7] += a7;
}

const totalsOf = new WeakMap<MonitorRun, Record<ClassName, Flow>>();
export function totals(run: MonitorRun): Record<ClassName, Flow> {
  const known = totalsOf.get(run);
  if (known) return structuredClone(known);
  const t = Object.fromEntries(CLASSES.map((c) => [c.name, { count: 0, bytes: 0 }])) as Record<ClassName, Flow>;
  const sum = new Float64Array(8);
  for (const r of run.ranks) {
    // collectives counted per communicator: spread over the members, or in no peer's row
    for (const c of r.comms) {
      sum[2 * COLL] += c.apart?.count ?? 0;
      sum[2 * COLL + 1] += c.apart?.bytes ?? 0;
    }
    if (r instanceof RankData) {
      if (!r.sums) r.scan();
      for (let k = 0; k < 8; k++) sum[k] += r.sums![k];
      const [count, bytes] = spreadTotals(r.spreads);
      sum[2 * COLL] += count;
      sum[2 * COLL + 1] += bytes;
      continue;
    }
    addColumnSums(flowsOf(r).values, sum);
  }
  CLASSES.forEach((c, j) => {
    t[c.name] = { count: sum[2 * j], bytes: sum[2 * j + 1] };
  });
  totalsOf.set(run, t);
  return structuredClone(t);
}

/** The size histograms of every rank's peers summed, bin by bin: from the stored entries where
 *  they are (no per-peer objects with 66 bins each: a gigabyte at 1024 ranks × 1024 peers). */
export function histogramSums(run: MonitorRun): Float64Array {
  const sum = new Float64Array(HIST_BINS);
  for (const r of run.ranks) {
    if (r instanceof RankData && r.addHistograms(sum)) continue;
    for (const s of r.peers.values())
      s.hist.forEach((v, b) => {
        if (v) sum[b] += v;
      });
  }
  return sum;
}

/** A rank's peers as --json lists them: { peer, p2p, osc_sent, osc_recv, coll, hist }, by peer. */
export function peerRows(r: RankMonitor): ({ peer: number } & PeerStats)[] {
  const peers = r instanceof RankData ? r.readPeers() : r.peers;
  return [...peers.entries()].sort((a, b) => a[0] - b[0]).map(([peer, s]) => ({ peer, ...s }));
}

/** What the report says of collectives counted per communicator (the option coll-peers), or
 *  undefined when every collective was counted per peer. */
export function spreadNote(run: MonitorRun): string | undefined {
  let spread = 0;
  let apartCount = 0;
  let apartBytes = 0;
  const big = new Set<string>();
  for (const r of run.ranks) {
    for (const c of r.comms) {
      if (!c.each && !c.higher && !c.apart) continue;
      big.add(c.procs);
      spread += (c.each?.count ?? 0) + (c.higher?.count ?? 0);
      apartCount += c.apart?.count ?? 0;
      apartBytes += c.apart?.bytes ?? 0;
    }
  }
  if (!big.size) return undefined;
  const some = `collectives on ${big.size} communicator${big.size === 1 ? '' : 's'} larger than monitor[coll-peers] were counted per communicator`;
  const where = spread ? '; the matrix and .prof files spread the calls that send every member the same over the members (exact)' : '';
  const apart = apartCount ? `; ${apartCount} messages (${apartBytes} bytes) whose size differs by peer are in the totals only` : '';
  return `${some}${where}${apart}`;
}

/** Communicators merged over ranks (same name and members), with their summed totals. */
export function communicators(run: MonitorRun): (CommRecord & { ranks: number })[] {
  // by name, then members: the reader gives every rank the same members string while the bytes
  // repeat, so the second lookup hashes nothing new (one key string per rank would hash the
  // member list of COMM_WORLD, 90 KB at 16,384 ranks, once per rank)
  const byName = new Map<string, Map<string, CommRecord & { ranks: number }>>();
  const all: (CommRecord & { ranks: number })[] = [];
  for (const r of run.ranks) {
    for (const c of r.comms) {
      let byProcs = byName.get(c.name);
      if (!byProcs) byName.set(c.name, (byProcs = new Map()));
      let m = byProcs.get(c.procs);
      if (!m) {
        m = { name: c.name, procs: c.procs, o2a: { count: 0, bytes: 0 }, a2o: { count: 0, bytes: 0 }, a2a: { count: 0, bytes: 0 }, ranks: 0 };
        byProcs.set(c.procs, m);
        all.push(m);
      }
      m.ranks++;
      for (const k of ['o2a', 'a2o', 'a2a'] as const) {
        m[k].count += c[k].count;
        m[k].bytes += c[k].bytes;
      }
    }
  }
  return all;
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
  eachCell(run, cls, what, (i, j, v) => {
    m[i][j] += v;
  });
  return m;
}

/** The matrix summed into blocks of `block` ranks per side (at most `cells` blocks per side):
 *  what a terminal or a page can show of a big job, made without the dense matrix. */
export interface Binned {
  n: number;
  block: number;
  side: number;
  cells: Float64Array;
}
export function binnedMatrix(run: MonitorRun, cls: ClassName | 'all', what: 'bytes' | 'count', cells: number): Binned {
  const n = run.size;
  const block = Math.max(1, Math.ceil(n / Math.max(1, cells)));
  const side = Math.ceil(n / block);
  const m = new Float64Array(side * side);
  const off = what === 'bytes' ? 1 : 0;
  const recv = CLASSES.findIndex((c) => c.name === 'osc_recv');
  const on = CLASSES.map((c) => cls === 'all' || cls === c.name);
  if (cls === 'all' && what === 'bytes' && run.ranks.every((r) => r instanceof RankData && r.digest?.cells === cells && r.digest.n === n)) {
    for (const r of run.ranks) {
      // the digests' rows (and the columns one-sided reads go to)
      const d = (r as RankData).digest!;
      const row = Math.floor(r.rank / block);
      for (let col = 0; col < side; col++) {
        if (d.row[col] !== 0) m[row * side + col] += d.row[col];
        if (d.col[col] !== 0) m[col * side + row] += d.col[col];
      }
      // and its collectives counted per communicator, spread over the members
      eachSpread((r as RankData).spreads, (peer, _count, bytes) => {
        if (peer < n && bytes !== 0) m[row * side + ((peer / block) | 0)] += bytes;
      });
    }
    return { n, block, side, cells: m };
  }
  const [on0, on1, on2, on3] = on;
  const flip = cls === 'all' && recv === 2; // osc_recv, in CLASSES order
  for (const r of run.ranks) {
    // as eachCell, in plain loops: a big job has millions of cells
    const { ids, values } = flowsOf(r);
    const row = Math.floor(r.rank / block);
    const rowAt = row * side;
    for (let k = 0, b = off; k < ids.length; k++, b += 8) {
      const peer = ids[k];
      if (peer >= n) continue;
      const col = (peer / block) | 0;
      const mine = rowAt + col;
      let v = values[b];
      if (on0 && v !== 0) m[mine] += v;
      v = values[b + 2];
      if (on1 && v !== 0) m[mine] += v;
      v = values[b + 4];
      if (on2 && v !== 0) m[flip ? col * side + row : mine] += v;
      v = values[b + 6];
      if (on3 && v !== 0) m[mine] += v;
    }
  }
  return { n, block, side, cells: m };
}

/** Every class (and 'all') binned at once, counts and bytes: one pass over the peers. */
export function binnedMatrices(
  run: MonitorRun,
  cells: number,
): { n: number; block: number; side: number; cells: Record<ClassName | 'all', { bytes: Float64Array; count: Float64Array }> } {
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

// Writes profiles in the layout the shim writes (the contract: preload/spec/profile-file.yaml)
// without running MPI: the report's scaling benchmark (bench/report.mjs) and the tests build
// jobs of any size with it. A synthetic job is deterministic, so tests can check the report's
// numbers exactly.
import { closeSync, ftruncateSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BLOCKS, FORMAT_VERSION, IMAGE_MAGIC, NODE_FILE, PROFILE_MAGIC, RECORD_KIND, STATES } from './format.gen.js';
import { pad8, STRUCTS, writeImageHeader, writeNodeHeader, writeProfileHeader, writeRecordHeader } from './layout.js';

export interface SynthCounters {
  tool: number;
  name: string;
  labels?: string;
  /** dense length of the section */
  length: number;
  /** non-zero entries as flat pairs: index, value, index, value, … (-1 stands for UINT64_MAX; a
   *  bigint is stored as its 64 bits) */
  entries: ArrayLike<number | bigint>;
}
export interface SynthText {
  tool: number;
  name: string;
  text: string;
}
export interface SynthRank {
  rank: number;
  size: number;
  state?: 'running' | 'finalized' | 'aborted';
  tStart?: number;
  tEnd?: number;
  host?: string;
  flavor?: string;
  /** tool id -> name */
  tools: Record<number, string>;
  counters?: SynthCounters[];
  texts?: SynthText[];
}

const HEADER = STRUCTS.image_header.size;
const RECORD = STRUCTS.record.size;
const SPARSE_HEAD = STRUCTS.sparse_head.size;
const SPARSE_ENTRY = STRUCTS.sparse_entry.size;

function putU64(buf: Buffer, at: number, v: number | bigint): void {
  if (typeof v === 'bigint') {
    buf.writeBigUInt64LE(BigInt.asUintN(64, v), at);
    return;
  }
  if (v < 0) {
    buf.writeUInt32LE(0xffffffff, at);
    buf.writeUInt32LE(0xffffffff, at + 4);
    return;
  }
  buf.writeUInt32LE(v % 0x100000000, at);
  buf.writeUInt32LE(Math.floor(v / 0x100000000), at + 4);
}

/** One rank's image, counters stored sparse (kind 4) as in a gathered profile.mpii. */
export function rankImage(r: SynthRank): Buffer {
  const recs: { kind: number; tool: number; name: Buffer; labels: Buffer; count: number; payload: number; write: (b: Buffer, at: number) => void }[] = [];
  for (const [id, name] of Object.entries(r.tools)) {
    recs.push({ kind: RECORD_KIND.tool, tool: Number(id), name: Buffer.from(name), labels: Buffer.alloc(0), count: 0, payload: 0, write: () => {} });
  }
  for (const c of r.counters ?? []) {
    const nnz = c.entries.length / 2;
    recs.push({
      kind: RECORD_KIND.sparse,
      tool: c.tool,
      name: Buffer.from(c.name),
      labels: Buffer.from(c.labels ?? ''),
      count: c.length,
      payload: SPARSE_HEAD + SPARSE_ENTRY * nnz,
      write: (b, at) => {
        putU64(b, at, nnz);
        for (let k = 0; k < nnz; k++) {
          putU64(b, at + SPARSE_HEAD + SPARSE_ENTRY * k, Number(c.entries[2 * k]));
          putU64(b, at + SPARSE_HEAD + SPARSE_ENTRY * k + 8, c.entries[2 * k + 1]); // index, value
        }
      },
    });
  }
  for (const t of r.texts ?? []) {
    const text = Buffer.from(t.text);
    recs.push({
      kind: RECORD_KIND.text,
      tool: t.tool,
      name: Buffer.from(t.name),
      labels: Buffer.alloc(0),
      count: text.length,
      payload: text.length,
      write: (b, at) => {
        text.copy(b, at);
      },
    });
  }
  const used = HEADER + recs.reduce((n, x) => n + RECORD + pad8(x.name.length) + pad8(x.labels.length) + pad8(x.payload), 0);
  const b = Buffer.alloc(used);
  writeImageHeader(b, 0, {
    magic: IMAGE_MAGIC,
    version: FORMAT_VERSION,
    state: STATES[r.state ?? 'finalized'],
    rank: r.rank,
    size: r.size,
    pid: 10000 + r.rank,
    ntools: Math.max(0, ...Object.keys(r.tools).map(Number)),
    used,
    capacity: used,
    t_start: r.tStart ?? 1_700_000_000,
    t_end: r.tEnd ?? (r.tStart ?? 1_700_000_000) + 10,
    host: r.host ?? `node${Math.floor(r.rank / 64)}`,
    flavor: r.flavor ?? 'openmpi',
  });
  let at = HEADER;
  for (const x of recs) {
    writeRecordHeader(b, at, { kind: x.kind, tool_id: x.tool, count: x.count, name_len: x.name.length, labels_len: x.labels.length });
    at += RECORD;
    x.name.copy(b, at);
    at += pad8(x.name.length);
    x.labels.copy(b, at);
    at += pad8(x.labels.length);
    x.write(b, at);
    at += pad8(x.payload);
  }
  return b;
}

/** DIR/profile.mpii with `nranks` images, each made (and written) one at a time. */
export function writeGathered(dir: string, nranks: number, rank: (r: number) => SynthRank, version = FORMAT_VERSION): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'profile.mpii');
  const fd = openSync(path, 'w');
  try {
    const head = Buffer.alloc(STRUCTS.profile_header.size);
    writeProfileHeader(head, 0, { magic: PROFILE_MAGIC, version, nranks });
    writeSync(fd, head);
    for (let r = 0; r < nranks; r++) writeSync(fd, rankImage(rank(r)));
  } finally {
    closeSync(fd);
  }
  return path;
}

/** How a synthetic node file is laid out: the shim's sizes unless told (slots of 64 MiB, sparse);
 *  `claimed` and `live` as its header says (default: one per slot given). */
export interface NodeFileOptions {
  headerBytes?: number;
  slotBytes?: number;
  claimed?: number;
  live?: number;
  version?: number;
}

/** The pieces of a node file holding `slots` (an image each, or null: a released slot, zeros):
 *  its header and each image at its offset, and the file's length. */
function nodeFileParts(slots: (Buffer | null)[], o: NodeFileOptions): { parts: { at: number; buf: Buffer }[]; length: number } {
  const headerBytes = o.headerBytes ?? NODE_FILE.headerBytes;
  const slotBytes = o.slotBytes ?? NODE_FILE.slotBytes;
  const head = Buffer.alloc(STRUCTS.node_header.size);
  writeNodeHeader(head, 0, {
    magic: NODE_FILE.magic,
    version: o.version ?? NODE_FILE.version,
    header_bytes: headerBytes,
    slot_bytes: slotBytes,
    claimed: o.claimed ?? slots.length,
    live: o.live ?? slots.filter(Boolean).length,
  });
  const parts: { at: number; buf: Buffer }[] = [{ at: 0, buf: head }];
  slots.forEach((image, i) => {
    if (image) parts.push({ at: headerBytes + i * slotBytes, buf: image });
  });
  return { parts, length: headerBytes + slots.length * slotBytes };
}

/** PATH, a node file as the shim leaves it (<out>/node-<host>.live): written sparse, only the
 *  header and the images take blocks. */
export function writeNodeFile(path: string, slots: (Buffer | null)[], o: NodeFileOptions = {}): string {
  const { parts, length } = nodeFileParts(slots, o);
  const fd = openSync(path, 'w');
  try {
    for (const p of parts) writeSync(fd, p.buf, 0, p.buf.length, p.at);
    ftruncateSync(fd, length);
  } finally {
    closeSync(fd);
  }
  return path;
}

/** A node file in memory (small slots unless told: the fuzzer damages every byte of it). */
export function nodeFileBytes(slots: (Buffer | null)[], o: NodeFileOptions = {}): Buffer {
  const { parts, length } = nodeFileParts(slots, {
    headerBytes: 64,
    slotBytes: pad8(Math.max(STRUCTS.image_header.size, ...slots.map((s) => s?.length ?? 0))),
    ...o,
  });
  const b = Buffer.alloc(length);
  for (const p of parts) p.buf.copy(b, p.at);
  return b;
}

// ---- a synthetic job: every rank talks to every peer (monitor) and has a few call sites (profile)

/** The functions of the synthetic job's profile ("function" texts), by id. */
export const SYNTH_FUNCTIONS = ['MPI_Send', 'MPI_Recv', 'MPI_Allreduce', 'MPI_Barrier', 'MPI_Alltoall', 'MPI_Comm_rank'];
/** Its call sites: function id and the address inside /synthetic/app (load bias 0x400000). */
export const SYNTH_SITES = [
  { fn: 0, addr: 0x401100 },
  { fn: 1, addr: 0x401180 },
  { fn: 2, addr: 0x401200 },
  { fn: 3, addr: 0x401280 },
  { fn: 4, addr: 0x401300 },
  { fn: 0, addr: 0x401380 },
  { fn: 5, addr: 0x401400 },
];
const PEERS = BLOCKS.monitor.peers;
const MON_ROW = PEERS.row.size;
const CLOCK = BLOCKS.profile.clock;
// The call-site rows are those of the profile tool before sampled timing (function, one
// address, 8 statistics): the reader takes the fields by their labels, older rows included.
const PF_STATS = ['count', 'ticks', 'ticks_min', 'ticks_max', 'bytes_sent', 'bytes_recv', 'size_min', 'size_max'];
const PF_ROW = 2 + PF_STATS.length;
const TICKS_PER_S = 1e9; // timer 2: nanoseconds

/** Messages rank r sends peer p in the synthetic job (1 to 5), and bytes per message. */
export const synthMessages = (r: number, p: number) => 1 + ((r * 7 + p * 13) % 5);
export const synthMessageBytes = (r: number, p: number) => 1024 * (1 + ((r + p) % 4));
/** Time (ns) rank r spends in call site s per call, and its calls. */
export const synthSiteCalls = (r: number, s: number) => 10 + s + (r % 3);
export const synthSiteNs = (r: number, s: number) => 100_000 * (s + 1) * (1 + (r % 4));
/** Application time of rank r in seconds. */
export const synthAppSeconds = (r: number) => 2 + (r % 8) * 0.25;

export interface SynthJobOptions {
  /** tools in the stack, default ['monitor', 'profile'] */
  tools?: string[];
  /** peers each rank sends to (default: all); peers are the next ones in rank order */
  peers?: number;
  /** call sites beyond SYNTH_SITES: MPI_Send sites at 0x401500, 0x401580, … (fewer calls each) */
  extraSites?: number;
  /** a timeline (tool 0's "events"): synthEvents(r) on every rank */
  timeline?: boolean;
  /** MPI_COMM_WORLD's member list as mpii writes it since format 3, a range (default), or every
   *  member by commas as before */
  members?: 'ranges' | 'list';
  /** the collectives counted on the COMM_WORLD record (`each`: 2 messages, 16 bytes to every
   *  member), not in the peers' rows, as a communicator past the monitor's coll-peers is */
  spread?: boolean;
}

/** The synthetic job's timeline of rank r (with `timeline`): times in seconds since MPI_Init.
 *  Pcontrol(0) and (1) around a phase of the monitor's; rank 0 also counted SYNTH_DROPPED events
 *  beyond the 256 it keeps (its slots after these five reserved but not written). `tool` is 'profile' or 'monitor'. */
export function synthEvents(r: number): { t: number; tool: string; kind: number; value: number; name: string }[] {
  const d = (r % 10) * 0.01;
  return [
    { t: 0.5 + d, tool: 'profile', kind: 1, value: 0, name: '' },
    { t: 1.0 + d, tool: 'profile', kind: 1, value: 1, name: '' },
    { t: 1.2 + d, tool: 'monitor', kind: 2, value: 0, name: '' },
    { t: 1.8 + d, tool: 'monitor', kind: 3, value: 1, name: 'prof/phase_1' },
    { t: 1.9 + d, tool: 'profile', kind: 1, value: 2, name: '' },
  ];
}
export const SYNTH_DROPPED = 10;
const EVENTS_KEPT = 256; // MPII_EVENTS_KEPT (preload/include/mpii_tool.h)
const EV = BLOCKS.core.events;

function eventsSection(r: number, ids: Record<number, string>, appSeconds: number): SynthCounters {
  const init = 1_000_000_000_000n; // CLOCK_MONOTONIC ns at MPI_Init
  const real = Buffer.alloc(8);
  real.writeDoubleLE(1_700_000_000 + r * 1e-3);
  const toolId = (name: string) => Number(Object.entries(ids).find(([, n]) => n === name)?.[0] ?? 0);
  const evs = synthEvents(r).filter((e) => toolId(e.tool));
  const seen = r === 0 ? EVENTS_KEPT + SYNTH_DROPPED : evs.length; // rank 0: the rest of its 256 were not written (died in between)
  const h = EV.header.index;
  const x = EV.row.index;
  const e: (number | bigint)[] = [
    h.entry_words,
    EV.row.size,
    h.capacity,
    EVENTS_KEPT,
    h.seen,
    seen,
    h.init_ns,
    init,
    h.init_real,
    real.readBigUInt64LE(0),
    h.end_ns,
    init + BigInt(Math.round(appSeconds * 1e9)),
  ];
  evs.forEach((ev, k) => {
    const at = EV.header.size + EV.row.size * k;
    e.push(at + x.ns, init + BigInt(Math.round(ev.t * 1e9)), at + x.kind_tool, (BigInt(toolId(ev.tool)) << 32n) | BigInt(ev.kind));
    if (ev.value) e.push(at + x.value, ev.value);
    const name = Buffer.alloc(8 * EV.row.words.name);
    name.write(ev.name);
    for (let w = 0; w < EV.row.words.name; w++) if (name.readBigUInt64LE(8 * w)) e.push(at + x.name + w, name.readBigUInt64LE(8 * w));
  });
  return { tool: 0, name: 'events', length: EV.header.size + EVENTS_KEPT * EV.row.size, entries: e };
}

export function synthRank(n: number, r: number, o: SynthJobOptions = {}): SynthRank {
  const tools = o.tools ?? ['monitor', 'profile'];
  const ids: Record<number, string> = {};
  tools.forEach((t, i) => {
    ids[i + 1] = t;
  });
  const rank: SynthRank = { rank: r, size: n, tools: ids, counters: [], texts: [] };
  const mon = tools.indexOf('monitor') + 1;
  if (mon) {
    const npeers = Math.min(n - 1, o.peers ?? n - 1);
    const e = new Float64Array(npeers * (o.spread ? 6 : 10));
    let k = 0;
    // ascending peer order, as the C side writes them
    const peers = Array.from({ length: npeers }, (_, i) => (r + 1 + i) % n).sort((a, b) => a - b);
    for (const p of peers) {
      const base = p * MON_ROW;
      const msgs = synthMessages(r, p);
      const bytes = synthMessageBytes(r, p);
      const bin = 1 + Math.floor(Math.log2(bytes));
      const f = PEERS.row.index;
      for (const [i, v] of [
        [f.pml_count, msgs],
        [f.pml_bytes, msgs * bytes],
        ...(o.spread
          ? []
          : [
              [f.coll_count, 2],
              [f.coll_bytes, 16],
            ]),
        [f.histogram + bin, msgs],
      ] as const) {
        e[k++] = base + i;
        e[k++] = v;
      }
    }
    rank.counters!.push({ tool: mon, name: 'peers', length: n * MON_ROW, entries: e, labels: PEERS.labels.join('\n') });
    const comm = BLOCKS.monitor.comm.row;
    rank.counters!.push({
      tool: mon,
      name: 'comm',
      length: comm.size,
      entries: [comm.index.a2a_bytes, 16 * npeers, comm.index.a2a_count, 2, ...(o.spread ? [comm.index.each_count, 2, comm.index.each_bytes, 16] : [])],
      labels: `MPI_COMM_WORLD\n${o.members === 'list' ? Array.from({ length: n }, (_, i) => i).join(',') : n > 1 ? `0-${n - 1}` : '0'}`,
    });
    rank.texts!.push({ tool: mon, name: 'memory', text: JSON.stringify({ table_bytes: n * MON_ROW * 8, resident_bytes: 4096 * Math.ceil(npeers / 7) }) });
  }
  const pf = tools.indexOf('profile') + 1;
  if (pf) {
    const app = synthAppSeconds(r) * TICKS_PER_S;
    const t0 = 5e9;
    // timer 2 (ticks are ns), t0 ticks/ns, cal ticks/ns, end ticks/ns, last, on, depth, capacity
    const all = [...SYNTH_SITES, ...Array.from({ length: o.extraSites ?? 0 }, (_, k) => ({ fn: 0, addr: 0x401500 + 0x80 * k }))];
    const cap = Math.max(64, 2 ** Math.ceil(Math.log2(all.length * 7)));
    const c = CLOCK.row.index;
    const clock = [
      c.timer,
      2,
      c.t0_ticks,
      t0,
      c.t0_ns,
      t0,
      c.cal_ticks,
      t0 - 1e6,
      c.cal_ns,
      t0 - 1e6,
      c.end_ticks,
      t0 + app,
      c.end_ns,
      t0 + app,
      c.last_ticks,
      t0 + app,
      c.on_ticks,
      app,
      c.depth,
      1,
      c.capacity,
      cap,
    ];
    rank.counters!.push({ tool: pf, name: 'clock', length: CLOCK.row.size, entries: clock, labels: CLOCK.labels.join('\n') });
    const e: number[] = [];
    all.forEach((s, i) => {
      const calls = i < SYNTH_SITES.length ? synthSiteCalls(r, i) : 1 + (r % 2);
      const ns = i < SYNTH_SITES.length ? synthSiteNs(r, i) : 1000 * (100 - i);
      const bytes = s.fn <= 1 ? 1024 : s.fn === 2 ? 32 : 0;
      const row = [s.fn + 1, s.addr, calls, calls * ns, ns, ns, s.fn === 1 ? 0 : calls * bytes, s.fn === 1 ? calls * bytes : 0, bytes, bytes];
      if (s.fn >= 3) {
        row[8] = s.fn === 5 ? -1 : 0;
        row[9] = 0;
      }
      row.forEach((v, f) => {
        if (v !== 0) e.push(i * 7 * PF_ROW + f, v);
      }); // spread over the table
    });
    rank.counters!.push({ tool: pf, name: 'sites', length: cap * PF_ROW, entries: e, labels: ['function', 'address 1', ...PF_STATS].join('\n') });
    rank.counters!.push({ tool: pf, name: 'overflow', length: SYNTH_FUNCTIONS.length * PF_STATS.length, entries: [], labels: PF_STATS.join('\n') });
    SYNTH_FUNCTIONS.forEach((f, id) => rank.texts!.push({ tool: pf, name: 'function', text: `${id} ${f}` }));
    rank.texts!.push({ tool: pf, name: 'module', text: '401000 402000 0 /synthetic/app' });
  }
  if (o.timeline) rank.counters!.push(eventsSection(r, ids, synthAppSeconds(r)));
  return rank;
}

/** A synthetic job of n ranks in DIR/profile.mpii. */
export function writeSyntheticJob(dir: string, n: number, o: SynthJobOptions = {}): string {
  return writeGathered(dir, n, (r) => synthRank(n, r, o));
}

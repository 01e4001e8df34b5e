// Writes profiles in the format of preload/core/profile_file.c without running MPI: the report's
// scaling benchmark (bench/report.mjs) and the tests build jobs of any size with it. A synthetic
// job is deterministic, so tests can check the report's numbers exactly.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { FORMAT_VERSION } from './read.js';

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
export interface SynthText { tool: number; name: string; text: string }
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

const pad8 = (n: number) => (n + 7) & ~7;
const HEADER = 144;
const STATE = { running: 0, finalized: 1, aborted: 2 };

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
    recs.push({ kind: 3, tool: Number(id), name: Buffer.from(name), labels: Buffer.alloc(0), count: 0, payload: 0, write: () => {} });
  }
  for (const c of r.counters ?? []) {
    const nnz = c.entries.length / 2;
    recs.push({
      kind: 4, tool: c.tool, name: Buffer.from(c.name), labels: Buffer.from(c.labels ?? ''), count: c.length, payload: 8 + 16 * nnz,
      write: (b, at) => {
        putU64(b, at, nnz);
        for (let k = 0; k < nnz; k++) {
          putU64(b, at + 8 + 16 * k, Number(c.entries[2 * k]));
          putU64(b, at + 16 + 16 * k, c.entries[2 * k + 1]);
        }
      },
    });
  }
  for (const t of r.texts ?? []) {
    const text = Buffer.from(t.text);
    recs.push({ kind: 2, tool: t.tool, name: Buffer.from(t.name), labels: Buffer.alloc(0), count: text.length, payload: text.length,
      write: (b, at) => { text.copy(b, at); } });
  }
  const used = HEADER + recs.reduce((n, x) => n + 24 + pad8(x.name.length) + pad8(x.labels.length) + pad8(x.payload), 0);
  const b = Buffer.alloc(used);
  b.write('MPIIRNK1', 0, 'latin1');
  b.writeUInt32LE(FORMAT_VERSION, 8);
  b.writeUInt32LE(STATE[r.state ?? 'finalized'], 12);
  b.writeInt32LE(r.rank, 16);
  b.writeInt32LE(r.size, 20);
  b.writeInt32LE(10000 + r.rank, 24);
  b.writeInt32LE(Math.max(0, ...Object.keys(r.tools).map(Number)), 28);
  putU64(b, 32, used);
  putU64(b, 40, used);
  b.writeDoubleLE(r.tStart ?? 1_700_000_000, 48);
  b.writeDoubleLE(r.tEnd ?? (r.tStart ?? 1_700_000_000) + 10, 56);
  b.write(r.host ?? `node${Math.floor(r.rank / 64)}`, 64, 63, 'latin1');
  b.write(r.flavor ?? 'openmpi', 128, 15, 'latin1');
  let at = HEADER;
  for (const x of recs) {
    b.writeUInt32LE(x.kind, at);
    b.writeUInt32LE(x.tool, at + 4);
    putU64(b, at + 8, x.count);
    b.writeUInt32LE(x.name.length, at + 16);
    b.writeUInt32LE(x.labels.length, at + 20);
    at += 24;
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
    const head = Buffer.alloc(16);
    head.write('MPIIPROF', 0, 'latin1');
    head.writeUInt32LE(version, 8);
    head.writeUInt32LE(nranks, 12);
    writeSync(fd, head);
    for (let r = 0; r < nranks; r++) writeSync(fd, rankImage(rank(r)));
  } finally {
    closeSync(fd);
  }
  return path;
}

// ---- a synthetic job: every rank talks to every peer (monitor) and has a few call sites (profile)

/** The functions of the synthetic job's profile ("function" texts), by id. */
export const SYNTH_FUNCTIONS = ['MPI_Send', 'MPI_Recv', 'MPI_Allreduce', 'MPI_Barrier', 'MPI_Alltoall', 'MPI_Comm_rank'];
/** Its call sites: function id and the address inside /synthetic/app (load bias 0x400000). */
export const SYNTH_SITES = [
  { fn: 0, addr: 0x401100 }, { fn: 1, addr: 0x401180 }, { fn: 2, addr: 0x401200 },
  { fn: 3, addr: 0x401280 }, { fn: 4, addr: 0x401300 }, { fn: 0, addr: 0x401380 }, { fn: 5, addr: 0x401400 },
];
const MON_ROW = 74;
const PF_ROW = 2 + 8; // function, one address, PF_NFIELDS
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
const EVENTS_KEPT = 256;

function eventsSection(r: number, ids: Record<number, string>, appSeconds: number): SynthCounters {
  const init = 1_000_000_000_000n; // CLOCK_MONOTONIC ns at MPI_Init
  const real = Buffer.alloc(8);
  real.writeDoubleLE(1_700_000_000 + r * 1e-3);
  const toolId = (name: string) => Number(Object.entries(ids).find(([, n]) => n === name)?.[0] ?? 0);
  const evs = synthEvents(r).filter((e) => toolId(e.tool));
  const seen = r === 0 ? EVENTS_KEPT + SYNTH_DROPPED : evs.length; // rank 0: the rest of its 256 were not written (died in between)
  const e: (number | bigint)[] = [0, 8, 1, EVENTS_KEPT, 2, seen, 3, init, 4, real.readBigUInt64LE(0), 5, init + BigInt(Math.round(appSeconds * 1e9))];
  evs.forEach((ev, k) => {
    const at = 8 + 8 * k;
    e.push(at, init + BigInt(Math.round(ev.t * 1e9)), at + 1, (BigInt(toolId(ev.tool)) << 32n) | BigInt(ev.kind));
    if (ev.value) e.push(at + 2, ev.value);
    const name = Buffer.alloc(40);
    name.write(ev.name);
    for (let w = 0; w < 5; w++) if (name.readBigUInt64LE(8 * w)) e.push(at + 3 + w, name.readBigUInt64LE(8 * w));
  });
  return { tool: 0, name: 'events', length: 8 + EVENTS_KEPT * 8, entries: e };
}

export function synthRank(n: number, r: number, o: SynthJobOptions = {}): SynthRank {
  const tools = o.tools ?? ['monitor', 'profile'];
  const ids: Record<number, string> = {};
  tools.forEach((t, i) => { ids[i + 1] = t; });
  const rank: SynthRank = { rank: r, size: n, tools: ids, counters: [], texts: [] };
  const mon = tools.indexOf('monitor') + 1;
  if (mon) {
    const npeers = Math.min(n - 1, o.peers ?? n - 1);
    const e = new Float64Array(npeers * 10);
    let k = 0;
    // ascending peer order, as the C side writes them
    const peers = Array.from({ length: npeers }, (_, i) => (r + 1 + i) % n).sort((a, b) => a - b);
    for (const p of peers) {
      const base = p * MON_ROW;
      const msgs = synthMessages(r, p);
      const bytes = synthMessageBytes(r, p);
      const bin = 1 + Math.floor(Math.log2(bytes));
      for (const [f, v] of [[0, msgs], [1, msgs * bytes], [6, 2], [7, 16], [8 + bin, msgs]] as const) {
        e[k++] = base + f;
        e[k++] = v;
      }
    }
    rank.counters!.push({ tool: mon, name: 'peers', length: n * MON_ROW, entries: e,
      labels: 'pml_count\npml_bytes\nosc_sent_count\nosc_sent_bytes\nosc_recv_count\nosc_recv_bytes\ncoll_count\ncoll_bytes\nhistogram' });
    rank.counters!.push({ tool: mon, name: 'comm', length: 6, entries: [4, 16 * npeers, 5, 2],
      labels: `MPI_COMM_WORLD\n${Array.from({ length: n }, (_, i) => i).join(',')}` });
    rank.texts!.push({ tool: mon, name: 'memory', text: JSON.stringify({ table_bytes: n * MON_ROW * 8, resident_bytes: 4096 * Math.ceil(npeers / 7) }) });
  }
  const pf = tools.indexOf('profile') + 1;
  if (pf) {
    const app = synthAppSeconds(r) * TICKS_PER_S;
    const t0 = 5e9;
    // timer 2 (ticks are ns), t0 ticks/ns, cal ticks/ns, end ticks/ns, last, on, depth, capacity
    const all = [...SYNTH_SITES, ...Array.from({ length: o.extraSites ?? 0 }, (_, k) => ({ fn: 0, addr: 0x401500 + 0x80 * k }))];
    const cap = Math.max(64, 2 ** Math.ceil(Math.log2(all.length * 7)));
    const clock = [0, 2, 1, t0, 2, t0, 3, t0 - 1e6, 4, t0 - 1e6, 5, t0 + app, 6, t0 + app, 7, t0 + app, 8, app, 11, 1, 12, cap];
    rank.counters!.push({ tool: pf, name: 'clock', length: 13, entries: clock,
      labels: 'timer\nt0_ticks\nt0_ns\ncal_ticks\ncal_ns\nend_ticks\nend_ns\nlast_ticks\non_ticks\non_since\npcontrol\ndepth\ncapacity' });
    const e: number[] = [];
    all.forEach((s, i) => {
      const calls = i < SYNTH_SITES.length ? synthSiteCalls(r, i) : 1 + (r % 2);
      const ns = i < SYNTH_SITES.length ? synthSiteNs(r, i) : 1000 * (100 - i);
      const bytes = s.fn <= 1 ? 1024 : s.fn === 2 ? 32 : 0;
      const row = [s.fn + 1, s.addr, calls, calls * ns, ns, ns, s.fn === 1 ? 0 : calls * bytes, s.fn === 1 ? calls * bytes : 0, bytes, bytes];
      if (s.fn >= 3) { row[8] = s.fn === 5 ? -1 : 0; row[9] = 0; }
      row.forEach((v, f) => { if (v !== 0) e.push(i * 7 * PF_ROW + f, v); }); // spread over the table
    });
    rank.counters!.push({ tool: pf, name: 'sites', length: cap * PF_ROW, entries: e,
      labels: 'function\naddress 1\ncount\nticks\nticks_min\nticks_max\nbytes_sent\nbytes_recv\nsize_min\nsize_max' });
    rank.counters!.push({ tool: pf, name: 'overflow', length: SYNTH_FUNCTIONS.length * 8, entries: [],
      labels: 'count\nticks\nticks_min\nticks_max\nbytes_sent\nbytes_recv\nsize_min\nsize_max' });
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

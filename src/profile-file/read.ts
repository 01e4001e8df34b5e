// Reads a run's profile: the gathered profile.mpii, or the .live files a crashed run left behind
// (one per host, a slot per process: live.ts; then the profile is marked incomplete). The layout is the contract in
// preload/spec/profile-file.yaml (generated: format.gen.ts, parsed in layout.ts; docs/profile-file.md).
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MpiiError } from '../errors.js';
import { BLOCKS, FORMAT_HISTORY, FORMAT_VERSION, IMAGE_MAGIC, OLDEST_VERSION, PROFILE_MAGIC, RECORD_KIND, STATES as STATE_VALUES } from './format.gen.js';
import { isNodeFile, liveImages, type LiveImage } from './live.js';
import {
  IMAGE_HEADER_SIZE,
  imageHeader,
  pad8,
  PROFILE_HEADER_SIZE,
  profileHeader,
  RECORD_HEADER_SIZE,
  recordHeader,
  SPARSE_ENTRY_SIZE,
  SPARSE_HEAD_SIZE,
  sparseHead,
} from './layout.js';

export { FORMAT_VERSION };
type State = keyof typeof STATE_VALUES;
const STATES: State[] = []; // image_header.state -> its name
for (const [name, value] of Object.entries(STATE_VALUES)) STATES[value] = name as State;

/** A counters section. Its values stay in the file's buffer until asked for: the per-peer tables
 *  of a big job hold millions of entries, most of them zero (or not stored at all). */
export interface CounterSection {
  tool: number;
  name: string;
  labels: string[];
  length: number;
  /** the non-zero entries, exact (built on first use; big tables are read faster with forEach) */
  readonly nonzero: Map<number, bigint>;
  /** every non-zero entry as (index, value), in the order stored (ascending as mpii writes them);
   *  the value is a double, exact below 2^53 (UINT64_MAX reads as 2^64) */
  forEach(fn: (index: number, value: number) => void): void;
  /** the stored entries as 32-bit words, for loops over millions of them: sparse = 4 words per
   *  entry (index low, high, value low, high), else 2 per entry (value low, high) for `length` */
  words(): { sparse: boolean; words: Uint32Array; entries: number };
  /** Lets go of the values (a reader's onImage hook that took what it needs from them while the
   *  file was read): asked for again, they are read again from the file (the whole profile once). */
  drop(): void;
}

/** What a dropped section's values are read again with (the whole file, nothing dropped). */
interface Restorer {
  restore(): void;
}

const TWO32 = 0x100000000;

const EMPTY = Buffer.alloc(0);
const NOT_RESTORABLE: Restorer = {
  restore: () => {
    throw new Error('a dropped counters section cannot be read again (no file to read it from)');
  },
};

class Counters implements CounterSection {
  private map?: Map<number, bigint>;
  /** `sparse`: entries stored at `base` as (u64 index, u64 value) pairs; -1: `length` dense values */
  /** set when dropped: what reads the values again */
  restorer?: Restorer;
  constructor(
    public tool: number,
    public name: string,
    public labels: string[],
    public length: number,
    private buf: Buffer,
    private base: number,
    private readonly sparse: number,
  ) {}

  get dropped(): boolean {
    return this.restorer !== undefined;
  }

  drop(): void {
    this.restorer = NOT_RESTORABLE;
    this.buf = EMPTY;
    this.base = 0;
  }

  /** the values of the same section read again (`from`: in a fresh reading of the file) */
  adopt(from: Counters): void {
    this.buf = from.buf;
    this.base = from.base;
    this.restorer = undefined;
  }

  /** bytes of its payload in the buffer */
  get bytes(): number {
    return this.sparse >= 0 ? 8 + 16 * this.sparse : 8 * this.length;
  }

  /** its payload copied into the keeper's buffers: the one it was in can be read over */
  moveTo(keeper: Keeper): void {
    const at = keeper.keep(this.buf, this.base, this.base + this.bytes);
    this.buf = at.buf;
    this.base = at.base;
  }

  words(): { sparse: boolean; words: Uint32Array; entries: number } {
    if (this.restorer) this.restorer.restore();
    const sparse = this.sparse >= 0;
    const entries = sparse ? this.sparse : this.length;
    const start = this.base + (sparse ? 8 : 0);
    const n = entries * (sparse ? 4 : 2);
    const at = this.buf.byteOffset + start;
    const words =
      at % 4 === 0 ? new Uint32Array(this.buf.buffer, at, n) : new Uint32Array(Uint8Array.prototype.slice.call(this.buf, start, start + 4 * n).buffer); // unaligned: copy
    return { sparse, words, entries };
  }

  forEach(fn: (index: number, value: number) => void): void {
    const { sparse, words: w, entries } = this.words();
    if (!sparse) {
      for (let k = 0; k < entries; k++) if (w[2 * k] !== 0 || w[2 * k + 1] !== 0) fn(k, w[2 * k + 1] * TWO32 + w[2 * k]);
    } else {
      for (let k = 0; k < entries; k++) fn(w[4 * k + 1] * TWO32 + w[4 * k], w[4 * k + 3] * TWO32 + w[4 * k + 2]);
    }
  }

  get nonzero(): Map<number, bigint> {
    if (this.map) return this.map;
    if (this.restorer) this.restorer.restore();
    const m = new Map<number, bigint>();
    const b = this.base;
    if (this.sparse < 0) {
      for (let k = 0; k < this.length; k++) {
        const at = b + 8 * k; // most entries are zero: test cheaply before making a BigInt
        if (this.buf.readUInt32LE(at) !== 0 || this.buf.readUInt32LE(at + 4) !== 0) m.set(k, this.buf.readBigUInt64LE(at));
      }
    } else {
      for (let k = 0; k < this.sparse; k++) m.set(Number(this.buf.readBigUInt64LE(b + 8 + 16 * k)), this.buf.readBigUInt64LE(b + 16 + 16 * k));
    }
    this.map = m;
    return m;
  }
}
export interface TextSection {
  tool: number;
  name: string;
  text: string;
}

/** Kinds of timeline events (MPII_EVENT_* in preload/include/mpii_tool.h); others are a tool's own. */
export const EVENT_KINDS: Record<number, string> = { 1: 'pcontrol', 2: 'phase-start', 3: 'phase-end' };

export interface TimelineEvent {
  /** seconds since the rank's MPI_Init returned (before it: negative) */
  t: number;
  tool: number;
  /** 'pcontrol', 'phase-start', 'phase-end', or `event-<k>` of a tool's own kind */
  kind: string;
  /** MPI_Pcontrol's level; for a phase's end 1 when it wrote <name>.<rank>.prof */
  value: number;
  name: string;
}

/** A rank's timeline (tool 0's counters "events", preload/core/profile_file.c): the first events it
 *  kept, in the order they happened, and how many it dropped. Absent in profiles of mpii before it. */
export interface RankTimeline {
  /** MPI_Init returned, wall clock (seconds since 1970); null when the rank never got there */
  init: number | null;
  /** MPI_Finalize or the crash, seconds since MPI_Init; null while running (killed) */
  end: number | null;
  /** events a rank keeps at most (the first ones) */
  capacity: number;
  seen: number;
  dropped: number;
  events: TimelineEvent[];
}

const EV = BLOCKS.core.events;
const EV_HEAD = EV.header.size;
const EH = EV.header.index;
const ER = EV.row.index;

/** The rank's timeline from its "events" section, or undefined when it has none. */
export function parseTimeline(c: CounterSection | undefined): RankTimeline | undefined {
  if (!c || c.length < EV_HEAD) return undefined;
  const v = c.nonzero;
  const u = (i: number) => v.get(i) ?? 0n;
  const words = Number(u(EH.entry_words));
  if (words <= ER.name || words > 64) return undefined; // not a layout this reader knows (or damaged)
  // a damaged count must not make a long loop: the shim keeps 256, a later one may keep more
  const capacity = Math.min(Number(u(EH.capacity)), Math.floor((c.length - EV_HEAD) / words), 1 << 16);
  const seen = Number(u(EH.seen));
  const initNs = u(EH.init_ns);
  const real = Buffer.alloc(8);
  real.writeBigUInt64LE(u(EH.init_real));
  const endNs = u(EH.end_ns);
  const base = initNs || (v.get(EV_HEAD + ER.ns) ?? 0n); // never initialised: from its first event
  const events: TimelineEvent[] = [];
  for (let k = 0; k < Math.min(seen, capacity); k++) {
    const at = EV_HEAD + k * words;
    const kt = u(at + ER.kind_tool);
    if (kt === 0n) continue; // reserved, never written (the rank died in between)
    const kind = Number(kt & 0xffffffffn);
    const name = Buffer.alloc((words - ER.name) * 8); // to the entry's end: a later shim may keep longer names
    for (let w = ER.name; w < words; w++) name.writeBigUInt64LE(u(at + w), (w - ER.name) * 8);
    events.push({
      t: Number(u(at + ER.ns) - base) / 1e9,
      tool: Number(kt >> 32n),
      kind: EVENT_KINDS[kind] ?? `event-${kind}`,
      value: Number(BigInt.asIntN(64, u(at + ER.value))),
      name: name.toString('utf8').replace(/\0.*$/s, ''),
    });
  }
  return {
    init: initNs ? real.readDoubleLE(0) : null,
    end: endNs && initNs ? Number(endNs - initNs) / 1e9 : null,
    capacity,
    seen,
    dropped: Math.max(0, seen - capacity),
    events,
  };
}

export interface RankProfile {
  rank: number;
  size: number;
  pid: number;
  host: string;
  flavor: string;
  state: State;
  tStart: number;
  tEnd: number;
  /** tool id -> instance name (1-based ids, as in the QMPI stack) */
  tools: Map<number, string>;
  counters: CounterSection[];
  texts: TextSection[];
  /** MPI_Pcontrol and MPI_T phases in time (profiles written before mpii recorded them: none) */
  timeline?: RankTimeline;
}

export interface Profile {
  dir: string;
  /** true when every rank finished MPI_Finalize and rank 0 wrote profile.mpii */
  complete: boolean;
  source: string;
  ranks: RankProfile[];
  /** ranks the job had, from the images (-1 when unknown) */
  size: number;
  /** directories of the jobs this one started with MPI_Comm_spawn (each a profile of its own) */
  spawned: string[];
}

/** The ids of the instances of tool `name` in the run's stack (a tool listed twice has two), in
 *  stack order: what each tool's report module reads its blocks by. */
export function toolInstances(p: Profile, name: string): number[] {
  let byName = instancesOf.get(p);
  if (!byName) {
    // every tool's at once, in one pass over the ranks (each tool's report asks)
    const sets = new Map<string, Set<number>>();
    for (const r of p.ranks) {
      for (const [id, n] of r.tools) {
        let ids = sets.get(n);
        if (!ids) sets.set(n, (ids = new Set()));
        ids.add(id);
      }
    }
    byName = new Map([...sets].map(([n, ids]) => [n, [...ids].sort((a, b) => a - b)]));
    instancesOf.set(p, byName);
  }
  return [...(byName.get(name) ?? [])];
}
const instancesOf = new WeakMap<Profile, Map<string, number[]>>();

/** The profiles of spawned jobs: the shim puts each in a "spawned-<host>-<pid>" subdirectory. */
function spawnedJobs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name.startsWith('spawned-'))
    .map((e) => join(dir, e.name))
    .sort();
}

/** The format versions this reader takes; others get one line naming theirs and the fix. */
function checkVersion(version: number, where: string): void {
  if (version > FORMAT_VERSION) {
    throw new MpiiError(`${where} was written by a newer mpii (format ${version}, this one reads ${FORMAT_VERSION})`, 'upgrade mpii to read it');
  }
  if (version < OLDEST_VERSION) {
    throw new MpiiError(
      `${where} is in format ${version}, older than this mpii reads (${OLDEST_VERSION} to ${FORMAT_VERSION})`,
      `read it with an mpii from before ${FORMAT_HISTORY[0].since}, or re-run the job`,
    );
  }
}

const corrupt = (where: string, off: number) => new MpiiError(`${where} has a corrupt record at byte ${off}`, 're-run the job');

/** The image header's checks (magic, version, `used` within the `avail` bytes there are): `used`. */
function checkImage(buf: Buffer, where: string, avail: number): number {
  if (buf.length < IMAGE_HEADER_SIZE || buf.toString('latin1', 0, IMAGE_MAGIC.length) !== IMAGE_MAGIC) {
    throw new MpiiError(`${where} is not an mpii rank profile (bad magic)`, 'point mpii report at a directory written by mpii run');
  }
  const head = imageHeader(buf);
  checkVersion(head.version, where);
  const used = head.used;
  if (used < IMAGE_HEADER_SIZE || used > avail) {
    throw new MpiiError(`${where} is truncated (${avail} of ${used} bytes)`, 'the file was cut short; re-run the job');
  }
  return used;
}

/** Where a streamed file's counters go. Each section stays in the chunk it was read in when
 *  counters fill at least half of that chunk (a dense job's per-peer tables: no copy, and no more
 *  memory than the counters take); otherwise (most of the chunk is labels and texts: the
 *  COMM_WORLD record lists every member, 90 KB a rank at 16,384 ranks) they are copied into big
 *  shared buffers and the chunk is read over. Each record's labels are decoded once for as long as
 *  the ranks repeat them. */
export class Keeper {
  private arena = Buffer.alloc(0);
  private at = 0;
  private labels = new Map<string, { bytes: Buffer; labels: string[] }>();
  private strings = new Map<string, string>();
  /** the sections in the current chunk, and their bytes */
  private pending: Counters[] = [];
  private pendingBytes = 0;
  /** called with each image once parsed, while its sections are in the chunk */
  onImage?: (rank: RankProfile) => void;
  constructor(private arenaBytes = 16 * 1024 * 1024) {}

  /** the file has `bytes`: no shared buffer bigger than that */
  atMost(bytes: number): void {
    this.arenaBytes = Math.max(4096, Math.min(this.arenaBytes, bytes));
  }

  /** a section in the current chunk */
  hold(c: Counters): void {
    this.pending.push(c);
  }

  /** Before the chunk of `bytes` is read over: false when it has to stay (its sections are in it). */
  release(bytes: number): boolean {
    for (const c of this.pending) if (!c.dropped) this.pendingBytes += c.bytes;
    const stay = this.pendingBytes * 2 >= bytes;
    if (!stay) for (const c of this.pending) if (!c.dropped) c.moveTo(this);
    this.pending = [];
    this.pendingBytes = 0;
    return !stay;
  }

  /** buf[start, end) copied: the buffer and offset it is at now (8-byte aligned). */
  keep(buf: Buffer, start: number, end: number): { buf: Buffer; base: number } {
    const n = end - start;
    if (this.at + n > this.arena.length) {
      this.arena = Buffer.allocUnsafeSlow(Math.max(this.arenaBytes, n));
      this.at = 0;
    }
    const base = this.at;
    buf.copy(this.arena, base, start, end);
    this.at = pad8(base + n);
    return { buf: this.arena, base };
  }

  /** `s`, or the equal string met before: the names, hosts and short texts every rank repeats are
   *  then one string each, not one per rank (fewer objects for the collector to move about). */
  intern(s: string): string {
    if (s.length > 256) return s;
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    if (this.strings.size < 16384) this.strings.set(s, s);
    return s;
  }

  /** The labels in buf[start, end) of the record `key`: the last ones made when the bytes are the same. */
  labelsOf(key: string, buf: Buffer, start: number, end: number): string[] {
    if (end <= start) return [];
    const bytes = buf.subarray(start, end);
    const last = this.labels.get(key);
    if (last && last.bytes.equals(bytes)) return last.labels;
    const labels = bytes.toString('utf8').split('\n');
    this.labels.set(key, { bytes: Buffer.from(bytes), labels });
    return labels;
  }
}

/** One rank's image at the start of `buf`; its counters stay in it (a keeper is told of them). */
function parseImage(buf: Buffer, where: string, keeper?: Keeper): { rank: RankProfile; length: number } {
  const used = checkImage(buf, where, buf.length);
  const head = imageHeader(buf);
  const rank: RankProfile = {
    state: STATES[head.state] ?? 'running',
    rank: head.rank,
    size: head.size,
    pid: head.pid,
    tStart: head.t_start,
    tEnd: head.t_end,
    host: keeper ? keeper.intern(head.host) : head.host,
    flavor: keeper ? keeper.intern(head.flavor) : head.flavor,
    tools: new Map(),
    counters: [],
    texts: [],
  };
  let off = IMAGE_HEADER_SIZE;
  while (off + RECORD_HEADER_SIZE <= used) {
    // the header's numbers only (its name and labels cut at its end: nothing decoded), then the
    // name and labels as the generated reader would cut them at `used`
    const r = recordHeader(buf, off, off + RECORD_HEADER_SIZE);
    const p = off + r.end; // the payload, after the name and labels
    if (p > used) throw corrupt(where, off);
    const n0 = off + RECORD_HEADER_SIZE;
    const read = buf.toString('utf8', n0, Math.min(n0 + r.name_len, used));
    const name = keeper ? keeper.intern(read) : read;
    const l0 = n0 + pad8(r.name_len);
    const l1 = Math.min(l0 + r.labels_len, used);
    const sparse = r.kind === RECORD_KIND.sparse && p + SPARSE_HEAD_SIZE <= used ? sparseHead(buf, p).nnz : 0;
    const payload =
      r.kind === RECORD_KIND.counters
        ? r.count * 8
        : r.kind === RECORD_KIND.text
          ? r.count
          : r.kind === RECORD_KIND.sparse
            ? SPARSE_HEAD_SIZE + SPARSE_ENTRY_SIZE * sparse
            : 0;
    if (p + payload > used) throw corrupt(where, off);
    if (r.kind === RECORD_KIND.counters || r.kind === RECORD_KIND.sparse) {
      // by the record's place too: a rank's several communicators each repeat the same labels rank after rank
      const labels = keeper
        ? keeper.labelsOf(`${r.tool_id}\n${name}\n${rank.counters.length}`, buf, l0, l1)
        : l1 > l0
          ? buf.toString('utf8', l0, l1).split('\n')
          : [];
      const c = new Counters(r.tool_id, name, labels, r.count, buf, p, r.kind === RECORD_KIND.sparse ? sparse : -1);
      keeper?.hold(c);
      rank.counters.push(c);
    } else if (r.kind === RECORD_KIND.text) {
      const text = buf.toString('utf8', p, p + r.count);
      rank.texts.push({ tool: r.tool_id, name, text: keeper ? keeper.intern(text) : text });
    } else if (r.kind === RECORD_KIND.tool) {
      rank.tools.set(r.tool_id, name);
    } else {
      throw new MpiiError(`${where} has an unknown record kind ${r.kind} at byte ${off}`, 'upgrade mpii to read it');
    }
    off = p + pad8(payload);
  }
  rank.timeline = parseTimeline(rank.counters.find((c) => c.tool === 0 && c.name === 'events'));
  return { rank, length: pad8(used) };
}

function profileHead(buf: Buffer, path: string): number {
  if (buf.length < PROFILE_HEADER_SIZE || buf.toString('latin1', 0, PROFILE_MAGIC.length) !== PROFILE_MAGIC) {
    throw new MpiiError(`${path} is not an mpii profile (bad magic)`, 'point mpii report at a directory written by mpii run');
  }
  const head = profileHeader(buf);
  checkVersion(head.version, path);
  return head.nranks;
}

/** The ranks of a gathered file held whole in `buf` (the counters stay in it): how files were
 *  read before streamGathered, kept for the tests that compare the two. */
export function parseGathered(path: string, buf: Buffer): RankProfile[] {
  const n = profileHead(buf, path);
  const ranks: RankProfile[] = [];
  let off = PROFILE_HEADER_SIZE;
  for (let r = 0; r < n; r++) {
    if (off >= buf.length) throw new MpiiError(`${path} is truncated: ${r} of ${n} ranks present`, 're-run the job');
    const { rank, length } = parseImage(buf.subarray(off), `${path} (rank ${r})`);
    ranks.push(rank);
    off += length;
  }
  return ranks;
}

/** A read the streaming parser asks for: into buf at `offset`, at most `length` bytes from the
 *  file's `position`; it is given back the bytes read (0 at the end of the file). */
export interface ReadAsk {
  buf: Buffer;
  offset: number;
  length: number;
  position: number;
}

/** The bytes read at a time (and the least the window holds). 1 MiB, half a core's L2 cache:
 *  the bytes a read just copied in are still in the cache when the digest goes over them (the
 *  terminal report of 1,024 ranks × 1,023 peers: 45 ms faster than with 8 MiB). */
export const CHUNK_BYTES = 1024 * 1024;

/** The ranks of a gathered file of `total` bytes, parsed as it is read: a window of `chunk` bytes
 *  (more only for an image bigger than that) is read over and over unless it is mostly counters
 *  (Keeper): the file is not held whole, and no counter twice. The caller does the reads (readSync,
 *  or a file handle's read with turns of the event loop between them). */
export function* streamGathered(path: string, total: number, chunk = CHUNK_BYTES, keeper = new Keeper()): Generator<ReadAsk, RankProfile[], number> {
  chunk = Math.max(Math.min(chunk, total), PROFILE_HEADER_SIZE, IMAGE_HEADER_SIZE); // a small file: a window its size
  keeper.atMost(total);
  let win = Buffer.allocUnsafeSlow(chunk);
  let start = 0; // the first byte not parsed yet
  let end = 0; // the end of what was read
  let pos = 0; // the file position of win[end]
  let eof = false;
  /** win[start, end) holds at least `need` bytes, or all the file has left */
  function* fill(need: number): Generator<ReadAsk, void, number> {
    if (end - start >= need || eof) return;
    if (start + need > win.length) {
      // move the rest to the front, into a bigger window when needed
      const into = !keeper.release(win.length) || need > win.length ? Buffer.allocUnsafeSlow(Math.max(need, chunk)) : win;
      win.copy(into, 0, start, end);
      end -= start;
      start = 0;
      win = into;
    }
    while (end - start < need) {
      const got = yield { buf: win, offset: end, length: win.length - end, position: pos };
      if (got <= 0) {
        eof = true;
        return;
      }
      end += got;
      pos += got;
    }
  }
  yield* fill(PROFILE_HEADER_SIZE);
  const n = profileHead(win.subarray(start, end), path);
  start += PROFILE_HEADER_SIZE;
  const ranks: RankProfile[] = [];
  for (let r = 0; r < n; r++) {
    yield* fill(IMAGE_HEADER_SIZE);
    if (end <= start) throw new MpiiError(`${path} is truncated: ${r} of ${n} ranks present`, 're-run the job');
    const where = `${path} (rank ${r})`;
    const left = Math.max(end - start, total - (pos - (end - start))); // bytes from here to the file's end
    const used = checkImage(win.subarray(start, end), where, left);
    yield* fill(used);
    const { rank, length } = parseImage(win.subarray(start, end), where, keeper);
    keeper.onImage?.(rank);
    ranks.push(rank);
    start = Math.min(end, start + length);
  }
  keeper.release(win.length); // the last chunk: freed unless it is mostly counters
  return ranks;
}

/** The header of every image in the .live files of `dir`: its rank, size and state; none when
 *  the profile was gathered (every rank finalized) or there is no profile. A file that is not one
 *  of mpii's is passed over. */
function liveHeaders(dir: string): { rank: number; size: number; state: string }[] {
  if (!existsSync(dir) || existsSync(join(dir, 'profile.mpii'))) return [];
  const found: { rank: number; size: number; state: string }[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.live'))) {
    let images: LiveImage[];
    try {
      images = liveImages(join(dir, f), true);
    } catch {
      continue;
    }
    for (const { buf } of images) {
      if (buf.length < IMAGE_HEADER_SIZE || buf.toString('latin1', 0, IMAGE_MAGIC.length) !== IMAGE_MAGIC) continue;
      const h = imageHeader(buf);
      found.push({ rank: h.rank, size: h.size, state: STATES[h.state] ?? '' });
    }
  }
  return found.sort((a, b) => a.rank - b.rank);
}

/** How the ranks of an unfinished profile ended, from one read of the .live files' image headers:
 *  `stopped`, those that stopped the job (MPI_Abort, a tool's fatal stop: state `aborted`);
 *  `unfinished`, those that ended between MPI_Init and MPI_Finalize without MPI_Abort (a signal,
 *  an exit without MPI_Finalize, the launcher tearing the job down): their image passed MPI_Init
 *  (its size is known) and still says `running`. A program that only uses MPI sessions never
 *  passes MPI_Init and is in neither. */
export function rankEnds(dir: string): { stopped: number[]; unfinished: number[] } {
  const headers = liveHeaders(dir);
  return {
    stopped: headers.filter((h) => h.state === 'aborted').map((h) => h.rank),
    unfinished: headers.filter((h) => h.state === 'running' && h.size > 0).map((h) => h.rank),
  };
}
export const stoppedRanks = (dir: string): number[] => rankEnds(dir).stopped;
export const unfinishedRanks = (dir: string): number[] => rankEnds(dir).unfinished;

/** The run directory `path` names: the directory itself, or the one holding a profile file
 * given instead (`mpii report out/profile.mpii`, `out/node-<host>.live`, `out/rank-0.live`). */
export function profileDir(path: string): string {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new MpiiError(`profile directory ${path} does not exist`, 'pass the --out directory of an mpii run');
  }
  if (st.isDirectory()) return path;
  const name = basename(path);
  if (st.isFile() && (name === 'profile.mpii' || isNodeFile(name) || /^(rank|pid)-.*\.live$/.test(name))) return dirname(path);
  throw new MpiiError(`${path} is not an mpii output directory`, 'pass the --out directory of an mpii run (the one holding profile.mpii)');
}

/** Where a run's profile is: the gathered file, else the .live files (errors as readProfile's). */
function locate(path: string): { dir: string; gathered?: string; live: string[] } {
  const dir = profileDir(path);
  const gathered = join(dir, 'profile.mpii');
  if (existsSync(gathered) && !statSync(gathered).isFile()) {
    throw new MpiiError(
      `${gathered} is not a file (a ${statSync(gathered).isDirectory() ? 'directory' : 'special file'} of the profile's name)`,
      `move it away and pass the --out directory of an mpii run`,
    );
  }
  if (existsSync(gathered)) return { dir, gathered, live: [] };
  const live = readdirSync(dir)
    .filter((f) => f.endsWith('.live'))
    .sort();
  if (live.length === 0) {
    throw new MpiiError(
      `${dir} holds no mpii profile (no profile.mpii, no .live files)`,
      'pass the --out directory of an mpii run that used at least one tool',
    );
  }
  return { dir, live: live.map((f) => join(dir, f)) };
}

function fromGathered(dir: string, gathered: string, ranks: RankProfile[]): Profile {
  return { dir, complete: ranks.every((r) => r.state === 'finalized'), source: gathered, ranks, size: ranks.length, spawned: spawnedJobs(dir) };
}

/** How a profile is read: `onImage` sees each rank as soon as it is read (its sections still in
 *  the chunk: a tool's report can take what it needs and drop them, see CounterSection.drop);
 *  `chunk`: the bytes read at a time. */
export interface ReadOptions {
  onImage?: (rank: RankProfile) => void;
  chunk?: number;
}

/** streamGathered with its reads done by readSync. */
export function readGathered(path: string, o: ReadOptions = {}): RankProfile[] {
  const fd = openSync(path, 'r');
  try {
    const keeper = new Keeper();
    keeper.onImage = o.onImage;
    const steps = streamGathered(path, fstatSync(fd).size, o.chunk, keeper);
    for (let s = steps.next(); ;) {
      if (s.done) return restorable(path, s.value);
      const ask = s.value;
      s = steps.next(readSync(fd, ask.buf, ask.offset, ask.length, ask.position));
    }
  } finally {
    closeSync(fd);
  }
}

/** The sections an onImage hook dropped are read again from `path` when one is asked for: the
 *  whole file once, nothing dropped (a report that needs more than the hook took: slower, same result). */
function restorable(path: string, ranks: RankProfile[]): RankProfile[] {
  const dropped = (c: CounterSection): c is Counters => c instanceof Counters && c.dropped;
  if (!ranks.some((r) => r.counters.some(dropped))) return ranks;
  const restorer: Restorer = {
    restore() {
      const again = readGathered(path);
      ranks.forEach((r, i) =>
        r.counters.forEach((c, j) => {
          if (!dropped(c)) return;
          const from = again[i]?.counters[j];
          if (!(from instanceof Counters) || from.name !== c.name || from.length !== c.length) {
            throw new MpiiError(`${path} changed while it was read`, 'run mpii report again once the job has finished writing it');
          }
          c.adopt(from);
        }),
      );
    },
  };
  for (const r of ranks) for (const c of r.counters) if (dropped(c)) c.restorer = restorer;
  return ranks;
}

function fromLive(dir: string, live: string[], images: LiveImage[]): Profile {
  if (images.length === 0) {
    throw new MpiiError(
      `${dir} holds no mpii profile (no profile.mpii, no image in its .live files)`,
      'pass the --out directory of an mpii run that used at least one tool',
    );
  }
  const ranks = images.map((i) => parseImage(i.buf, i.where).rank).sort((a, b) => a.rank - b.rank);
  const size = Math.max(-1, ...ranks.map((r) => r.size));
  // .live files are normal for MPI-4 sessions (no MPI_COMM_WORLD to gather over): complete
  // when every rank finalized and none is missing
  const complete = ranks.every((r) => r.state === 'finalized') && (size < 0 || ranks.length === size);
  return { dir, complete, source: `${images.length} image(s) in ${live.length} .live file(s)`, ranks, size, spawned: spawnedJobs(dir) };
}

export function readProfile(path: string, o: ReadOptions = {}): Profile {
  const { dir, gathered, live } = locate(path);
  return gathered
    ? fromGathered(dir, gathered, readGathered(gathered, o))
    : fromLive(
        dir,
        live,
        live.flatMap((f) => liveImages(f)),
      );
}

/** The bytes readProfile would read for `path` (0 when there is no profile: readProfile says why). */
export function profileBytes(path: string): number {
  try {
    const { gathered, live } = locate(path);
    if (gathered) return statSync(gathered).size;
    // a .live file is sparse (its slots' untouched and released pages hold no blocks): what is allocated, not its length
    return live.reduce((n, f) => {
      const st = statSync(f);
      return n + Math.min(st.size, st.blocks * 512);
    }, 0);
  } catch {
    return 0;
  }
}

/** readProfile, reading in chunks with a turn of the event loop between them (a spinner keeps
 * turning) and telling `onBytes` how far it got. */
export async function readProfileAsync(path: string, onBytes: (done: number, total: number) => void = () => {}, o: ReadOptions = {}): Promise<Profile> {
  const { dir, gathered, live } = locate(path);
  if (gathered) {
    const fh = await open(gathered, 'r');
    try {
      const total = (await fh.stat()).size;
      const keeper = new Keeper();
      keeper.onImage = o.onImage;
      const steps = streamGathered(gathered, total, o.chunk, keeper);
      for (let s = steps.next(); ;) {
        if (s.done) return fromGathered(dir, gathered, restorable(gathered, s.value));
        const ask = s.value;
        const { bytesRead } = await fh.read(ask.buf, ask.offset, ask.length, ask.position);
        onBytes(Math.min(total, ask.position + bytesRead), total);
        s = steps.next(bytesRead);
      }
    } finally {
      await fh.close();
    }
  }
  const total = profileBytes(dir);
  const images: LiveImage[] = [];
  let done = 0;
  for (const f of live) {
    for (const image of liveImages(f)) {
      images.push(image);
      done += image.buf.length;
    }
    onBytes(Math.min(done, total), total);
    await new Promise<void>((r) => setImmediate(r));
  }
  return fromLive(dir, live, images);
}

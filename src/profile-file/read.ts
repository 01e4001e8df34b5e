// Reads a run's profile: the gathered profile.mpii, or the per-rank .live files a crashed run
// left behind (then the profile is marked incomplete). Layout: preload/core/profile_file.c.
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MpiiError } from '../errors.js';

export const FORMAT_VERSION = 2;
const IMAGE_MAGIC = 'MPIIRNK1';
const PROFILE_MAGIC = 'MPIIPROF';
const HEADER_SIZE = 144;
const STATES = ['running', 'finalized', 'aborted'] as const;

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
}

const TWO32 = 0x100000000;

class Counters implements CounterSection {
  private map?: Map<number, bigint>;
  /** `sparse`: entries stored at `base` as (u64 index, u64 value) pairs; -1: `length` dense values */
  constructor(public tool: number, public name: string, public labels: string[], public length: number,
    private buf: Buffer, private base: number, private sparse: number) {}

  words(): { sparse: boolean; words: Uint32Array; entries: number } {
    const sparse = this.sparse >= 0;
    const entries = sparse ? this.sparse : this.length;
    const start = this.base + (sparse ? 8 : 0);
    const n = entries * (sparse ? 4 : 2);
    const at = this.buf.byteOffset + start;
    const words = at % 4 === 0 ? new Uint32Array(this.buf.buffer, at, n)
      : new Uint32Array(Uint8Array.prototype.slice.call(this.buf, start, start + 4 * n).buffer); // unaligned: copy
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
export interface TextSection { tool: number; name: string; text: string }

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

const EV_HEAD = 8;

/** The rank's timeline from its "events" section, or undefined when it has none. */
export function parseTimeline(c: CounterSection | undefined): RankTimeline | undefined {
  if (!c || c.length < EV_HEAD) return undefined;
  const v = c.nonzero;
  const u = (i: number) => v.get(i) ?? 0n;
  const words = Number(u(0));
  if (words < 4 || words > 64) return undefined; // not a layout this reader knows (or damaged)
  // a damaged count must not make a long loop: the shim keeps 256, a later one may keep more
  const capacity = Math.min(Number(u(1)), Math.floor((c.length - EV_HEAD) / words), 1 << 16);
  const seen = Number(u(2));
  const initNs = u(3);
  const real = Buffer.alloc(8);
  real.writeBigUInt64LE(u(4));
  const endNs = u(5);
  const base = initNs || (v.get(EV_HEAD) ?? 0n); // never initialised: from its first event
  const events: TimelineEvent[] = [];
  for (let k = 0; k < Math.min(seen, capacity); k++) {
    const at = EV_HEAD + k * words;
    const kt = u(at + 1);
    if (kt === 0n) continue; // reserved, never written (the rank died in between)
    const kind = Number(kt & 0xffffffffn);
    const name = Buffer.alloc(Math.max(0, (words - 3) * 8));
    for (let w = 3; w < words; w++) name.writeBigUInt64LE(u(at + w), (w - 3) * 8);
    events.push({ t: Number(u(at) - base) / 1e9, tool: Number(kt >> 32n), kind: EVENT_KINDS[kind] ?? `event-${kind}`,
      value: Number(BigInt.asIntN(64, u(at + 2))), name: name.toString('utf8').replace(/\0.*$/s, '') });
  }
  return { init: initNs ? real.readDoubleLE(0) : null, end: endNs && initNs ? Number(endNs - initNs) / 1e9 : null,
    capacity, seen, dropped: Math.max(0, seen - capacity), events };
}

export interface RankProfile {
  rank: number;
  size: number;
  pid: number;
  host: string;
  flavor: string;
  state: (typeof STATES)[number];
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

/** The profiles of spawned jobs: the shim puts each in a "spawned-<host>-<pid>" subdirectory. */
function spawnedJobs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name.startsWith('spawned-')).map((e) => join(dir, e.name)).sort();
}

const pad8 = (n: number) => Math.ceil(n / 8) * 8; // not `& ~7`: 32-bit in JavaScript, and a corrupt length can be anything

function parseImage(buf: Buffer, where: string): { rank: RankProfile; length: number } {
  if (buf.length < HEADER_SIZE || buf.toString('latin1', 0, 8) !== IMAGE_MAGIC) {
    throw new MpiiError(`${where} is not an mpii rank profile (bad magic)`, 'point mpii report at a directory written by mpii run');
  }
  const version = buf.readUInt32LE(8);
  if (version > FORMAT_VERSION) {
    throw new MpiiError(`${where} was written by a newer mpii (format ${version}, this one reads ${FORMAT_VERSION})`, 'upgrade mpii to read it');
  }
  const used = Number(buf.readBigUInt64LE(32));
  if (used < HEADER_SIZE || used > buf.length) {
    throw new MpiiError(`${where} is truncated (${buf.length} of ${used} bytes)`, 'the file was cut short; re-run the job');
  }
  const cstr = (off: number, len: number) => buf.toString('latin1', off, off + len).replace(/\0.*$/s, '');
  const rank: RankProfile = {
    state: STATES[buf.readUInt32LE(12)] ?? 'running',
    rank: buf.readInt32LE(16),
    size: buf.readInt32LE(20),
    pid: buf.readInt32LE(24),
    tStart: buf.readDoubleLE(48),
    tEnd: buf.readDoubleLE(56),
    host: cstr(64, 64),
    flavor: cstr(128, 16),
    tools: new Map(),
    counters: [],
    texts: [],
  };
  let off = HEADER_SIZE;
  while (off + 24 <= used) {
    const kind = buf.readUInt32LE(off);
    const tool = buf.readUInt32LE(off + 4);
    const count = Number(buf.readBigUInt64LE(off + 8));
    const nameLen = buf.readUInt32LE(off + 16);
    const labelsLen = buf.readUInt32LE(off + 20);
    let p = off + 24;
    if (p + pad8(nameLen) + pad8(labelsLen) > used) throw new MpiiError(`${where} has a corrupt record at byte ${off}`, 're-run the job');
    const name = buf.toString('utf8', p, p + nameLen);
    p += pad8(nameLen);
    const labels = buf.toString('utf8', p, p + labelsLen);
    p += pad8(labelsLen);
    const sparse = kind === 4 && p + 8 <= used ? Number(buf.readBigUInt64LE(p)) : 0;
    const payload = kind === 1 ? count * 8 : kind === 2 ? count : kind === 4 ? 8 + 16 * sparse : 0;
    if (p + payload > used) throw new MpiiError(`${where} has a corrupt record at byte ${off}`, 're-run the job');
    if (kind === 1 || kind === 4) {
      rank.counters.push(new Counters(tool, name, labels ? labels.split('\n') : [], count, buf, p, kind === 4 ? sparse : -1));
    } else if (kind === 2) {
      rank.texts.push({ tool, name, text: buf.toString('utf8', p, p + count) });
    } else if (kind === 3) {
      rank.tools.set(tool, name);
    } else {
      throw new MpiiError(`${where} has an unknown record kind ${kind} at byte ${off}`, 'upgrade mpii to read it');
    }
    off = p + pad8(payload);
  }
  rank.timeline = parseTimeline(rank.counters.find((c) => c.tool === 0 && c.name === 'events'));
  return { rank, length: pad8(used) };
}

function readGathered(path: string, buf: Buffer = readFileSync(path)): RankProfile[] {
  if (buf.length < 16 || buf.toString('latin1', 0, 8) !== PROFILE_MAGIC) {
    throw new MpiiError(`${path} is not an mpii profile (bad magic)`, 'point mpii report at a directory written by mpii run');
  }
  const version = buf.readUInt32LE(8);
  if (version > FORMAT_VERSION) {
    throw new MpiiError(`${path} was written by a newer mpii (format ${version}, this one reads ${FORMAT_VERSION})`, 'upgrade mpii to read it');
  }
  const n = buf.readUInt32LE(12);
  const ranks: RankProfile[] = [];
  let off = 16;
  for (let r = 0; r < n; r++) {
    if (off >= buf.length) throw new MpiiError(`${path} is truncated: ${r} of ${n} ranks present`, 're-run the job');
    const { rank, length } = parseImage(buf.subarray(off), `${path} (rank ${r})`);
    ranks.push(rank);
    off += length;
  }
  return ranks;
}

/** A .live file is a large sparse mapping: read only the bytes its header says are used. */
function readLive(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(HEADER_SIZE);
    const got = readSync(fd, head, 0, HEADER_SIZE, 0);
    if (got < HEADER_SIZE) return head.subarray(0, got);
    const used = Math.min(Number(head.readBigUInt64LE(32)), statSync(path).size);
    const buf = Buffer.alloc(Math.max(used, HEADER_SIZE));
    readSync(fd, buf, 0, buf.length, 0);
    return buf;
  } finally {
    closeSync(fd);
  }
}

/** The run directory `path` names: the directory itself, or the one holding a profile file
 * given instead (`mpii report out/profile.mpii`, `out/rank-0.live`). */
export function profileDir(path: string): string {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new MpiiError(`profile directory ${path} does not exist`, 'pass the --out directory of an mpii run');
  }
  if (st.isDirectory()) return path;
  const name = basename(path);
  if (st.isFile() && (name === 'profile.mpii' || /^(rank|pid)-.*\.live$/.test(name))) return dirname(path);
  throw new MpiiError(`${path} is not an mpii output directory`, 'pass the --out directory of an mpii run (the one holding profile.mpii)');
}

/** Where a run's profile is: the gathered file, else the per-rank files (errors as readProfile's). */
function locate(path: string): { dir: string; gathered?: string; live: string[] } {
  const dir = profileDir(path);
  const gathered = join(dir, 'profile.mpii');
  if (existsSync(gathered) && !statSync(gathered).isFile()) {
    throw new MpiiError(`${gathered} is not a file (a ${statSync(gathered).isDirectory() ? 'directory' : 'special file'} of the profile's name)`,
      `move it away and pass the --out directory of an mpii run`);
  }
  if (existsSync(gathered)) return { dir, gathered, live: [] };
  const live = readdirSync(dir).filter((f) => f.endsWith('.live')).sort();
  if (live.length === 0) {
    throw new MpiiError(`${dir} holds no mpii profile (no profile.mpii, no rank-*.live files)`,
      'pass the --out directory of an mpii run that used at least one tool');
  }
  return { dir, live: live.map((f) => join(dir, f)) };
}

function fromGathered(dir: string, gathered: string, buf?: Buffer): Profile {
  const ranks = readGathered(gathered, buf);
  return { dir, complete: ranks.every((r) => r.state === 'finalized'), source: gathered, ranks, size: ranks.length, spawned: spawnedJobs(dir) };
}

function fromLive(dir: string, live: string[], images: Buffer[]): Profile {
  const ranks = images.map((b, i) => parseImage(b, live[i]).rank).sort((a, b) => a.rank - b.rank);
  const size = Math.max(-1, ...ranks.map((r) => r.size));
  // per-rank files are normal for MPI-4 sessions (no MPI_COMM_WORLD to gather over): complete
  // when every rank finalized and none is missing
  const complete = ranks.every((r) => r.state === 'finalized') && (size < 0 || ranks.length === size);
  return { dir, complete, source: `${live.length} per-rank file(s)`, ranks, size, spawned: spawnedJobs(dir) };
}

export function readProfile(path: string): Profile {
  const { dir, gathered, live } = locate(path);
  return gathered ? fromGathered(dir, gathered) : fromLive(dir, live, live.map(readLive));
}

/** The bytes readProfile would read for `path` (0 when there is no profile: readProfile says why). */
export function profileBytes(path: string): number {
  try {
    const { gathered, live } = locate(path);
    if (gathered) return statSync(gathered).size;
    // a .live file is a sparse mapping: what is allocated, not its length
    return live.reduce((n, f) => {
      const st = statSync(f);
      return n + Math.min(st.size, st.blocks * 512);
    }, 0);
  } catch {
    return 0;
  }
}

const CHUNK = 4 * 1024 * 1024;

/** readProfile, reading in chunks with a turn of the event loop between them (a spinner keeps
 * turning) and telling `onBytes` how far it got. */
export async function readProfileAsync(path: string, onBytes: (done: number, total: number) => void = () => {}): Promise<Profile> {
  const { dir, gathered, live } = locate(path);
  if (gathered) {
    const fh = await open(gathered, 'r');
    try {
      const total = (await fh.stat()).size;
      const buf = Buffer.allocUnsafe(total);
      let done = 0;
      while (done < total) {
        const { bytesRead } = await fh.read(buf, done, Math.min(CHUNK, total - done), done);
        if (bytesRead === 0) break; // shrank while read: parsed as truncated
        done += bytesRead;
        onBytes(done, total);
      }
      return fromGathered(dir, gathered, buf.subarray(0, done));
    } finally {
      await fh.close();
    }
  }
  const total = profileBytes(dir);
  const images: Buffer[] = [];
  let done = 0;
  for (const f of live) {
    images.push(readLive(f));
    done += images[images.length - 1].length;
    onBytes(Math.min(done, total), total);
    await new Promise<void>((r) => setImmediate(r));
  }
  return fromLive(dir, live, images);
}

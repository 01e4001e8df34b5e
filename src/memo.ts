// Answers of start-up work kept between runs: `mpii run` with a warm cache should not run ldd,
// parse YAML or hash the shim's sources again when nothing they depend on changed. An answer is
// stored with a key (the strings it was computed from: paths, environment variables) and the
// identity of every file and directory it was computed from (size, modification and change
// times in nanoseconds, inode, device); it is used only while the key is the same and every
// one of those identities still is. A cache that cannot be read or written changes nothing:
// the work is done again.
import { readFileSync, renameSync, rmSync, statSync, writeFileSync, type BigIntStats } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { makeDirs } from './fsdirs.js';

/** mpii's cache: $XDG_CACHE_HOME/mpii, else ~/.cache/mpii (the shims, and these answers under memo/). */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mpii');
}

/** A file's identity: changes whenever it is rewritten, replaced, renamed over, touched or
 * chmod-ed (ctime cannot be set back by the user, unlike mtime); 'missing' when absent. */
export function fileIdentity(path: string): string {
  return identity(statSync(path, { bigint: true, throwIfNoEntry: false }));
}

const identity = (s: BigIntStats | undefined) => (s ? `${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.ino}:${s.dev}` : 'missing');

export interface Computed<T> {
  value: T;
  /** the files and directories the value was computed from (a directory's identity changes when
   * an entry is added, removed or renamed) */
  deps: string[];
}

interface Entry<T> {
  key: string;
  deps: [path: string, identity: string][];
  value: T;
}

/** 32-bit FNV-1a of a string, in hex: the entry's file name (the key itself is checked too). */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** Timestamps of a change may lag the clock by a scheduler tick: a file changed this close to
 * the start of the work may have changed during it, and its answer is not stored. */
const RACY_NS = 100_000_000n;

/** Whether a stored entry still answers `key`: same key, every file as it was. */
export function stillValid<T>(entry: Entry<T> | undefined, key: string): entry is Entry<T> {
  return entry !== undefined && entry.key === key && Array.isArray(entry.deps) && entry.deps.every(([p, id]) => fileIdentity(p) === id);
}

/**
 * The stored answer for `kind` + `key` when it is still valid, else `compute()`'s (stored for the
 * next run unless one of its files changed while it was computed). `dir` undefined: no cache.
 * `now` is injectable for tests (nanoseconds since the epoch).
 */
export function memoized<T>(
  dir: string | undefined,
  kind: string,
  key: string,
  compute: () => Computed<T>,
  now: () => bigint = () => BigInt(Date.now()) * 1_000_000n,
): T {
  if (dir === undefined) return compute().value;
  const file = join(dir, 'memo', `${kind}-${fnv1a(key)}.json`);
  let entry: Entry<T> | undefined;
  try {
    entry = JSON.parse(readFileSync(file, 'utf8')) as Entry<T>;
  } catch {
    entry = undefined;
  }
  if (stillValid(entry, key)) return entry.value;
  const started = now();
  const { value, deps } = compute();
  const stats = [...new Set(deps)].map((p) => [p, statSync(p, { bigint: true, throwIfNoEntry: false })] as const);
  if (stats.some(([, s]) => s && s.ctimeNs > started - RACY_NS)) return value;
  const fresh: Entry<T> = { key, deps: stats.map(([p, s]) => [p, identity(s)]), value };
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    makeDirs(join(dir, 'memo')); // not mkdirSync's recursive mode: it spins under /proc
    writeFileSync(tmp, JSON.stringify(fresh));
    renameSync(tmp, file); // atomic: a concurrent run reads the old entry or the new one
  } catch {
    // a cache we cannot write: the answer is simply not kept
    try {
      rmSync(tmp, { force: true });
    } catch {
      /* its directory is not there either */
    }
  }
  return value;
}

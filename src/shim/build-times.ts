// How long the last build of each kind took (the general shim of an MPI, a stack's specialised
// shim), kept in the cache so that a build can say up front what it will cost: a user who sees
// nothing for a minute cannot tell a compile from a hang (`--quiet` included).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildReason } from './shim.js';

const file = (cache: string) => join(cache, 'build-seconds.json');

export function lastBuildSeconds(cache: string, kind: BuildReason['kind']): number | undefined {
  try {
    const v = (JSON.parse(readFileSync(file(cache), 'utf8')) as Record<string, unknown>)[kind];
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export function recordBuildSeconds(cache: string, kind: BuildReason['kind'], seconds: number): void {
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(readFileSync(file(cache), 'utf8')) as Record<string, unknown>;
  } catch {
    // none yet, or unreadable: start again
  }
  all[kind] = Math.round(seconds);
  try {
    writeFileSync(file(cache), `${JSON.stringify(all)}\n`);
  } catch {
    // a read-only cache only loses the estimate
  }
}

/** The one line a build prints before it starts, even under --quiet. */
export function buildNotice(r: BuildReason, last: number | undefined): string {
  const took = last === undefined ? '' : `; the last one took ${last} s`;
  return `mpii: building ${r.what} (${r.why}${took}); the job starts when it is done`;
}

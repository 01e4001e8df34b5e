// The detached process `mpii run` starts to build in the background (background.ts):
// `node background-main.js <flavor> stack|general <key>|- <tool>…`, holding the lock its run
// handed it, output to the build's log in the cache. `stack`: the stack's compiled-in shim next to
// the general one. `general`: the first run on an MPI started on a quick shim; the general shim of
// cache key <key> is built first, then the stack's compiled-in shim if the run named its tools.
// Ended by a signal, it takes its work directory and its lock with it; killed outright, it leaves
// both to the next build (build-lock.ts: stale).
import { builtinManifests } from '../tools/manifest.js';
import type { ShimFlavor } from '../mpi/flavors.js';
import { cacheRoot } from '../memo.js';
import { buildShim } from './shim.js';
import { ensureSpecialised } from './specialise.js';
import { recordBuildSeconds } from './build-times.js';
import { backgroundLock, recordFailure, type BackgroundBuild } from './background.js';
import { releaseLock } from './build-lock.js';

const [flavor, kind, key, ...names] = process.argv.slice(2) as [ShimFlavor, 'stack' | 'general', string, ...string[]];
for (const [sig, n] of [
  ['SIGINT', 2],
  ['SIGTERM', 15],
  ['SIGHUP', 1],
] as const)
  process.on(sig, () => process.exit(128 + n));
const env = process.env;
const manifests = builtinManifests();
const tools = names.map((n) => manifests.find((m) => m.name === n)!);
const general = kind === 'general';
// the build this process was handed: its lock and its failure record (a stack's: known once its
// general shim, cached, is read)
let job: BackgroundBuild | undefined = general ? { kind, flavor, cache: cacheRoot(env), key, tools } : undefined;
try {
  let t0 = Date.now();
  const shim = await buildShim(flavor, { env, lockHeld: general }); // a stack's: cached, its run made it
  if (general && !shim.fromCache) recordBuildSeconds(cacheRoot(env), 'shim', (Date.now() - t0) / 1000);
  job ??= { kind: 'stack', shim, tools };
  if (tools.length) {
    t0 = Date.now();
    // the general build holds the general shim's lock, not the stack's: it takes that one
    const built = await ensureSpecialised(shim, tools, { env, lockHeld: !general });
    if (!built.fromCache) recordBuildSeconds(cacheRoot(env), 'stack', (Date.now() - t0) / 1000);
  }
} catch (e) {
  const why = (e as Error).message;
  process.stderr.write(`mpii: ${why}\n`);
  if (job) recordFailure(job, why);
  process.exitCode = 1;
} finally {
  if (job) releaseLock(backgroundLock(job)); // also when it was built already
}

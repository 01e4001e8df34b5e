// The detached process `mpii run` starts to build in the background (background.ts):
// `node background-main.js <flavor> stack|general:<key>:<quick library> <tool>…`, holding the lock
// its run handed it, output to the build's log in the cache. `stack`: the stack's compiled-in shim
// next to the general one. `general:…`: the first run on an MPI started on a quick shim; the
// general shim is built first, then the stack's compiled-in shim if the run named its tools.
// Ended by a signal, it takes its work directory and its lock with it; killed outright, it leaves
// both to the next build (build-lock.ts: stale).
import { builtinManifests } from '../tools/manifest.js';
import type { FlavorName } from '../mpi/flavors.js';
import { cacheRoot } from '../memo.js';
import { buildShim, type Shim } from './shim.js';
import { ensureSpecialised } from './specialise.js';
import { recordBuildSeconds } from './build-times.js';
import { backgroundLock, recordFailure, type BackgroundBuild } from './background.js';
import { releaseLock } from './build-lock.js';

const [flavor, what, ...names] = process.argv.slice(2) as [FlavorName, string, ...string[]];
for (const [sig, n] of [
  ['SIGINT', 2],
  ['SIGTERM', 15],
  ['SIGHUP', 1],
] as const)
  process.on(sig, () => process.exit(128 + n));
const env = process.env;
const manifests = builtinManifests();
const tools = names.map((n) => manifests.find((m) => m.name === n)!);
const general = what.startsWith('general:');
const [, key, quickLibrary] = general ? what.split(':') : [];
// the build this process was handed: its lock and its failure record
const job: BackgroundBuild = general
  ? { kind: 'general', key, tools, shim: { flavor, library: quickLibrary } as Shim }
  : { kind: 'stack', tools, shim: undefined as unknown as Shim };
try {
  let t0 = Date.now();
  const shim = await buildShim(flavor, { env, lockHeld: general }); // a stack's: cached, its run made it
  if (general && !shim.fromCache) recordBuildSeconds(cacheRoot(env), 'shim', (Date.now() - t0) / 1000);
  if (!general) job.shim = shim;
  if (tools.length) {
    t0 = Date.now();
    // the general build holds the general shim's lock, not the stack's: it takes that one
    const built = await ensureSpecialised(shim, tools, { env, lockHeld: !general });
    if (!built.fromCache) recordBuildSeconds(cacheRoot(env), 'stack', (Date.now() - t0) / 1000);
  }
} catch (e) {
  const why = (e as Error).message;
  process.stderr.write(`mpii: ${why}\n`);
  if (job.shim) recordFailure(job, why);
  process.exitCode = 1;
} finally {
  if (job.shim) releaseLock(backgroundLock(job)); // also when it was built already
}

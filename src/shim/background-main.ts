// The detached process `mpii run` starts to build a stack's compiled-in shim (background.ts):
// `node background-main.js <flavor> <tool>…`, holding the stack's lock its run handed it, output
// to the stack's log in the cache. Ended by a signal, it takes its work directory and its lock
// with it; killed outright, it leaves both to the next build (build-lock.ts: stale).
import { builtinManifests } from '../tools/manifest.js';
import type { FlavorName } from '../mpi/flavors.js';
import { cacheRoot } from '../memo.js';
import { buildShim } from './shim.js';
import { ensureSpecialised } from './specialise.js';
import { recordBuildSeconds } from './build-times.js';
import { recordFailure } from './background.js';
import { lockPath, releaseLock } from './build-lock.js';
import { stackName } from '../gen/specialised-c.js';
import { dirname } from 'node:path';

const [flavor, ...names] = process.argv.slice(2) as [FlavorName, ...string[]];
for (const [sig, n] of [
  ['SIGINT', 2],
  ['SIGTERM', 15],
  ['SIGHUP', 1],
] as const)
  process.on(sig, () => process.exit(128 + n));
const env = process.env;
const manifests = builtinManifests();
const tools = names.map((n) => manifests.find((m) => m.name === n)!);
const general = await buildShim(flavor, { env }); // cached: its run made it
const t0 = Date.now();
try {
  const built = await ensureSpecialised(general, tools, { env, lockHeld: true });
  if (!built.fromCache) recordBuildSeconds(cacheRoot(env), 'stack', (Date.now() - t0) / 1000);
} catch (e) {
  const why = (e as Error).message;
  process.stderr.write(`mpii: ${why}\n`);
  recordFailure(general, tools, why);
  process.exitCode = 1;
} finally {
  releaseLock(lockPath(dirname(general.library), stackName(tools))); // also when it was built already
}

// A specialised shim: the general shim's objects, but the MPI_X entry points and the stack's tools
// compiled together into one translation unit (src/gen/specialised-c.ts), so that each tool calls
// the next one directly. Built once per stack next to the general shim whose other objects it
// links (same cache key directory: the same sources, the same MPI), in spec-<tools>/. It compiles
// the generated wrappers once more, with the tools: less than the general shim's whole build.
// One process builds a stack at a time (build-lock.ts); the others wait for it or, in `mpii run`,
// run chained meanwhile (background.ts).
import { chmodSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { makeDirs } from '../fsdirs.js';
import { dirname, join } from 'node:path';
import { MpiiError } from '../errors.js';
import type { ToolManifest } from '../tools/manifest.js';
import { specHeader, specSource, stackName } from '../gen/specialised-c.js';
import { acquireLock, lockHolder, lockPath, releaseLock, removeDeadWork, waitForLock, workPrefix } from './build-lock.js';
import { clearFailure } from './background.js';
import { compileObject } from './object-cache.js';
import { cacheRoot, compileArgs, compileCommand, linkArgs, probe, type BuildOptions, type Shim } from './shim.js';

/** Where the specialised shim of `tools` is built for the general shim `shim`: next to it, or for
 *  a shim of the system cache in the user's cache (shim.home). */
export function specialisedDir(shim: Shim, tools: ToolManifest[]): string {
  return join(shim.home, `spec-${stackName(tools)}`);
}

/** The specialised shim of `tools` if it is cached (a whole one: it is renamed into place): next
 *  to the general shim (prebuilt with it in the system cache, or built there), else in its home. */
export function cachedSpecialised(shim: Shim, tools: ToolManifest[]): Shim | undefined {
  const library = [dirname(shim.library), shim.home].map((d) => join(d, `spec-${stackName(tools)}`, 'libmpii.so')).find((l) => existsSync(l));
  return library ? { ...shim, library, fromCache: true } : undefined;
}

export type SpecialiseOptions = BuildOptions;

/** The specialised shim of `tools` next to the general shim `shim` (buildShim's): made if
 *  missing (or --force); if another process is making it, its build is awaited and used. */
export async function ensureSpecialised(shim: Shim, tools: ToolManifest[], opts: SpecialiseOptions): Promise<Shim> {
  const cached = opts.force ? undefined : cachedSpecialised(shim, tools);
  if (cached) return { ...cached, fromCache: shim.fromCache };
  const final = specialisedDir(shim, tools);
  const library = join(final, 'libmpii.so');
  makeDirs(shim.home); // the user's directory for a shim of the system cache
  const lock = lockPath(shim.home, stackName(tools));
  if (!opts.lockHeld) {
    let told = false;
    while (!acquireLock(lock)) {
      const holder = lockHolder(lock);
      if (holder !== undefined && !told) await opts.onWait?.(holder, `the stack ${stackName(tools)} compiled into one wrapper per function`);
      told = true;
      await waitForLock(lock, () => existsSync(library));
      if (!opts.force && existsSync(library)) return { ...shim, library };
    }
  }
  const release = () => releaseLock(lock);
  process.on('exit', release); // a signal mid-build (see runCommand) leaves no lock held by no one
  try {
    if (!opts.force && existsSync(library)) return { ...shim, library }; // built while this one waited
    return await build(shim, tools, opts, final);
  } finally {
    release();
    process.off('exit', release);
  }
}

async function build(shim: Shim, tools: ToolManifest[], opts: SpecialiseOptions, final: string): Promise<Shim> {
  const dir = dirname(shim.library); // the general shim's objects and generated headers
  const library = join(final, 'libmpii.so');
  const env = opts.env ?? process.env;
  const pr = await probe(shim.flavor, cacheRoot(env), env); // remembered: a file read
  const step = opts.onStep ?? (() => {});
  await opts.beforeBuild?.({
    kind: 'stack',
    what: `the stack ${stackName(tools)} compiled into one wrapper per function`,
    why: opts.force ? '--force' : 'its first run with this shim',
  });
  const { execa } = await import('execa');
  removeDeadWork(shim.home); // what killed builds left
  // named after this process, so that a later build knows whether its owner is still there
  const work = mkdtempSync(workPrefix(shim.home, stackName(tools)));
  chmodSync(work, 0o755); // mkdtemp's 0700 would hide a system cache's stack from its users
  const dropWork = () => rmSync(work, { recursive: true, force: true });
  process.on('exit', dropWork);
  try {
    step(`compiling the stack ${stackName(tools)} into one wrapper per function`);
    writeFileSync(join(work, 'mpii_spec.h'), specHeader(tools));
    writeFileSync(join(work, 'mpii_spec.c'), specSource(tools));
    const obj = join(work, 'mpii_spec.o');
    const [cc, cflags] = compileCommand(pr);
    const src = join(work, 'mpii_spec.c');
    await compileObject(execa, cc, [...cflags, ...compileArgs(src, obj, join(dir, 'gen'), ['-g1', '-I', work])], src, obj, env);
    // the general shim's objects (numbered: `N-name.o`) but its entry points and these tools'
    // wrapper sources, which the translation unit above holds
    const replaced = new Set(['mpii_wrappers.o', ...tools.map((t) => t.specialise!.replace(/\.c$/, '.o'))]);
    const objects = readdirSync(dir)
      .filter((f) => /^\d+-.*\.o$/.test(f) && !replaced.has(f.replace(/^\d+-/, '')))
      .map((f) => join(dir, f));
    step('linking (without libmpi)');
    await execa(pr.cc, linkArgs(join(work, 'libmpii.so'), [obj, ...objects, join(dir, 'site_path.o')]), { env });
    rmSync(obj); // linked: the sources stay, to read what was compiled
    if (opts.force) rmSync(final, { recursive: true, force: true });
    // the whole directory in one rename: a run sees no libmpii.so or a complete one
    try {
      renameSync(work, final);
    } catch (e) {
      if (!existsSync(library)) throw e; // another build of the same stack won the race: fine
      dropWork();
    }
    clearFailure({ kind: 'stack', shim, tools }); // what a failed background build of it said is past
    return { ...shim, library, fromCache: false };
  } catch (e) {
    dropWork();
    const err = e as { stderr?: string; message: string };
    const detail = (err.stderr ?? '').split('\n').find((l) => /error/i.test(l)) ?? err.message.split('\n')[0];
    throw new MpiiError(
      `building the specialised shim of ${stackName(tools)} failed: ${detail}`,
      'run with --chained (the tools through the QMPI chain), and report this',
    );
  } finally {
    process.off('exit', dropWork);
  }
}

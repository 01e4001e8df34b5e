// A specialised shim: the general shim's objects, but the MPI_X entry points and the stack's tools
// compiled together into one translation unit (src/tools/gen-spec.ts), so that each tool calls
// the next one directly. Built once per stack next to the general shim whose other objects it
// links (same cache key directory: the same sources, the same MPI), in spec-<tools>/. It compiles
// the generated wrappers once more, with the tools: less than the general shim's whole build.
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MpiiError } from '../errors.js';
import type { ToolManifest } from '../tools/manifest.js';
import { specHeader, specSource, stackName } from '../tools/gen-spec.js';
import { cacheRoot, compileArgs, probe, type BuildOptions, type Shim } from './shim.js';

/** The specialised shim of `tools` next to the general shim `shim` (buildShim's): made if
 *  missing (or --force). */
export async function ensureSpecialised(shim: Shim, tools: ToolManifest[], opts: BuildOptions): Promise<Shim> {
  const dir = dirname(shim.library);
  const final = join(dir, `spec-${stackName(tools)}`);
  const library = join(final, 'libmpii.so');
  if (!opts.force && existsSync(library)) return { ...shim, library };
  const env = opts.env ?? process.env;
  const pr = await probe(shim.flavor, cacheRoot(env), env); // remembered: a file read
  const step = opts.onStep ?? (() => {});
  await opts.beforeBuild?.({ kind: 'stack', what: `the stack ${stackName(tools)} compiled into one wrapper per function`,
    why: opts.force ? '--force' : 'its first run with this shim' });
  const { execa } = await import('execa');
  const work = mkdtempSync(join(dir, '.spec-'));
  try {
    step(`compiling the stack ${stackName(tools)} into one wrapper per function`);
    writeFileSync(join(work, 'mpii_spec.h'), specHeader(tools));
    writeFileSync(join(work, 'mpii_spec.c'), specSource(tools));
    const obj = join(work, 'mpii_spec.o');
    await execa(pr.compiler, compileArgs(join(work, 'mpii_spec.c'), obj, join(dir, 'gen'), ['-g1', '-I', work]), { env });
    // the general shim's objects (numbered: `N-name.o`) but its entry points and these tools'
    // wrapper sources, which the translation unit above holds
    const replaced = new Set(['mpii_wrappers.o', ...tools.map((t) => t.specialise!.replace(/\.c$/, '.o'))]);
    const objects = readdirSync(dir).filter((f) => /^\d+-.*\.o$/.test(f) && !replaced.has(f.replace(/^\d+-/, ''))).map((f) => join(dir, f));
    step('linking (without libmpi)');
    await execa(pr.cc, ['-shared', '-o', join(work, 'libmpii.so'), obj, ...objects, join(dir, 'site_path.o'), '-ldl', '-lpthread',
      '-Wl,-Bsymbolic-functions', '-Wl,-soname,libmpii.so'], { env });
    rmSync(obj); // linked: the sources stay, to read what was compiled
    if (opts.force) rmSync(final, { recursive: true, force: true });
    try {
      renameSync(work, final);
    } catch (e) {
      if (!existsSync(library)) throw e; // another build of the same stack won the race: fine
      rmSync(work, { recursive: true, force: true });
    }
    return { ...shim, library, fromCache: false };
  } catch (e) {
    rmSync(work, { recursive: true, force: true });
    const err = e as { stderr?: string; message: string };
    const detail = (err.stderr ?? '').split('\n').find((l) => /error/i.test(l)) ?? err.message.split('\n')[0];
    throw new MpiiError(`building the specialised shim of ${stackName(tools)} failed: ${detail}`,
      'run with --chained (the tools through the QMPI chain), and report this');
  }
}

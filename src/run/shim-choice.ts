// Which shim a run uses, and why a stack runs chained when it does. A stack whose compiled-in
// shim is cached runs from it; else, unless MPII_BUILD=wait, the run starts at once from the
// general shim (the same tools through the QMPI chain) and the compiled-in one is built in the
// background for the next run: the plan says so, the executor starts that build (a dry run
// starts nothing). The very first run on an MPI, with no general shim cached either, starts on a
// quick shim of the stack's built-in tools and builds the general shim in the background first.
import type { ToolInstance } from '../config/resolve.js';
import { ENV } from '../environment.gen.js';
import type { ShimFlavor } from '../mpi/flavors.js';
import { buildMode } from '../shim/background.js';
import type { Shim } from '../shim/shim.js';
import { cachedSpecialised } from '../shim/specialise.js';
import { stackName, unspecialisable } from '../gen/specialised-c.js';
import type { ToolManifest } from '../tools/manifest.js';

/** Builds (or finds in the cache) the general shim, with `specialise` the stack's compiled-in
 * one, or with `quick` a quick shim of those tools: src/cli/shim-build.ts's buildWithSpinner,
 * with its progress. */
export type BuildShim = (
  flavor: ShimFlavor,
  quiet: boolean,
  env: NodeJS.ProcessEnv,
  force: boolean,
  specialise?: ToolManifest[],
  quick?: ToolManifest[],
) => Promise<Shim>;

/** Whether the general shim of `flavor` is cached, and its cache key (shim.ts, cachedGeneral). */
export type GeneralCached = (flavor: ShimFlavor, env: NodeJS.ProcessEnv) => Promise<{ cached: boolean; key: string }>;

export interface ShimChoice {
  shim: Shim;
  /** the stack could run compiled in (its tools' manifests) */
  specialise?: ToolManifest[];
  /** why the stack runs through the QMPI chain (undefined: compiled in) */
  chained?: string;
  /** the compiled-in shim to build in the background for the next run */
  background?: ToolManifest[];
  /** the first run on this MPI: `shim` is a quick shim, and the general shim of this cache key
   *  is built in the background first (then `background`'s stack, if any) */
  general?: string;
}

/** A stack of built-in tools runs compiled into one wrapper per function unless --chained,
 * MPII_SPECIALISE=0 (every run) or a tool without a specialised form says otherwise. */
export function chainedBecause(chained: boolean, tools: ToolInstance[], env: NodeJS.ProcessEnv): string | undefined {
  return chained ? '--chained' : env[ENV.MPII_SPECIALISE] === '0' ? `${ENV.MPII_SPECIALISE}=0` : unspecialisable(tools);
}

export async function chooseShim(
  flavor: ShimFlavor,
  o: { quiet: boolean; dryRun: boolean; chained: boolean },
  tools: ToolInstance[],
  env: NodeJS.ProcessEnv,
  build: BuildShim,
  generalCached: GeneralCached,
): Promise<ShimChoice> {
  const mode = buildMode(env); // a bad MPII_BUILD is refused whatever the stack
  const chained = chainedBecause(o.chained, tools, env);
  const quiet = o.quiet || o.dryRun;
  const specialise = chained === undefined ? tools.map((t) => t.manifest!) : undefined;
  if (mode === 'background') {
    const general = await generalCached(flavor, env);
    if (!general.cached) {
      // the very first run on this MPI: a quick shim of this stack's built-in tools now, the
      // general shim (and the stack's compiled-in one) in the background for the next run
      const builtins = tools.filter((t) => t.kind === 'builtin').map((t) => t.manifest!);
      const shim = await build(flavor, quiet, env, false, undefined, builtins);
      const why = 'the first run on this MPI: a quick shim while the full one builds in the background';
      if (o.dryRun) return { shim, specialise, chained: 'the first run on this MPI: a quick shim (a run builds the full one in the background)' };
      return { shim, specialise, chained: why, background: specialise ?? [], general: general.key };
    }
  }
  if (chained !== undefined) return { shim: await build(flavor, quiet, env, false), chained };
  if (mode === 'wait') return { shim: await build(flavor, quiet, env, false, specialise), specialise };
  const general = await build(flavor, quiet, env, false);
  const cached = cachedSpecialised(general, specialise!);
  if (cached) return { shim: cached, specialise };
  const stack = stackName(specialise!);
  if (o.dryRun) return { shim: general, specialise, chained: `the compiled-in stack ${stack} is not built yet: a run builds it in the background` };
  return { shim: general, specialise, chained: `the compiled-in stack ${stack} builds in the background`, background: specialise };
}

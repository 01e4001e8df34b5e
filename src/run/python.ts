// A Python program's ranks: the call-site helper built for its interpreter (MPII_PYSITE), mpi4py's
// own variables, and the MPI library under the soname its extension asks for (a link in mpii's
// cache, first on LD_LIBRARY_PATH). `pythonSites` builds (before the plan), `pythonPlan` is pure
// (part of planRun), `linkAbiName` makes the link (the executor).
import { mkdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Detected } from '../mpi/detect.js';
import { ENV } from '../environment.gen.js';
import type { PythonSites } from '../shim/python-sites.js';

/** The helper a Python program's ranks load, or why there is none; `given`: the user's MPII_PYSITE
 * (a path, or empty for none), which wins. */
export type SitesFact = PythonSites | { given: string };

/** A Python program's ranks name the Python line of each MPI call: the helper built for its
 * interpreter (a value the user set wins). Built only for Python programs. */
export async function pythonSites(include: string | undefined, env: NodeJS.ProcessEnv): Promise<SitesFact> {
  const given = env[ENV.MPII_PYSITE];
  if (given !== undefined) return { given };
  const { buildPythonSites } = await import('../shim/python-sites.js'); // Python programs only
  return buildPythonSites(include, env);
}

export interface AbiLink {
  /** the link, named as the extension asks (in mpii's cache) */
  path: string;
  /** the MPI library it names */
  target: string;
}

export interface PythonPart {
  vars: Record<string, string>;
  links: AbiLink[];
  notes: string[];
}

/** What a Python program adds to the ranks' variables, in the order they are given to the
 * launcher, the links to make before the launch and the notes for the banner. */
export function pythonPlan(python: NonNullable<Detected['python']>, sites: SitesFact, env: NodeJS.ProcessEnv, cacheDir: string): PythonPart {
  const vars: Record<string, string> = {};
  const links: AbiLink[] = [];
  const notes: string[] = [];
  if ('given' in sites) vars[ENV.MPII_PYSITE] = sites.given;
  else if ('library' in sites) vars[ENV.MPII_PYSITE] = sites.library;
  else notes.push(`call sites show mpi4py's C frames, not Python lines: ${sites.problem}`);
  // mpi4py's run-time settings (MPI4PY_RC_THREAD_LEVEL=single …) reach the ranks on both launchers
  for (const [k, v] of Object.entries(env)) if (k.startsWith('MPI4PY_') && v !== undefined) vars[k] = v;
  // mpi4py 4 picks its ABI by looking for MPI symbols in the process, where the shim's wrappers
  // would make any MPI look like MPICH: the ranks are told the choice mpi4py made without the shim
  if (python.abi && env[ENV.MPI4PY_MPIABI] === undefined && env.MPI4PY_LIBMPI === undefined) vars[ENV.MPI4PY_MPIABI] = python.abi;
  if (python.abiLink) {
    // the ranks find the MPI library under the soname the extension asks for
    const dir = join(cacheDir, 'abi-names');
    links.push({ path: join(dir, python.abiLink.soname), target: python.abiLink.target });
    vars[ENV.LD_LIBRARY_PATH] = [dir, env[ENV.LD_LIBRARY_PATH]].filter(Boolean).join(':');
    notes.push(`the extension needs ${python.abiLink.soname}, which this system names ${basename(python.abiLink.target)}: the ranks find it in ${dir}`);
  }
  return { vars, links, notes };
}

/** Makes (or keeps) the link, atomically for a concurrent run. */
export function linkAbiName(link: AbiLink): void {
  mkdirSync(join(link.path, '..'), { recursive: true });
  let current: string | undefined;
  try {
    current = readlinkSync(link.path);
  } catch {
    current = undefined;
  }
  if (current === link.target) return;
  const tmp = `${link.path}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  symlinkSync(link.target, tmp);
  renameSync(tmp, link.path);
}

// Builds the Python call-site helper (preload/python/pysite.c) against one interpreter's headers,
// cached by the source, the headers' version and the compiler: a warm run compiles nothing.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { cacheRoot } from './shim.js';
import { PRELOAD_DIR } from '../paths.js';

const SOURCE = join(PRELOAD_DIR, 'python', 'pysite.c');

export type PythonSites = { library: string } | { problem: string };

/** The helper for the interpreter whose Python.h is in `include`, or why there is none. */
export function buildPythonSites(include: string | undefined, env: NodeJS.ProcessEnv, publicApi = false): PythonSites {
  if (!include || !existsSync(join(include, 'Python.h'))) {
    return {
      problem: `the interpreter's C headers are not installed${include ? ` (no ${include}/Python.h)` : ''}: apt-get install python3-dev (or the -dev package of that Python) for Python call sites`,
    };
  }
  const h = createHash('sha256');
  h.update(readFileSync(SOURCE));
  h.update(include);
  for (const f of ['Python.h', 'patchlevel.h', 'pyconfig.h']) {
    try {
      const s = statSync(join(include, f));
      h.update(`${f}:${s.size}:${s.mtimeMs}`);
    } catch {
      /* pyconfig.h may live elsewhere (multiarch): Python.h's stamp suffices */
    }
  }
  h.update(publicApi ? 'public' : 'fast');
  const dir = cacheRoot(env);
  const library = join(dir, `pysite-${h.digest('hex').slice(0, 16)}.so`);
  if (existsSync(library)) return { library };
  mkdirSync(dir, { recursive: true });
  const tmp = `${library}.${process.pid}.tmp`;
  const cc = env.CC || 'cc';
  const r = spawnSync(cc, ['-shared', '-fPIC', '-O2', '-g', '-Wall', '-I', include, ...(publicApi ? ['-DMPII_PYSITE_PUBLIC_API'] : []), '-o', tmp, SOURCE], {
    env,
    encoding: 'utf8',
  });
  if (r.status !== 0) {
    rmSync(tmp, { force: true });
    const why = (r.stderr || r.error?.message || '').split('\n').find((l) => /error/i.test(l)) ?? `exit ${r.status}`;
    return { problem: `the Python call-site helper does not compile against ${include} (${why.trim()})` };
  }
  renameSync(tmp, library); // atomic: a concurrent run sees the old state or the whole file
  return { library };
}

// What `mpii run` knows about a job that the ranks' profile does not hold: the command line, the
// MPI library's version string, the tools with their options, the program's identity. Written
// into the output directory before the launch as `.mpii-run-info.json` (the `.mpii-run-` prefix
// keeps it out of the "empty output directory" check of `mpii run`); the report reads it when
// it is there (a program linked with `mpii install`'s wrappers has none).
import { createRequire } from 'node:module';
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { basename, delimiter, isAbsolute, join, resolve } from 'node:path';
import { memoized } from '../memo.js';

export const RUN_INFO_FILE = '.mpii-run-info.json';

export interface RunInfo {
  /** mpii's own version */
  mpii: string;
  /** the program and its arguments, as given */
  command: string[];
  /** the launcher options mpii passed on (-np 4, --hostfile …) and the launcher's name */
  launcher: string;
  launcherArgs: string[];
  cwd: string;
  /** e.g. "Open MPI 4.1.4" (the MPI library the shim was built against) */
  mpi: string;
  flavor: string;
  /** the stack, outermost first, with the options given to each tool */
  tools: { name: string; options: Record<string, string | number | boolean> }[];
  /** the program file: absolute path, size, modification time and SHA-256 (absent when not found) */
  program?: { path: string; size: number; mtime: string; sha256: string };
  /** ISO time mpii started the launcher */
  started: string;
}

const HASH_LIMIT = 1 << 30; // larger files are named by size and time only

/** The program's file: as given (relative to cwd), else found on PATH. */
export function programFile(program: string, cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  const candidates =
    program.includes('/') || isAbsolute(program)
      ? [resolve(cwd, program)]
      : (env.PATH ?? '')
          .split(delimiter)
          .filter(Boolean)
          .map((d) => join(d, program));
  return candidates.find((c) => {
    try {
      return statSync(c).isFile();
    } catch {
      return false;
    }
  });
}

function sha256(path: string, size: number): string {
  if (size > HASH_LIMIT) return '';
  // node:crypto is loaded only here: a warm run remembers the hash (programIdentity)
  const h = (createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto')).createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) h.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}

/** The program's identity; for `python3 script.py`, the script's. The hash is remembered in
 * `cacheDir` against the file's identity (a rebuilt program is hashed again). */
export function programIdentity(command: string[], cwd: string, env: NodeJS.ProcessEnv, cacheDir?: string): RunInfo['program'] {
  const script = /^python[\d.]*$/.test(basename(command[0] ?? '')) && /\.py$/.test(command[1] ?? '');
  const path = script ? programFile(`./${command[1]}`.replace(/^\.\/\//, '/'), cwd, env) : programFile(command[0] ?? '', cwd, env);
  if (!path) return undefined;
  try {
    const st = statSync(path);
    const hash = memoized(cacheDir, 'sha256', path, () => ({ value: sha256(path, st.size), deps: [path] }));
    return { path, size: st.size, mtime: st.mtime.toISOString(), sha256: hash };
  } catch {
    return undefined;
  }
}

/** Best effort: a run whose directory cannot take the file still runs (the report says less). */
export function writeRunInfo(outDir: string, info: RunInfo): void {
  try {
    writeFileSync(join(outDir, RUN_INFO_FILE), `${JSON.stringify(info, null, 2)}\n`);
  } catch {
    // the header will say "not recorded"
  }
}

export function readRunInfo(dir: string): RunInfo | undefined {
  const path = join(dir, RUN_INFO_FILE);
  if (!existsSync(path)) return undefined;
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as RunInfo;
    return v && Array.isArray(v.command) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** mpii's version from its package.json. */
export function mpiiVersion(root: string): string {
  try {
    return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string }).version ?? '?';
  } catch {
    return '?';
  }
}

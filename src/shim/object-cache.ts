// Compiled objects shared between shim builds (MPII_OBJECT_CACHE=DIR, off when unset): a build
// that compiles a source the same way as an earlier one (the same compiler, the same flags, the
// same text after the preprocessor) takes the earlier object instead of compiling it again. The
// shim caches of several users, of a container rebuilt from nothing or of a test suite's private
// directories then compile each of the large sources (profile.c and memcheck.c are three quarters
// of a general shim's build) once. The key is the preprocessor's output, so where the source or
// its headers live does not matter: a copy of mpii elsewhere reuses the objects of the files it
// did not change (their debug information names the first place; a shim's build directory is
// renamed after the build anyway).
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ENV } from '../environment.gen.js';

type Execa = (file: string, args: string[], o: { env: NodeJS.ProcessEnv; maxBuffer?: number }) => Promise<{ stdout: string }>;

/** The object cache's directory, or undefined when objects are not shared. */
export const objectCacheDir = (env: NodeJS.ProcessEnv): string | undefined => env[ENV.MPII_OBJECT_CACHE] || undefined;

/** What decides an object besides the preprocessed text: the compile's flags without the
 *  source, the output and the include directories (which only the preprocessor reads). */
export function keyFlags(args: string[], src: string): string[] {
  const flags: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-o' || a === '-I') i++;
    else if (a !== src && !a.startsWith('-I')) flags.push(a);
  }
  return flags;
}

/** The preprocessor's output without its line markers (`# 12 "/path/file.h"`): the text the
 *  compiler sees, wherever its files are. */
export const withoutLineMarkers = (text: string): string => text.replace(/^# \d+ ".*$/gm, '');

const compilerIds = new Map<string, Promise<string>>();
/** The compiler, as it describes itself (its version and target), once per process. */
function compilerId(execa: Execa, cc: string, env: NodeJS.ProcessEnv): Promise<string> {
  let id = compilerIds.get(cc);
  if (!id) {
    id = Promise.all([execa(cc, ['--version'], { env }), execa(cc, ['-dumpmachine'], { env })]).then(([v, m]) => `${v.stdout}\n${m.stdout}`);
    compilerIds.set(cc, id);
  }
  return id;
}

/** The object cache's key of compiling `src` with `cc args`. */
export async function objectKey(execa: Execa, cc: string, args: string[], src: string, env: NodeJS.ProcessEnv): Promise<string> {
  const pre = args.filter((a, i) => a !== '-c' && a !== '-o' && args[i - 1] !== '-o');
  const text = (await execa(cc, [...pre, '-E'], { env, maxBuffer: 1 << 30 })).stdout;
  return createHash('sha256')
    .update(await compilerId(execa, cc, env))
    .update('\0')
    .update(keyFlags(args, src).join('\0'))
    .update('\0')
    .update(withoutLineMarkers(text))
    .digest('hex');
}

/** Compiles `src` into `obj` (`args` hold both), or takes the object an earlier build made the
 *  same way; says which. Without MPII_OBJECT_CACHE, just compiles. A cache that cannot be read or
 *  written only costs the compile. */
export async function compileObject(
  execa: Execa,
  cc: string,
  args: string[],
  src: string,
  obj: string,
  env: NodeJS.ProcessEnv,
): Promise<'compiled' | 'cached'> {
  const dir = objectCacheDir(env);
  if (!dir) {
    await execa(cc, args, { env });
    return 'compiled';
  }
  const stored = join(dir, `${await objectKey(execa, cc, args, src, env)}.o`);
  if (existsSync(stored)) {
    try {
      copyFileSync(stored, obj);
      return 'cached';
    } catch {
      // unreadable: compiled below
    }
  }
  await execa(cc, args, { env });
  // another build storing the same object at once: each writes its own file, the last rename wins
  const tmp = `${stored}.${process.pid}.${Date.now()}`;
  try {
    mkdirSync(dir, { recursive: true });
    copyFileSync(obj, tmp);
    renameSync(tmp, stored);
  } catch {
    rmSync(tmp, { force: true });
  }
  return 'compiled';
}

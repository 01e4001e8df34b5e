// Creating directories without Node's `mkdirSync(…, { recursive: true })`: under /proc (and other
// filesystems that answer ENOENT to mkdir of an existing parent's child) Node 20's recursive mkdir
// retries for ever with a CPU busy. Here each missing component is made once, outermost first.
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Why `dir` cannot be made or written, as an errno-style code and the path it concerns. */
export class DirError extends Error {
  constructor(
    public code: string,
    public path: string,
  ) {
    super(`${code}: ${path}`);
  }
}

/** Makes `dir` and its missing parents; returns the directories it created, outermost first. Throws
 * DirError when a component is not a directory, cannot be created, or the result is not writable. */
export function makeDirs(dir: string): string[] {
  const abs = resolve(dir);
  const missing: string[] = [];
  let d = abs;
  for (;;) {
    let st;
    try {
      st = statSync(d);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw new DirError(code ?? 'EIO', d);
      missing.unshift(d);
      const up = dirname(d);
      if (up === d) throw new DirError('ENOENT', d);
      d = up;
      continue;
    }
    if (!st.isDirectory()) throw new DirError('ENOTDIR', d);
    break;
  }
  const created: string[] = [];
  for (const m of missing) {
    try {
      mkdirSync(m);
      created.push(m);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && statSync(m).isDirectory()) continue; // made by someone else meanwhile
      throw new DirError(code ?? 'EIO', m);
    }
  }
  try {
    accessSync(abs, constants.W_OK | constants.X_OK);
  } catch (e) {
    throw new DirError((e as NodeJS.ErrnoException).code ?? 'EACCES', abs);
  }
  return created;
}

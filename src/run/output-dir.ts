// The output directory of a run: its default name, the check before anything is built or
// launched, what a run that never got going takes back, and the hint for a profile written on
// another host. The executor (execute.ts) owns the directory's lifecycle; these are its steps.
import { readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { MpiiError } from '../errors.js';
import { DirError, makeDirs } from '../fsdirs.js';
import { RUN_INFO_FILE } from '../report/run-info.js';

export function defaultOutDir(program: string, now = new Date(), pid = process.pid): string {
  const d = now;
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
  return join('mpii-out', `${basename(program)}-${stamp}-${pid}`);
}

/** The output directory, checked before anything is built or launched: creatable and writable
 * (a probe file), and not holding another run's profile unless --force replaces it. The
 * directories made here go to `created` so a run that never starts can take them back. */
export function prepareOutDir(dir: string, force: boolean, dryRun: boolean, created: string[]): string {
  const abs = resolve(dir);
  try {
    created.push(...makeDirs(abs));
    const probe = join(abs, `.mpii-probe-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new MpiiError(
      `cannot write the output directory ${abs} (${err.code ?? err.message}${e instanceof DirError && e.path !== abs ? ` at ${e.path}` : ''})`,
      'pass --out DIR with a directory you can create and write',
    );
  }
  const old = profileFiles(abs);
  if (old.length && !force) {
    throw new MpiiError(
      `${abs} already holds a profile (${old.slice(0, 3).join(', ')}${old.length > 3 ? ', …' : ''})`,
      'add --force to replace it, or pass another --out DIR',
    );
  }
  if (!dryRun) for (const f of old) rmSync(join(abs, f), { recursive: true, force: true });
  return abs;
}

/** What a run leaves in its output directory: a profile, .live files (node-<host>.live, or the
 *  rank-<r>.live of mpii before them), spawned jobs' profiles. */
function profileFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f === 'profile.mpii' || f.endsWith('.live') || f.startsWith('spawned-'))
    .sort();
}

/** Directories mpii made for a run that wrote nothing into them, removed innermost first (the run
 * description mpii wrote before the launch means nothing alone). */
export function removeIfEmpty(created: string[]): void {
  for (const d of [...created].reverse()) {
    try {
      const files = readdirSync(d);
      if (files.length === 1 && files[0] === RUN_INFO_FILE) rmSync(join(d, RUN_INFO_FILE));
      rmdirSync(d);
    } catch {
      return; // not empty (the run wrote something, or someone else did): keep it and its parents
    }
  }
}

/** An empty output directory after a job that succeeded: no rank's host shares it with this one,
 * so rank 0 wrote the profile on its own host (and said so). */
export function elsewhere(outDir: string): string {
  try {
    if (readdirSync(outDir).some((f) => !f.startsWith('.mpii-run-'))) return '';
  } catch {
    return '';
  }
  return (
    `; if no rank's host shares ${outDir} with this one (${hostname()}), rank 0 wrote profile.mpii on its ` +
    `own host (its message above says where): copy it into ${outDir} and run mpii report ${outDir}`
  );
}

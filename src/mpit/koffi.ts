// koffi, the FFI that `mpii pvars`, `cvars` and `run --pvar` call the MPI library through, loaded
// with a message that says what to do when its native module is missing. koffi ships prebuilt
// binaries for the common platforms; elsewhere its install script builds one, and npm 11 runs a
// dependency's install script only when approved (`--allow-scripts=koffi`, docs/package.md).
// Only those commands load it: `mpii run` without --pvar, `report`, `doctor` … work without it.
import { basename, dirname } from 'node:path';
import { ROOT } from '../paths.js';
import { MpiiError } from '../errors.js';

export type Koffi = typeof import('koffi');

/** How to get koffi's native module for the mpii installed at `root`: a global install
 * (`<prefix>/lib/node_modules/mpii`) is installed again with the script allowed; in a clone,
 * whose package.json approves it, the script is run again. */
export function koffiFix(root = ROOT): string {
  const parent = dirname(root);
  if (basename(parent) === 'node_modules' && basename(dirname(parent)) === 'lib') {
    const prefix = dirname(dirname(parent));
    return `install mpii again with koffi's install script allowed: npm install -g --prefix ${prefix} --allow-scripts=koffi <the mpii package> (docs/package.md)`;
  }
  return `run koffi's install script: cd ${basename(parent) === 'node_modules' ? dirname(parent) : root} && npm rebuild koffi (docs/package.md)`;
}

/** koffi, or an MpiiError naming the problem and the fix (exit code 2). */
export async function loadKoffi(): Promise<Koffi> {
  try {
    return (await import('koffi')).default;
  } catch (e) {
    const why = (e as Error).message.split('\n')[0];
    throw new MpiiError(`koffi's native module does not load (${why}): mpii pvars, cvars and --pvar call the MPI library through it`, koffiFix());
  }
}

// The output folders of a tool's files (`mpii report --csv DIR`, `--prof PREFIX`): made as
// makeDirs makes them (fsdirs.ts: not mkdirSync's recursive mode, which spins for ever under
// /proc), with the one-line error of mpii.
import { MpiiError } from '../errors.js';
import { makeDirs } from '../fsdirs.js';

/** Makes dir for an output option (`what`: --csv, --prof), or throws one line that says so. */
export function ensureDir(dir: string, what: string): void {
  try {
    makeDirs(dir);
  } catch (e) {
    throw new MpiiError(`cannot create ${dir} for ${what}: ${(e as Error).message}`, 'choose a writable location');
  }
}

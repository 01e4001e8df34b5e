// The C unit programs of test/programs/ (heap_unit.c, node_file_unit.c): one compiled with cc
// and linked with the preload/core sources it tests, no MPI, then run; each prints its results
// as `key=number` pairs on one line.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { execaSync } from 'execa';
import { ROOT } from './helpers.js';

/** Compiles test/programs/<program>.c with preload/core/<core> into `dir`, runs it with `args`
 *  (it must exit 0) and returns what it printed, by key. */
export function runCUnit(dir: string, program: string, core: string[], args: string[]): Record<string, number> {
  const bin = join(dir, program);
  const coreDir = join(ROOT, 'preload', 'core');
  execaSync('cc', ['-O1', '-Wall', '-Werror', '-I', coreDir, '-o', bin, join(ROOT, 'test', 'programs', `${program}.c`), ...core.map((c) => join(coreDir, c))]);
  const r = execaSync(bin, args, { reject: false });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  return Object.fromEntries(
    r.stdout
      .trim()
      .split(' ')
      .map((kv) => kv.split('='))
      .map(([k, v]) => [k, Number(v)]),
  );
}

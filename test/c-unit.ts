// The C unit programs of test/programs/ (heap_unit.c, node_file_unit.c, memcheck_sample_unit.c,
// overlap_adaptive_unit.c, overlap_chain_unit.c): one compiled with cc and linked with the
// preload/ sources it tests, no MPI, then run; each prints its results as `key=number` pairs on
// one line.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { execaSync } from 'execa';
import { ROOT } from './helpers.js';

/** Compiles test/programs/<program>.c with `sources` (paths under preload/, whose folders and
 *  preload/core are its include path) into `dir`; returns a function that runs it with some
 *  arguments (it must exit 0) and returns what it printed, by key. */
export function buildCUnit(dir: string, program: string, sources: string[]): (args: string[]) => Record<string, number> {
  const bin = join(dir, program);
  const files = sources.map((s) => join(ROOT, 'preload', s));
  const includes = [...new Set([join(ROOT, 'preload', 'core'), ...files.map((f) => dirname(f))])].flatMap((d) => ['-I', d]);
  execaSync('cc', ['-O1', '-Wall', '-Werror', ...includes, '-o', bin, join(ROOT, 'test', 'programs', `${program}.c`), ...files]);
  return (args) => {
    const r = execaSync(bin, args, { reject: false });
    assert.equal(r.exitCode, 0, r.stdout + r.stderr);
    return Object.fromEntries(
      r.stdout
        .trim()
        .split(' ')
        .map((kv) => kv.split('='))
        .map(([k, v]) => [k, Number(v)]),
    );
  };
}

/** Compiles and runs once (buildCUnit). */
export function runCUnit(dir: string, program: string, sources: string[], args: string[]): Record<string, number> {
  return buildCUnit(dir, program, sources)(args);
}

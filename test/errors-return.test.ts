// Every tool survives a program's failing calls: errors_return.c makes ~30 calls MPI refuses
// under MPI_ERRORS_RETURN (bad ranks, tags, counts, roots, null and predefined handles freed),
// prints each error class, then communicates for real. Under every tool and stack the output must
// be the plain run's: the library's own error classes, the same results, no crash.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { FLAVORS, TEST_ENV, launcherArgs, mpii, outDir, program } from './helpers.js';

const STACKS = ['noop', 'trace-count', 'monitor', 'profile', 'memcheck', 'overlap', 'monitor,profile', 'memcheck,overlap', 'trace-count,monitor,profile'];

for (const f of FLAVORS) {
  describe(`${f}: failing MPI calls under every tool`, () => {
    let reference = '';
    it('the plain run: every bad call returns an error, then communication works', async () => {
      const r = await execa(`mpirun.${f}`, [...launcherArgs(f, 2), program(f, 'errors_return')], { env: TEST_ENV, reject: false });
      assert.equal(r.exitCode, 0, r.stderr);
      reference = r.stdout;
      assert.equal(reference.match(/ error class \d+$/gm)?.length, 29, reference);
      assert.doesNotMatch(reference, /SUCCEEDED/);
      assert.match(reference, /after the errors: neighbour sum 108\.0, total 136\.0, received 17\.0/);
    });
    for (const stack of STACKS) {
      it(`under ${stack}: the same error classes and results`, async () => {
        assert.ok(reference, 'the plain run passed');
        const r = await mpii([
          'run',
          '--quiet',
          '--tools',
          stack,
          '--out',
          outDir(`${f}-err-${stack.replace(/\W+/g, '_')}`),
          ...launcherArgs(f, 2),
          program(f, 'errors_return'),
        ]);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout, reference);
      });
    }
  });
}

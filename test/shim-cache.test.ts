// The shim cache under concurrent cold builds: two `mpii build`s of one MPI in an empty cache.
// A file of its own, outside the smoke test (scripts/run-tests.mjs): two cold builds of the MPICH
// shim on two cores are most of that test's time, and what they check (rename into place, one
// entry) does not depend on the Node line.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { MPII, TEST_ENV } from './helpers.js';

describe('shim cache', () => {
  it('concurrent cold builds both succeed and leave one complete cache entry', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'mpii-cache-'));
    const env = { ...TEST_ENV, XDG_CACHE_HOME: cache };
    const [a, b] = await Promise.all([
      execa('node', [MPII, 'build', '--mpi', 'mpich', '--quiet'], { env }),
      execa('node', [MPII, 'build', '--mpi', 'mpich', '--quiet'], { env }),
    ]);
    assert.equal(a.stdout.split('\t')[2], b.stdout.split('\t')[2]);
    const entries = readdirSync(join(cache, 'mpii')).filter((e) => e.startsWith('mpich-'));
    assert.equal(entries.length, 1);
    assert.ok(readdirSync(join(cache, 'mpii', entries[0])).includes('libmpii.so'));
    assert.deepEqual(
      readdirSync(join(cache, 'mpii')).filter((e) => e.startsWith('.build')),
      [],
    );
  });
});

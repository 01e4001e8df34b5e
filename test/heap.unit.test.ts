// The page-exclusive heap's block table (preload/core/heap.c: a search tree since the sorted
// array's O(n) insert and free made memcheck's MPI_Comm_dup + free 13-23x slower with 200 live
// communicators; bench/comms.mjs measures that) on its own, no MPI: test/programs/heap_unit.c,
// compiled with cc and linked with heap.c, mixes malloc, calloc, realloc, posix_memalign and free
// in random and first-in-first-out order, and checks every live allocation is found exactly.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCUnit } from './c-unit.js';

describe('the page-exclusive heap (heap.c)', () => {
  it('finds every live block exactly through 200,000 random and FIFO allocations and frees', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-heap-unit-'));
    const got = runCUnit(dir, 'heap_unit', ['core/heap.c'], ['200000', '2000']);
    assert.equal(got.bad, 0);
    assert.equal(got.blocks, got.live, 'the table holds exactly the live blocks');
    assert.ok(got.finds > 1_000_000, `finds: ${got.finds}`);
  });
});

// src/report/float-pool.ts: small arrays carved out of shared buffers are zeroed, separate, and
// keep what is written into them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Float64Pool } from '../src/report/float-pool.js';

describe('Float64Pool', () => {
  it('arrays of the asked length, zeros, none overlapping another, across buffers', () => {
    const pool = new Float64Pool();
    const got = Array.from({ length: 5000 }, (_, k) => pool.take(1 + (k % 40)));
    got.forEach((a, k) => {
      assert.equal(a.length, 1 + (k % 40));
      assert.ok(a.every((x) => x === 0));
      a.fill(k);
    });
    got.forEach((a, k) =>
      assert.ok(
        a.every((x) => x === k),
        `array ${k} kept its values`,
      ),
    );
    assert.equal(pool.take(0).length, 0);
  });

  it('a big array gets a buffer of its own; from() copies a plain array', () => {
    const pool = new Float64Pool();
    const big = pool.take(100_000);
    assert.equal(big.length, 100_000);
    assert.equal(big.byteOffset, 0);
    assert.deepEqual([...pool.from([3, 2 ** 53, 0.5])], [3, 2 ** 53, 0.5]);
  });
});

// src/profile-file/table.ts: a counters section read as rows into reused typed arrays gives
// the values CounterSection.forEach gives, row by row in the order forEach first reaches them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProfile, type CounterSection } from '../src/profile-file/read.js';
import { writeGathered } from '../src/profile-file/synthetic.js';
import { TableReader } from '../src/profile-file/table.js';

/** A rank whose one section (`length` values) stores `entries` (index, value, …) as mpii's sparse kind. */
function sparseSection(length: number, entries: (number | bigint)[]): CounterSection {
  const dir = mkdtempSync(join(tmpdir(), 'mpii-table-'));
  writeGathered(dir, 1, () => ({ rank: 0, size: 1, tools: { 1: 'profile' }, counters: [{ tool: 1, name: 't', length, entries }] }));
  return readProfile(dir).ranks[0].counters[0];
}

/** A dense section of `values` (what the words of a counters record look like). */
function denseSection(values: number[]): CounterSection {
  const words = new Uint32Array(2 * values.length);
  values.forEach((v, k) => {
    words[2 * k] = v % 2 ** 32;
    words[2 * k + 1] = Math.floor(v / 2 ** 32);
  });
  const c = {
    tool: 1,
    name: 't',
    labels: [],
    length: values.length,
    nonzero: new Map(),
    drop() {},
    words: () => ({ sparse: false, words, entries: values.length }),
    forEach(fn: (i: number, v: number) => void) {
      values.forEach((v, i) => {
        if (v !== 0) fn(i, v);
      });
    },
  };
  return c as CounterSection;
}

/** rows as [row, values…] in the reader's order */
function rowsOf(t: TableReader, width: number): number[][] {
  return Array.from({ length: t.count }, (_, k) => [t.rows[k], ...t.values.subarray(k * width, (k + 1) * width)]);
}

/** the value of entry i (0 if its row is not listed) */
function valueAt(t: TableReader, width: number, i: number): number {
  const k = t.rows.subarray(0, t.count).indexOf(Math.floor(i / width));
  return k < 0 ? 0 : t.values[k * width + (i % width)];
}

describe('TableReader', () => {
  it('sparse entries: rows in the order first stored, values exact, UINT64_MAX as 2^64, a stored zero still makes its row', () => {
    const c = sparseSection(12, [7, 5, 8, 2 ** 40 + 3, 1, 9, 0, 4, 10, -1, 11, 0]);
    const t = new TableReader().read(c, 3);
    assert.deepEqual(rowsOf(t, 3), [
      [2, 0, 5, 2 ** 40 + 3],
      [0, 4, 9, 0],
      [3, 0, 2 ** 64, 0],
    ]);
    // what forEach gives, value by value
    const seen: number[][] = [];
    c.forEach((i, v) => seen.push([i, v]));
    for (const [i, v] of seen) assert.equal(valueAt(t, 3, i), v, `entry ${i}`);
  });

  it('entries outside the table are not rows of it', () => {
    const t = new TableReader().read(sparseSection(6, [1, 4, 6, 9, 40, 1]), 3);
    assert.deepEqual(rowsOf(t, 3), [[0, 0, 4, 0]]);
  });

  it('a table far longer than its entries (or a damaged length): memory for the rows stored only', () => {
    const R = 2 ** 43; // row R starts at entry 3R, beyond 2^32 entries and 2^31 rows
    const t = new TableReader().read(sparseSection(2 ** 45, [3 * R + 1, 6, 5, 7, 3 * R + 2, 8]), 3);
    assert.deepEqual(rowsOf(t, 3), [
      [R, 0, 6, 8],
      [1, 0, 0, 7],
    ]);
    assert.ok(t.values.length < 1024, `${t.values.length} values allocated`);
  });

  it('a small section read as its one row, its length damaged past any row: one line, not a failed allocation', () => {
    // the profile tool reads its clock block as one row of `length` values
    const c = sparseSection(2 ** 43, [0, 5, 7, 9]);
    assert.throws(
      () => new TableReader().read(c, c.length),
      (e: Error & { fix?: string }) =>
        e.name === 'MpiiError' && /"t" has rows of 8796093022208 values: it is damaged/.test(e.message) && e.fix === 're-run the job',
    );
  });

  it('a dense section: its non-zero values make the rows', () => {
    const t = new TableReader().read(denseSection([0, 0, 0, 0, 3, 0, 2 ** 33, 0, 0]), 3);
    assert.deepEqual(rowsOf(t, 3), [
      [1, 0, 3, 0],
      [2, 2 ** 33, 0, 0],
    ]);
  });

  it('read after read: the rows of the last one, zeroed where an earlier one wrote, growing when needed', () => {
    const t = new TableReader();
    t.read(sparseSection(6, [0, 1, 1, 2, 2, 3, 5, 4]), 3);
    assert.deepEqual(rowsOf(t, 3), [
      [0, 1, 2, 3],
      [1, 0, 0, 4],
    ]);
    t.read(sparseSection(6, [4, 7]), 3);
    assert.deepEqual(rowsOf(t, 3), [[1, 0, 7, 0]]);
    const big = Array.from({ length: 400 }, (_, k) => [3 * k, k + 1]).flat();
    t.read(sparseSection(1200, big), 3);
    assert.equal(t.count, 400);
    assert.deepEqual(rowsOf(t, 3)[399], [399, 400, 0, 0]);
    assert.equal(t.read(undefined, 3).count, 0);
  });
});

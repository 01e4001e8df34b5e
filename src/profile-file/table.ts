// A counters section read as a table of rows of `width` values (a tool's call-site table; a
// small section such as the profile tool's clock as its one row) into typed arrays reused from
// one section to the next: no Map, no object per row or value. The profile tool's report reads
// every rank's tables this way (16,384 ranks: the per-row objects were most of its time).
import type { CounterSection } from './read.js';

export class TableReader {
  /** row r's value f at values[r * width + f] (valid for the rows listed in `rows`) */
  values = new Float64Array(64);
  /** the rows with a stored entry (for a dense section, a non-zero one), in the order first
   *  stored: the order CounterSection.forEach first reaches them */
  rows = new Int32Array(16);
  /** how many of `rows` there are */
  count = 0;
  /** per row, the read that last listed it: a row is zeroed when first reached by a read */
  private stamp = new Int32Array(16);
  private reads = 0;

  /** Reads `c` (undefined: no rows). Entries outside the table's `length` are not of any row (a
   *  damaged file; mpii never writes them) and are left out. */
  read(c: CounterSection | undefined, width: number): this {
    this.count = 0;
    if (!c || width <= 0) return this;
    const nrows = Math.ceil(c.length / width);
    this.fit(nrows, width);
    const stamp = this.stamp;
    const reads = ++this.reads;
    const { sparse, words: w, entries } = c.words();
    const length = c.length;
    for (let k = 0; k < entries; k++) {
      let i: number;
      let lo: number;
      let hi: number;
      if (sparse) {
        i = w[4 * k + 1] * 0x100000000 + w[4 * k];
        lo = w[4 * k + 2];
        hi = w[4 * k + 3];
      } else {
        lo = w[2 * k];
        hi = w[2 * k + 1];
        if (lo === 0 && hi === 0) continue; // forEach gives a dense section's non-zero values only
        i = k;
      }
      if (i >= length) continue;
      const row = Math.floor(i / width);
      if (stamp[row] !== reads) {
        stamp[row] = reads;
        this.values.fill(0, row * width, (row + 1) * width);
        this.rows[this.count++] = row;
      }
      this.values[i] = hi * 0x100000000 + lo; // exact below 2^53, as forEach reads it
    }
    return this;
  }

  /** room for `nrows` rows of `width` values */
  private fit(nrows: number, width: number): void {
    if (this.values.length < nrows * width) this.values = new Float64Array(nrows * width);
    if (this.stamp.length < nrows) {
      this.stamp = new Int32Array(nrows); // a fresh stamp array: 0 is never a read's number
      this.rows = new Int32Array(nrows);
    }
  }
}

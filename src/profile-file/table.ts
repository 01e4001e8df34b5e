// A counters section read as a table of rows of `width` values (a tool's call-site table; a
// small section such as the profile tool's clock as its one row) into typed arrays reused from
// one section to the next: no object per row or value. The profile tool's report reads
// every rank's tables this way (16,384 ranks: the per-row objects were most of its time).
import { MpiiError } from '../errors.js';
import type { CounterSection } from './read.js';

/** Tables up to this many rows find a row's slot by direct index; larger ones (a sparse table
 *  with a huge length, or a damaged one) through a Map, so that memory follows the rows stored. */
const DIRECT_ROWS = 1 << 20;
/** A row of more values than this is a damaged section's (a row is a few dozen fields; the widest,
 *  a small section read as its one row, a few hundred): its values could not be held. */
const MAX_WIDTH = 1 << 24;

export class TableReader {
  /** the k-th listed row's value f at values[k * width + f] */
  values = new Float64Array(64);
  /** the rows with a stored entry (for a dense section, a non-zero one), in the order first
   *  stored: the order CounterSection.forEach first reaches them */
  rows = new Float64Array(16); // exact whatever the length (a damaged one: beyond 2^31 rows)
  /** how many of `rows` there are */
  count = 0;
  /** direct: per row, the read that last listed it (a row is new to a read until stamped) and its slot */
  private stamp = new Int32Array(16);
  private slotOf = new Int32Array(16);
  private reads = 0;
  private slotMap = new Map<number, number>();

  /** Reads `c` (undefined: no rows). Entries outside the table's `length` are not of any row (a
   *  damaged file; mpii never writes them) and are left out. */
  read(c: CounterSection | undefined, width: number): this {
    this.count = 0;
    if (!c || width <= 0) return this;
    if (width > MAX_WIDTH) throw new MpiiError(`the counters section "${c.name}" has rows of ${width} values: it is damaged`, 're-run the job');
    const length = c.length;
    const nrows = Math.ceil(length / width);
    const direct = nrows <= DIRECT_ROWS;
    if (direct) this.fitDirect(nrows);
    else this.slotMap.clear();
    const reads = ++this.reads;
    let lastRow = -1;
    let lastSlot = 0;
    c.forEach((i, v) => {
      if (i >= length) return;
      const row = Math.floor(i / width);
      if (row !== lastRow) {
        // a row's entries mostly come together: one lookup for them
        if (direct) {
          if (this.stamp[row] !== reads) {
            this.stamp[row] = reads;
            this.slotOf[row] = this.newRow(row, width);
          }
          lastSlot = this.slotOf[row];
        } else {
          const known = this.slotMap.get(row);
          lastSlot = known ?? this.newRow(row, width);
          if (known === undefined) this.slotMap.set(row, lastSlot);
        }
        lastRow = row;
      }
      this.values[lastSlot * width + (i - row * width)] = v;
    });
    return this;
  }

  /** The next slot, zeroed, for `row`. */
  private newRow(row: number, width: number): number {
    const k = this.count++;
    if (this.rows.length <= k) {
      const rows = new Float64Array(2 * this.rows.length);
      rows.set(this.rows);
      this.rows = rows;
    }
    if (this.values.length < (k + 1) * width) {
      const values = new Float64Array(Math.max(2 * this.values.length, (k + 1) * width));
      values.set(this.values.subarray(0, k * width));
      this.values = values;
    }
    this.rows[k] = row;
    this.values.fill(0, k * width, (k + 1) * width);
    return k;
  }

  /** direct lookup for `nrows` rows */
  private fitDirect(nrows: number): void {
    if (this.stamp.length < nrows) {
      this.stamp = new Int32Array(nrows); // a fresh stamp array: 0 is never a read's number
      this.slotOf = new Int32Array(nrows);
    }
  }
}

// Many small Float64Arrays that live as long as the report, carved out of a few big buffers.
// Each typed array of its own has an ArrayBuffer of its own, which V8's young-generation
// collections track one by one: the monitor's digest of a 16,384-rank job kept 50,000 of them
// and the collections that walked them were a sixth of the terminal report's time.

/** Doubles per shared buffer (512 KiB); an array bigger than a quarter of that gets its own. */
const BLOCK = 65536;

export class Float64Pool {
  private block = new Float64Array(0);
  private used = 0;

  /** `n` zeros, a view into a shared buffer (never handed out twice). */
  take(n: number): Float64Array {
    if (n > BLOCK / 4) return new Float64Array(n);
    if (this.used + n > this.block.length) {
      this.block = new Float64Array(BLOCK);
      this.used = 0;
    }
    const a = this.block.subarray(this.used, this.used + n);
    this.used += n;
    return a;
  }

  /** A copy of `values` (a plain array) in the pool. */
  from(values: number[]): Float64Array {
    const a = this.take(values.length);
    for (let k = 0; k < values.length; k++) a[k] = values[k];
    return a;
  }
}

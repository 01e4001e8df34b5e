// Sizes and durations as the reports print them (every tool's report uses these).

/** Bytes in binary units: 512 B, 1.50 KiB, 12.3 MiB. */
export function humanBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
}

/** Seconds with a unit that keeps 3-4 significant digits. */
export function humanTime(s: number): string {
  if (s === 0) return '0';
  if (s >= 100) return `${s.toFixed(1)} s`;
  if (s >= 1) return `${s.toFixed(3)} s`;
  if (s >= 1e-3) return `${(s * 1e3).toFixed(3)} ms`;
  if (s >= 1e-6) return `${(s * 1e6).toFixed(2)} µs`;
  return `${(s * 1e9).toFixed(0)} ns`;
}

/** A change of time with its sign: "+1.234 ms", "-12.00 µs", "0" (`mpii report A B`). */
export const signedTime = (s: number) => (s === 0 ? '0' : `${s > 0 ? '+' : '-'}${humanTime(Math.abs(s))}`);
/** A change of bytes with its sign: "+1.50 KiB", "-512 B", "0". */
export const signedBytes = (n: number) => (n === 0 ? '0' : `${n > 0 ? '+' : '-'}${humanBytes(Math.abs(n))}`);
/** A change of a count with its sign: "+3", "-1", "0". */
export const signedCount = (n: number) => (n > 0 ? `+${n}` : String(n));
/** A relative change: "+12.5 %", or "new" when there was nothing before. */
export const signedPercent = (p: number | null) => (p === null ? 'new' : `${p > 0 ? '+' : ''}${p.toFixed(1)} %`);

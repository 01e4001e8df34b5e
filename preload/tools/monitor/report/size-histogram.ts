// The monitor's point-to-point message sizes (its 66-bin histogram per peer, sender side) summed
// over all ranks and peers: what the HTML report draws as the message-size histogram. Bin 0 holds
// empty messages, bin b ≥ 1 the sizes 2^(b-1) … 2^b − 1 bytes (preload/tools/monitor/monitor.c).
import { histogramSums, type MonitorRun } from './data.js';

export interface SizeBin {
  bin: number;
  lo: number;
  hi: number;
  count: number;
}

export function sizeHistogram(run: MonitorRun): SizeBin[] {
  const sum = histogramSums(run);
  const used = sum.map((v, b) => (v ? b : -1)).filter((b) => b >= 0);
  if (!used.length) return [];
  const out: SizeBin[] = [];
  // every bin between the smallest and the largest used, so the axis has no gaps
  for (let b = used[0]; b <= used[used.length - 1]; b++) {
    out.push({ bin: b, lo: b === 0 ? 0 : 2 ** (b - 1), hi: b === 0 ? 0 : 2 ** b - 1, count: sum[b] ?? 0 });
  }
  return out;
}

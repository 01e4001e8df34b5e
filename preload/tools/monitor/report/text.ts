// What `mpii run` and `mpii report` print for the monitor tool: totals per class, the busiest
// peer pairs, the communicators, and the communication matrix drawn in the terminal.
import { wrap, WIDTH, bgAnsi256, type Profile, humanBytes } from '../../../../src/tool-api/index.js';
import { CLASSES, binnedMatrix, communicators, flowsOf, monitorRuns, pairBefore, RankData, spreadNote, totals, type Binned, type MonitorRun } from './data.js';

export interface MonitorTextOptions {
  top?: number;
  matrix?: boolean;
  color?: boolean;
  width?: number;
}

const SHADES = [' ', '░', '▒', '▓', '█'];

/** Cells grouped into at most `cols` blocks of ranks, shaded on a log scale of the maximum. */
export function drawMatrix(m: number[][], opts: { color: boolean; cols: number }): string[] {
  const n = m.length;
  if (n === 0) return [];
  const block = Math.ceil(n / Math.max(1, opts.cols));
  const side = Math.ceil(n / block);
  const cells = new Float64Array(side * side);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) cells[Math.floor(i / block) * side + Math.floor(j / block)] += m[i][j];
  return drawBinned({ n, block, side, cells }, opts.color);
}

/** A matrix already summed into blocks (monitor.binnedMatrix). */
export function drawBinned(b: Binned, color: boolean): string[] {
  const { n, block, side: nb, cells } = b;
  if (n === 0) return [];
  let max = 0;
  for (const v of cells) if (v > max) max = v;
  // level 4: within a factor 10 of the busiest cell, 3: within 100, 2: within 1000, 1: less
  const level = (v: number) => (v <= 0 || max <= 0 ? 0 : Math.max(1, Math.min(4, 5 + Math.floor(Math.log10(v / max) + 1e-9))));
  // a cell is two characters wide (roughly square); empty cells show a dot without colour
  const paint = (lv: number) => {
    if (color) return lv === 0 ? '  ' : bgAnsi256([0, 236, 240, 166, 196][lv])('  ');
    return lv === 0 ? ' ·' : SHADES[lv].repeat(2);
  };
  const label = (k: number) => (block === 1 ? String(k) : `${k * block}-${Math.min(n, (k + 1) * block) - 1}`);
  const w = Math.max(...Array.from({ length: nb }, (_, k) => label(k).length));
  const lines = [`${''.padStart(w)}  receiver →${block > 1 ? ` (${block} ranks per cell)` : ''}`];
  for (let i = 0; i < nb; i++) {
    let row = '';
    for (let j = 0; j < nb; j++) row += paint(level(cells[i * nb + j]));
    lines.push(`${label(i).padStart(w)} ${row}`);
  }
  const legend = [4, 3, 2].map((lv) => `${paint(lv)} ≥ max/${10 ** (5 - lv)}`);
  // two lines: the legend fits 80 columns
  lines.push(`${''.padStart(w)} sender ↓   max ${humanBytes(max)}`);
  lines.push(`${''.padStart(w)} ${legend.join('  ')}  ${paint(1)} less`);
  return lines;
}

/** The `top` busiest point-to-point pairs by bytes (then messages), and how many pairs there are:
 *  one pass, no list of every pair (a big job has millions). */
type Pairs = { pairs: { from: number; to: number; bytes: number; count: number }[]; total: number };
const pairsOf = new WeakMap<MonitorRun, { top: number; got: Pairs }>(); // the terminal and the page ask alike
export function busiestPairs(run: MonitorRun, top: number): Pairs {
  const known = pairsOf.get(run);
  if (known && known.top >= top) return { pairs: known.got.pairs.slice(0, top), total: known.got.total };
  const got = findPairs(run, top);
  pairsOf.set(run, { top, got });
  return { pairs: got.pairs.slice(), total: got.total };
}

type Pair = { from: number; to: number; bytes: number; count: number };
const pairOrder = (a: Pair, b: Pair) => pairBefore(a.bytes, a.count, a.from, a.to, b.bytes, b.count, b.from, b.to);

function findPairs(run: MonitorRun, top: number): Pairs {
  if (!Number.isFinite(top)) return everyPair(run);
  const best: Pair[] = [];
  const before = pairOrder;
  let total = 0;
  for (const r of run.ranks) {
    const d = r instanceof RankData ? r.digest : undefined;
    if (d && d.top >= top) {
      // its busiest, taken while the file was read (monitorDigest)
      total += d.pairCount;
      const q = d.pairs;
      for (let k = 0; k < q.length; k += 3) {
        const p = { from: r.rank, to: q[k], bytes: q[k + 1], count: q[k + 2] };
        if (best.length === top && (top === 0 || !before(p, best[top - 1]))) break; // the rest of the rank's are after it
        let at = best.length;
        while (at > 0 && before(p, best[at - 1])) at--;
        best.splice(at, 0, p);
        if (best.length > top) best.pop();
      }
      continue;
    }
    const { ids, values } = flowsOf(r);
    for (let k = 0; k < ids.length; k++) {
      const count = values[k * 8];
      if (!count) continue;
      total++;
      const bytes = values[k * 8 + 1];
      if (best.length === top && bytes < best[top - 1].bytes) continue; // most pairs: no object made
      const p = { from: r.rank, to: ids[k], bytes, count };
      if (best.length === top && !before(p, best[top - 1])) continue;
      let at = best.length;
      while (at > 0 && before(p, best[at - 1])) at--;
      best.splice(at, 0, p);
      if (best.length > top) best.pop();
    }
  }
  return { pairs: best, total };
}

/** Every pair (--top 0), sorted once: inserting a million pairs one by one in order was quadratic. */
function everyPair(run: MonitorRun): Pairs {
  const all: Pair[] = [];
  for (const r of run.ranks) {
    const d = r instanceof RankData ? r.digest : undefined;
    if (d && d.top === Infinity) {
      for (let k = 0; k < d.pairs.length; k += 3) all.push({ from: r.rank, to: d.pairs[k], bytes: d.pairs[k + 1], count: d.pairs[k + 2] });
      continue;
    }
    const { ids, values } = flowsOf(r);
    for (let k = 0; k < ids.length; k++) {
      if (values[k * 8]) all.push({ from: r.rank, to: ids[k], bytes: values[k * 8 + 1], count: values[k * 8] });
    }
  }
  all.sort((a, b) => (pairOrder(a, b) ? -1 : 1));
  return { pairs: all, total: all.length };
}

function formatRun(run: MonitorRun, o: Required<MonitorTextOptions>): string[] {
  const out = [`monitor (tool ${run.tool}): ${run.ranks.length} of ${run.size} rank${run.size === 1 ? '' : 's'}`];
  const t = totals(run);
  out.push(`  ${'class'.padEnd(18)} ${'messages'.padStart(10)} ${'bytes'.padStart(12)}`);
  for (const c of CLASSES) out.push(`  ${c.label.padEnd(18)} ${String(t[c.name].count).padStart(10)} ${humanBytes(t[c.name].bytes).padStart(12)}`);

  const { pairs, total } = busiestPairs(run, o.top);
  if (pairs.length) {
    out.push(`  busiest point-to-point pairs (sender → receiver):`);
    for (const p of pairs) {
      out.push(`    ${`${p.from} → ${p.to}`.padEnd(14)} ${humanBytes(p.bytes).padStart(12)} in ${p.count} msg${p.count === 1 ? '' : 's'}`);
    }
    if (total > o.top) out.push(`    … ${total - o.top} more pairs (mpii report --json or --csv for all)`);
  }
  const comms = communicators(run).filter((c) => c.o2a.count + c.a2o.count + c.a2a.count > 0);
  if (comms.length) {
    out.push(`  collectives per communicator (o2a/a2o operations counted at the roots):`);
    for (const c of comms.slice(0, o.top)) {
      const f = (k: 'o2a' | 'a2o' | 'a2a') => `${k} ${c[k].count} op${c[k].count === 1 ? '' : 's'} ${humanBytes(c[k].bytes)}`;
      const members = c.procs.split(',').length;
      out.push(
        ...wrap(`${c.name} (${members} proc${members === 1 ? '' : 's'}): ${f('o2a')}, ${f('a2o')}, ${f('a2a')}`, WIDTH - 6).map(
          (l, i) => `${i ? '      ' : '    '}${l}`,
        ),
      );
    }
  }
  const note = spreadNote(run);
  if (note) out.push(...wrap(note, WIDTH - 4).map((l, i) => `${i ? '    ' : '  '}${l}`));
  const mem = run.ranks.map((r) => r.memory).filter((m) => m !== undefined);
  if (mem.length) {
    const resident = Math.max(...mem.map((m) => m.resident_bytes));
    out.push(
      ...wrap(
        `memory per rank: per-peer table ${humanBytes(mem[0].table_bytes)} (≤ (10+66)·N·8 = ${humanBytes(76 * 8 * run.size)}), ` +
          `pages touched ≤ ${humanBytes(resident)}`,
        WIDTH - 4,
      ).map((l, i) => `${i ? '    ' : '  '}${l}`),
    );
  }
  if (o.matrix && run.size > 1) {
    out.push(`  bytes sent, all classes:`);
    out.push(...drawBinned(binnedMatrix(run, 'all', 'bytes', o.width), o.color).map((l) => `  ${l}`));
  }
  return out;
}

/** Blocks per side of the terminal's matrix: 32 cells of 2 characters fit 80 columns. */
export const TEXT_CELLS = 32;

export function formatMonitor(p: Profile, opts: MonitorTextOptions = {}): string[] {
  const o: Required<MonitorTextOptions> = { top: opts.top ?? 10, matrix: opts.matrix ?? true, color: opts.color ?? false, width: opts.width ?? TEXT_CELLS };
  return monitorRuns(p).flatMap((run) => formatRun(run, o));
}

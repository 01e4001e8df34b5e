// What `mpii run` and `mpii report` print for the monitor tool: totals per class, the busiest
// peer pairs, the communicators, and the communication matrix drawn in the terminal.
import { Chalk } from 'chalk';
import type { Profile } from '../profile/read.js';
import { CLASSES, communicators, matrix, monitorRuns, totals, type MonitorRun } from './monitor.js';

export interface MonitorTextOptions { top?: number; matrix?: boolean; color?: boolean; width?: number }

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

const SHADES = [' ', '░', '▒', '▓', '█'];
// the caller decides about colour (terminal, NO_COLOR); chalk's own guess looks at stdout only
const chalk = new Chalk({ level: 2 });

/** Cells grouped into at most `cols` blocks of ranks, shaded on a log scale of the maximum. */
export function drawMatrix(m: number[][], opts: { color: boolean; cols: number }): string[] {
  const n = m.length;
  if (n === 0) return [];
  const block = Math.ceil(n / Math.max(1, opts.cols));
  const nb = Math.ceil(n / block);
  const cell = Array.from({ length: nb }, () => new Array<number>(nb).fill(0));
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) cell[Math.floor(i / block)][Math.floor(j / block)] += m[i][j];
  const max = Math.max(0, ...cell.flat());
  // level 4: within a factor 10 of the busiest cell, 3: within 100, 2: within 1000, 1: less
  const level = (v: number) => (v <= 0 || max <= 0 ? 0 : Math.max(1, Math.min(4, 5 + Math.floor(Math.log10(v / max) + 1e-9))));
  // a cell is two characters wide (roughly square); empty cells show a dot without colour
  const paint = (lv: number) => {
    if (opts.color) return lv === 0 ? '  ' : chalk.bgAnsi256([0, 236, 240, 166, 196][lv])('  ');
    return lv === 0 ? ' ·' : SHADES[lv].repeat(2);
  };
  const label = (b: number) => (block === 1 ? String(b) : `${b * block}-${Math.min(n, (b + 1) * block) - 1}`);
  const w = Math.max(...Array.from({ length: nb }, (_, b) => label(b).length));
  const lines = [`${''.padStart(w)}  receiver →${block > 1 ? ` (${block} ranks per cell)` : ''}`];
  for (let i = 0; i < nb; i++) lines.push(`${label(i).padStart(w)} ${cell[i].map((v) => paint(level(v))).join('')}`);
  const legend = [4, 3, 2].map((lv) => `${paint(lv)} ≥ max/${10 ** (5 - lv)}`);
  lines.push(`${''.padStart(w)} sender ↓   max ${humanBytes(max)}  ${legend.join('  ')}  ${paint(1)} less`);
  return lines;
}

function formatRun(run: MonitorRun, o: Required<MonitorTextOptions>): string[] {
  const out = [`monitor (tool ${run.tool}): ${run.ranks.length} of ${run.size} rank${run.size === 1 ? '' : 's'}`];
  const t = totals(run);
  out.push(`  ${'class'.padEnd(18)} ${'messages'.padStart(10)} ${'bytes'.padStart(12)}`);
  for (const c of CLASSES) out.push(`  ${c.label.padEnd(18)} ${String(t[c.name].count).padStart(10)} ${humanBytes(t[c.name].bytes).padStart(12)}`);

  const pairs: { from: number; to: number; bytes: number; count: number }[] = [];
  for (const r of run.ranks) {
    for (const [peer, s] of r.peers) if (s.p2p.count) pairs.push({ from: r.rank, to: peer, bytes: s.p2p.bytes, count: s.p2p.count });
  }
  pairs.sort((a, b) => b.bytes - a.bytes || b.count - a.count || a.from - b.from || a.to - b.to);
  if (pairs.length) {
    out.push(`  busiest point-to-point pairs (sender → receiver):`);
    for (const p of pairs.slice(0, o.top)) {
      out.push(`    ${`${p.from} → ${p.to}`.padEnd(14)} ${humanBytes(p.bytes).padStart(12)} in ${p.count} msg${p.count === 1 ? '' : 's'}`);
    }
    if (pairs.length > o.top) out.push(`    … ${pairs.length - o.top} more pairs (mpii report --json or --csv for all)`);
  }
  const comms = communicators(run).filter((c) => c.o2a.count + c.a2o.count + c.a2a.count > 0);
  if (comms.length) {
    out.push(`  collectives per communicator (operations counted at the roots for o2a/a2o):`);
    for (const c of comms.slice(0, o.top)) {
      const f = (k: 'o2a' | 'a2o' | 'a2a') => `${k} ${c[k].count} op${c[k].count === 1 ? '' : 's'} ${humanBytes(c[k].bytes)}`;
      const members = c.procs.split(',').length;
      out.push(`    ${c.name} (${members} proc${members === 1 ? '' : 's'}): ${f('o2a')}, ${f('a2o')}, ${f('a2a')}`);
    }
  }
  const mem = run.ranks.map((r) => r.memory).filter((m) => m !== undefined);
  if (mem.length) {
    const resident = Math.max(...mem.map((m) => m.resident_bytes));
    out.push(`  memory per rank: per-peer table ${humanBytes(mem[0].table_bytes)} (≤ (10+66)·N·8 = ${humanBytes(76 * 8 * run.size)}), `
      + `pages touched ≤ ${humanBytes(resident)}`);
  }
  if (o.matrix && run.size > 1) {
    out.push(`  bytes sent, all classes:`);
    out.push(...drawMatrix(matrix(run, 'all', 'bytes'), { color: o.color, cols: o.width }).map((l) => `  ${l}`));
  }
  return out;
}

export function formatMonitor(p: Profile, opts: MonitorTextOptions = {}): string[] {
  const o: Required<MonitorTextOptions> = { top: opts.top ?? 10, matrix: opts.matrix ?? true, color: opts.color ?? false, width: opts.width ?? 48 };
  return monitorRuns(p).flatMap((run) => formatRun(run, o));
}

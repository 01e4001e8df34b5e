// `mpii report A B` on the terminal: at most 80 columns, largest changes first.
import { DEFAULT_TOP } from './filter.js';
import { Chalk } from 'chalk';
import { humanBytes, humanTime } from './units.js';
import { utc, wrap } from './header.js';
import { cut, table, WIDTH } from './text-table.js';
import type { RunDiff, SiteChange } from './diff.js';

const chalk = new Chalk({ level: 2 });

/** "+1.234 ms", "-12.00 µs", "0" */
export const signedTime = (s: number) => (s === 0 ? '0' : `${s > 0 ? '+' : '-'}${humanTime(Math.abs(s))}`);
export const signedBytes = (n: number) => (n === 0 ? '0' : `${n > 0 ? '+' : '-'}${humanBytes(Math.abs(n))}`);
const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
const percent = (p: number | null) => (p === null ? 'new' : `${p > 0 ? '+' : ''}${p.toFixed(1)} %`);

export interface DiffTextOptions { top?: number; color?: boolean; width?: number }

export function formatDiff(d: RunDiff, o: DiffTextOptions = {}): string {
  const top = o.top ?? DEFAULT_TOP;
  const width = o.width ?? WIDTH;
  const bold = o.color ? (s: string) => chalk.bold(s) : (s: string) => s;
  const warn = o.color ? (s: string) => chalk.yellow(s) : (s: string) => s;
  const t = (head: string[], rows: string[][], right: boolean[], shrink?: number) => table(head, rows, right, { bold, shrink, width });
  const out = [bold('mpii report: what changed from run A to run B')];
  for (const [k, s] of [['A', d.a], ['B', d.b]] as const) {
    const when = s.header.start !== null ? `, ${utc(s.header.start)}` : '';
    out.push(...wrap(`${k}  ${s.dir}: ${s.ranks} rank${s.ranks === 1 ? '' : 's'}, ${s.header.mpi}${when}${s.complete ? '' : ', INCOMPLETE'}`, width - 2)
      .map((l, i) => `${i ? '     ' : '  '}${l}`));
  }
  for (const n of d.notes) out.push(...wrap(`note: ${n}`, width - 2).map((l, i) => warn(`${i ? '    ' : '  '}${l}`)));

  const p = d.profile;
  if (p) {
    out.push(bold('profile:'));
    const { a, b } = p.totals;
    const ia = p.imbalance.a!;
    const ib = p.imbalance.b!;
    const rows = [
      ['MPI time, all ranks', humanTime(a!.mpi), humanTime(b!.mpi), signedTime(b!.mpi - a!.mpi), percent(a!.mpi ? (100 * (b!.mpi - a!.mpi)) / a!.mpi : null)],
      ['app time, all ranks', humanTime(a!.app), humanTime(b!.app), signedTime(b!.app - a!.app), percent(a!.app ? (100 * (b!.app - a!.app)) / a!.app : null)],
      ['MPI % of app time', a!.mpiPercent.toFixed(2), b!.mpiPercent.toFixed(2), signed(Number((b!.mpiPercent - a!.mpiPercent).toFixed(2))), ''],
      ['max rank MPI time', humanTime(ia.max), humanTime(ib.max), signedTime(ib.max - ia.max), percent(ia.max ? (100 * (ib.max - ia.max)) / ia.max : null)],
      ['imbalance max/mean', ia.ratio.toFixed(2), ib.ratio.toFixed(2), signed(Number((ib.ratio - ia.ratio).toFixed(2))), ''],
    ];
    out.push(...t(['', 'A', 'B', 'change', ''], rows, [false, true, true, true, true]));

    const ranks = p.ranks.filter((r) => r.change !== 0).slice(0, top);
    if (ranks.length) {
      out.push(`  MPI time per rank, largest change first${p.ranks.length > ranks.length ? ` (${ranks.length} of ${p.ranks.length})` : ''}:`);
      out.push(...t(['rank', 'A', 'B', 'change'], ranks.map((r) => [String(r.rank), r.a === null ? '—' : humanTime(r.a), r.b === null ? '—' : humanTime(r.b),
        signedTime(r.change)]), [true, true, true, true]));
    }
    const sites = p.sites.slice(0, top);
    if (sites.length) {
      const num = new Map<SiteChange, number>(sites.map((s, i) => [s, i + 1]));
      out.push(`  call sites, largest change of time first (matched by call and location):`);
      out.push(...t(['#', 'call', 'location', 'A/B'], sites.map((s) => [String(num.get(s)), s.call, s.location,
        s.status === 'both' ? `${s.a!.site}/${s.b!.site}` : s.status === 'appeared' ? `new/${s.b!.site}` : `${s.a!.site}/gone`]),
      [true, false, false, true], 2));
      out.push('  time per call site (A → B):');
      out.push(...t(['#', 'call', 'A', 'B', 'change', '%'], sites.map((s) => [String(num.get(s)), s.call, s.a ? humanTime(s.a.time) : '—',
        s.b ? humanTime(s.b.time) : '—', signedTime(s.time), s.status === 'vanished' ? 'gone' : percent(s.timePercent)]),
      [true, false, true, true, true, true]));
      out.push('  calls and bytes (sent + received) per call site (A → B):');
      out.push(...t(['#', 'call', 'calls A', 'calls B', 'bytes A', 'bytes B', 'change'], sites.map((s) => [String(num.get(s)), s.call,
        s.a ? String(s.a.count) : '—', s.b ? String(s.b.count) : '—', s.a ? humanBytes(s.a.sent + s.a.recv) : '—', s.b ? humanBytes(s.b.sent + s.b.recv) : '—',
        signedBytes(s.bytes)]), [true, false, true, true, true, true, true]));
      if (p.sites.length > sites.length) out.push(`    … ${p.sites.length - sites.length} more call sites (--top N; --top 0 for all)`);
      const appeared = p.sites.filter((s) => s.status === 'appeared');
      const vanished = p.sites.filter((s) => s.status === 'vanished');
      const list = (label: string, xs: SiteChange[]) => {
        if (!xs.length) return;
        out.push(`  ${label} (${xs.length}):`);
        for (const s of xs.slice(0, top)) out.push(cut(`    ${s.call}  ${s.location}`, width));
        if (xs.length > top) out.push(`    … ${xs.length - top} more`);
      };
      list('call sites only in B (appeared)', appeared);
      list('call sites only in A (vanished)', vanished);
    }
  }

  const m = d.monitor;
  if (m) {
    out.push(bold('monitor:'));
    out.push(...t(['class', 'messages A', 'messages B', 'bytes A', 'bytes B', 'change'], m.classes.map((c) => [c.label, String(c.a.count), String(c.b.count),
      humanBytes(c.a.bytes), humanBytes(c.b.bytes), signedBytes(c.b.bytes - c.a.bytes)]), [false, true, true, true, true, true]));
    if (m.pairs.length) {
      out.push(`  communication matrix, point-to-point pairs that changed, largest first (${m.pairsChanged}):`);
      out.push(...t(['sender → receiver', 'bytes A', 'bytes B', 'change', 'msgs A', 'msgs B'], m.pairs.slice(0, top).map((x) => [`${x.from} → ${x.to}`,
        humanBytes(x.a.bytes), humanBytes(x.b.bytes), signedBytes(x.bytes), String(x.a.count), String(x.b.count)]), [false, true, true, true, true, true]));
      if (m.pairs.length > top) out.push(`    … ${m.pairs.length - top} more pairs (--top N; --top 0 for all)`);
    } else {
      out.push('  communication matrix: no point-to-point pair changed');
    }
  }
  if (d.traceCount) {
    out.push(bold('trace-count:'));
    if (!d.traceCount.length) out.push('  the same number of calls of every MPI function');
    else {
      out.push(...t(['function', 'calls A', 'calls B', 'change'], d.traceCount.slice(0, top).map((x) => [x.fn, String(x.a), String(x.b), signed(x.change)]),
        [false, true, true, true]));
    }
  }
  if (!p && !m && !d.traceCount) out.push('  neither run has profile, monitor or trace-count data to compare');
  return out.join('\n');
}

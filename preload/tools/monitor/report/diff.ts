// The monitor tool's part of `mpii report A B`: traffic per class, and the point-to-point pairs
// (sender, receiver) whose bytes or messages changed, largest change first.
import { type Profile, cell, table, type DiffTextContext, type ToolDiff, humanBytes, signedBytes } from '../../../../src/tool-api/index.js';
import { CLASSES, monitorRuns, totals, type MonitorRun } from './data.js';

export interface PairChange {
  from: number;
  to: number;
  a: { bytes: number; count: number };
  b: { bytes: number; count: number };
  bytes: number;
  count: number;
}

export interface MonitorDiff {
  size: { a: number; b: number };
  classes: { class: string; label: string; a: { count: number; bytes: number }; b: { count: number; bytes: number } }[];
  /** point-to-point pairs (bytes and messages sent from `from` to `to`) */
  pairs: PairChange[];
  pairsChanged: number;
}

export function monitorDiff(ma: MonitorRun, mb: MonitorRun): MonitorDiff {
  const ta = totals(ma);
  const tb = totals(mb);
  const pairs = new Map<string, PairChange>();
  const zero = () => ({ bytes: 0, count: 0 });
  const add = (run: MonitorRun, side: 'a' | 'b') => {
    for (const r of run.ranks) {
      for (const [peer, s] of r.peers) {
        if (!s.p2p.count) continue;
        const k = `${r.rank}>${peer}`;
        const x = pairs.get(k) ?? { from: r.rank, to: peer, a: zero(), b: zero(), bytes: 0, count: 0 };
        x[side] = { bytes: s.p2p.bytes, count: s.p2p.count };
        pairs.set(k, x);
      }
    }
  };
  add(ma, 'a');
  add(mb, 'b');
  const list = [...pairs.values()];
  for (const x of list) {
    x.bytes = x.b.bytes - x.a.bytes;
    x.count = x.b.count - x.a.count;
  }
  const changed = list
    .filter((x) => x.bytes !== 0 || x.count !== 0)
    .sort((x, y) => Math.abs(y.bytes) - Math.abs(x.bytes) || Math.abs(y.count) - Math.abs(x.count) || x.from - y.from || x.to - y.to);
  return {
    size: { a: ma.size, b: mb.size },
    classes: CLASSES.map((c) => ({ class: c.name, label: c.label, a: ta[c.name], b: tb[c.name] })),
    pairs: changed,
    pairsChanged: changed.length,
  };
}

function text(m: MonitorDiff, o: DiffTextContext): string[] {
  const { top, bold, table: t } = o;
  const out = [bold('monitor:')];
  out.push(
    ...t(
      ['class', 'messages A', 'messages B', 'bytes A', 'bytes B', 'change'],
      m.classes.map((c) => [c.label, String(c.a.count), String(c.b.count), humanBytes(c.a.bytes), humanBytes(c.b.bytes), signedBytes(c.b.bytes - c.a.bytes)]),
      [false, true, true, true, true, true],
    ),
  );
  if (!m.pairs.length) return [...out, '  communication matrix: no point-to-point pair changed'];
  out.push(`  communication matrix, point-to-point pairs that changed, largest first (${m.pairsChanged}):`);
  out.push(
    ...t(
      ['sender → receiver', 'bytes A', 'bytes B', 'change', 'msgs A', 'msgs B'],
      m.pairs
        .slice(0, top)
        .map((x) => [`${x.from} → ${x.to}`, humanBytes(x.a.bytes), humanBytes(x.b.bytes), signedBytes(x.bytes), String(x.a.count), String(x.b.count)]),
      [false, true, true, true, true, true],
    ),
  );
  if (m.pairs.length > top) out.push(`    … ${m.pairs.length - top} more pairs (--top N; --top 0 for all)`);
  return out;
}

function html(m: MonitorDiff, top: number): string {
  return [
    '<section id="monitor"><h2>Communication <small>monitor</small></h2>',
    table(
      'diff-classes',
      [
        { head: 'class' },
        { head: 'messages A', right: true },
        { head: 'messages B', right: true },
        { head: 'bytes A', right: true },
        { head: 'bytes B', right: true },
        { head: 'change', right: true },
      ],
      m.classes.map((c) => [
        cell(c.label),
        cell(c.a.count),
        cell(c.b.count),
        cell(humanBytes(c.a.bytes), c.a.bytes),
        cell(humanBytes(c.b.bytes), c.b.bytes),
        cell(signedBytes(c.b.bytes - c.a.bytes), c.b.bytes - c.a.bytes),
      ]),
    ),
    `<h3>Communication matrix: point-to-point pairs that changed <small>(${m.pairsChanged})</small></h3>`,
    table(
      'diff-pairs',
      [
        { head: 'sender', right: true },
        { head: 'receiver', right: true },
        { head: 'bytes A', right: true },
        { head: 'bytes B', right: true },
        { head: 'change', right: true },
        { head: 'messages A', right: true },
        { head: 'messages B', right: true },
      ],
      m.pairs
        .slice(0, top)
        .map((x) => [
          cell(x.from),
          cell(x.to),
          cell(humanBytes(x.a.bytes), x.a.bytes),
          cell(humanBytes(x.b.bytes), x.b.bytes),
          cell(signedBytes(x.bytes), x.bytes),
          cell(x.a.count),
          cell(x.b.count),
        ]),
    ),
    '</section>',
  ].join('\n');
}

export const monitorDiffReport: ToolDiff<MonitorDiff> = {
  compute(a: Profile, b: Profile) {
    const ma = monitorRuns(a)[0];
    const mb = monitorRuns(b)[0];
    return ma && mb ? monitorDiff(ma, mb) : undefined;
  },
  text,
  html,
  json: (m, top) => ({ ...m, pairs: m.pairs.slice(0, top) }),
};

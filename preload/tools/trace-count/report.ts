// The trace-count table: calls per MPI function, summed over ranks, with the per-rank spread.
import { type Profile, cell, table, type ToolDiff, type ToolReport, signedCount } from '../../../src/tool-api/index.js';

export interface CallRow {
  fn: string;
  total: bigint;
  min: bigint;
  max: bigint;
  ranks: number;
}

/** One table per trace-count instance (a tool listed twice reports twice). */
export function traceCountTables(p: Profile): { tool: number; rows: CallRow[] }[] {
  const byTool = new Map<number, Map<string, bigint[]>>();
  for (const r of p.ranks) {
    for (const c of r.counters) {
      if (c.name !== 'calls' || r.tools.get(c.tool) !== 'trace-count') continue;
      const table = byTool.get(c.tool) ?? new Map<string, bigint[]>();
      byTool.set(c.tool, table);
      for (const [i, v] of c.nonzero) {
        const fn = c.labels[i];
        if (!fn) continue;
        const list = table.get(fn) ?? [];
        list.push(v);
        table.set(fn, list);
      }
    }
  }
  const nranks = p.ranks.length;
  return [...byTool.entries()].map(([tool, table]) => ({
    tool,
    rows: [...table.entries()]
      .map(([fn, vals]) => {
        const all = [...vals, ...new Array<bigint>(nranks - vals.length).fill(0n)];
        return {
          fn,
          total: all.reduce((a, b) => a + b, 0n),
          min: all.reduce((a, b) => (b < a ? b : a)),
          max: all.reduce((a, b) => (b > a ? b : a)),
          ranks: vals.length,
        };
      })
      .sort((a, b) => (b.total > a.total ? 1 : b.total < a.total ? -1 : a.fn.localeCompare(b.fn))),
  }));
}

export function formatTraceCount(p: Profile, top = 15): string[] {
  const out: string[] = [];
  for (const { tool, rows } of traceCountTables(p)) {
    out.push(`trace-count (tool ${tool}): MPI calls over ${p.ranks.length} rank${p.ranks.length === 1 ? '' : 's'}`);
    const shown = rows.slice(0, top);
    const w = Math.max(8, ...shown.map((r) => r.fn.length));
    out.push(`  ${'function'.padEnd(w)}  ${'total'.padStart(10)}  ${'min/rank'.padStart(9)}  ${'max/rank'.padStart(9)}`);
    for (const r of shown) {
      out.push(`  ${r.fn.padEnd(w)}  ${String(r.total).padStart(10)}  ${String(r.min).padStart(9)}  ${String(r.max).padStart(9)}`);
    }
    if (rows.length > shown.length) out.push(`  … ${rows.length - shown.length} more functions (mpii report --json for all)`);
  }
  return out;
}

// ---------------------------------------------------------------- --html

function traceCountSection(p: Profile, top: number): string {
  return traceCountTables(p)
    .map(
      ({ tool, rows }) => `<section id="trace-count-${tool}"><h2>MPI calls <small>trace-count, tool ${tool}</small></h2>
${table(
  `trace-count-${tool}-calls`,
  [{ head: 'function' }, { head: 'total', right: true }, { head: 'min / rank', right: true }, { head: 'max / rank', right: true }],
  rows.slice(0, top).map((r) => [cell(r.fn), cell(Number(r.total)), cell(Number(r.min)), cell(Number(r.max))]),
)}
</section>`,
    )
    .join('\n');
}

export interface CallChange {
  fn: string;
  a: number;
  b: number;
  change: number;
}

/** `mpii report A B`: the MPI functions whose call count changed, largest change first. */
const traceCountDiff: ToolDiff<CallChange[]> = {
  compute(a, b) {
    const ca = traceCountTables(a)[0];
    const cb = traceCountTables(b)[0];
    if (!ca || !cb) return undefined;
    const m = new Map<string, CallChange>();
    for (const r of ca.rows) m.set(r.fn, { fn: r.fn, a: Number(r.total), b: 0, change: 0 });
    for (const r of cb.rows) m.set(r.fn, { ...(m.get(r.fn) ?? { fn: r.fn, a: 0, b: 0, change: 0 }), b: Number(r.total) });
    return [...m.values()]
      .map((x) => ({ ...x, change: x.b - x.a }))
      .filter((x) => x.change !== 0)
      .sort((x, y) => Math.abs(y.change) - Math.abs(x.change) || x.fn.localeCompare(y.fn));
  },
  text: (d, o) => [
    o.bold('trace-count:'),
    ...(d.length
      ? o.table(
          ['function', 'calls A', 'calls B', 'change'],
          d.slice(0, o.top).map((x) => [x.fn, String(x.a), String(x.b), signedCount(x.change)]),
          [false, true, true, true],
        )
      : ['  the same number of calls of every MPI function']),
  ],
  html: (d, top) => `<section id="trace-count"><h2>MPI calls <small>trace-count</small></h2>
${table(
  'diff-calls',
  [{ head: 'function' }, { head: 'calls A', right: true }, { head: 'calls B', right: true }, { head: 'change', right: true }],
  d.slice(0, top).map((x) => [cell(x.fn), cell(x.a), cell(x.b), cell(x.change)]),
)}
</section>`,
  json: (d, top) => d.slice(0, top),
};

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

export const report: ToolReport = {
  // after mpii run the tool's own `top`; mpii report's --top
  text: (p, o) => formatTraceCount(p, o.top ?? num(o.options?.top)),
  json: (p) =>
    traceCountTables(p).map((t) => ({ tool: t.tool, rows: t.rows.map((r) => ({ fn: r.fn, total: Number(r.total), min: Number(r.min), max: Number(r.max) })) })),
  html: (p, o) => traceCountSection(p, o.top),
  diff: traceCountDiff,
};

// The trace-count table: calls per MPI function, summed over ranks, with the per-rank spread.
import type { Profile } from '../../../src/profile-file/read.js';
import { cell, table } from '../../../src/report/html-kit.js';
import type { ToolReport } from '../../../src/report/tool-report.js';

export interface CallRow { fn: string; total: bigint; min: bigint; max: bigint; ranks: number }

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
    rows: [...table.entries()].map(([fn, vals]) => {
      const all = [...vals, ...new Array<bigint>(nranks - vals.length).fill(0n)];
      return {
        fn,
        total: all.reduce((a, b) => a + b, 0n),
        min: all.reduce((a, b) => (b < a ? b : a)),
        max: all.reduce((a, b) => (b > a ? b : a)),
        ranks: vals.length,
      };
    }).sort((a, b) => (b.total > a.total ? 1 : b.total < a.total ? -1 : a.fn.localeCompare(b.fn))),
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
  return traceCountTables(p).map(({ tool, rows }) => `<section id="trace-count-${tool}"><h2>MPI calls <small>trace-count, tool ${tool}</small></h2>
${table(`trace-count-${tool}-calls`, [{ head: 'function' }, { head: 'total', right: true }, { head: 'min / rank', right: true }, { head: 'max / rank', right: true }],
    rows.slice(0, top).map((r) => [cell(r.fn), cell(Number(r.total)), cell(Number(r.min)), cell(Number(r.max))]))}
</section>`).join('\n');
}

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

export const report: ToolReport = {
  // after mpii run the tool's own `top`; mpii report's --top
  text: (p, o) => formatTraceCount(p, o.top ?? num(o.options?.top)),
  json: (p) => traceCountTables(p).map((t) => ({ tool: t.tool,
    rows: t.rows.map((r) => ({ fn: r.fn, total: Number(r.total), min: Number(r.min), max: Number(r.max) })) })),
  html: (p, o) => traceCountSection(p, o.top),
};

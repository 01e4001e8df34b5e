// The overlap tool's statistics: what was converted, what passed through and why, what made
// the background requests wait, and how long. Counter names come from the profile's labels
// (blocks.yaml here), so a new statistic shows up without a change here.
import {
  disabledLines,
  type Profile,
  humanBytes as bytes,
  humanBytes,
  humanTime,
  cell,
  esc,
  num,
  table,
  type ToolReport,
} from '../../../src/tool-api/index.js';

export interface OverlapRun {
  tool: number;
  /** statistic name -> value per rank (rank order) */
  stats: Map<string, number[]>;
  ranks: number[];
  /** ranks where the tool stayed off, with the reason */
  disabled: { rank: number; reason: string }[];
}

export function overlapRuns(p: Profile): OverlapRun[] {
  const runs = new Map<number, OverlapRun>();
  for (const r of p.ranks) {
    for (const [tool, name] of r.tools) {
      if (name !== 'overlap' || runs.has(tool)) continue;
      runs.set(tool, { tool, stats: new Map(), ranks: [], disabled: [] });
    }
  }
  for (const run of runs.values()) {
    const ranks = p.ranks.filter((r) => r.tools.get(run.tool) === 'overlap');
    run.ranks = ranks.map((r) => r.rank);
    ranks.forEach((r, i) => {
      for (const c of r.counters) {
        if (c.tool !== run.tool || c.name !== 'stats') continue;
        c.labels.forEach((label, idx) => {
          if (!label) return;
          const list = run.stats.get(label) ?? new Array<number>(ranks.length).fill(0);
          list[i] = Number(c.nonzero.get(idx) ?? 0n);
          run.stats.set(label, list);
        });
      }
      const off = r.texts.find((t) => t.tool === run.tool && t.name === 'disabled');
      if (off) run.disabled.push({ rank: r.rank, reason: off.text });
    });
  }
  return [...runs.values()];
}

const sum = (v: number[] | undefined) => (v ?? []).reduce((a, b) => a + b, 0);

/** Totals over ranks, by statistic name. */
export function overlapTotals(run: OverlapRun): Record<string, number> {
  return Object.fromEntries([...run.stats.entries()].map(([k, v]) => [k, sum(v)]));
}

export function formatOverlap(p: Profile): string[] {
  const out: string[] = [];
  for (const run of overlapRuns(p)) {
    const t = overlapTotals(run);
    const n = run.ranks.length;
    out.push(`overlap (tool ${run.tool}): ${n} rank${n === 1 ? '' : 's'}`);
    out.push(...disabledLines(run.disabled, run.ranks.length));
    const converted = (t['sends converted'] ?? 0) + (t['receives converted'] ?? 0);
    out.push(
      `  converted   ${t['sends converted'] ?? 0} sends (${bytes(t['bytes sent'] ?? 0)}), ` +
        `${t['receives converted'] ?? 0} receives (${bytes(t['bytes received'] ?? 0)}), ` +
        `${t['sendrecvs converted'] ?? 0} of them Sendrecv`,
    );
    const passed = [...run.stats.keys()].filter((k) => k.startsWith('passed: ') && t[k]);
    out.push(`  passed      ${passed.length ? passed.map((k) => `${t[k]} ${k.slice(8)}`).join(', ') : 'none'}`);
    const waits = [...run.stats.keys()].filter((k) => k.startsWith('waits: ') && t[k]);
    out.push(`  waits       ${waits.length ? waits.map((k) => `${t[k]} ${k.slice(7)}`).join(', ') : 'none'}`);
    const waitMs = (t['wait time ns'] ?? 0) / 1e6;
    out.push(
      `  faults      ${t.faults ?? 0} (page touches that finished a receive); time waiting ${waitMs.toFixed(3)} ms` +
        (n > 1 ? ` (max ${(Math.max(...(run.stats.get('wait time ns') ?? [0])) / 1e6).toFixed(3)} ms on one rank)` : ''),
    );
    out.push(
      `  chains      ${t['chain records'] ?? 0} call signatures, ${t['chain ends learned'] ?? 0} chain ends learned, ` +
        `${t['waits: chain end'] ?? 0} requests finished at a chain end`,
    );
    if (t['calls checked']) {
      out.push(
        `  checked     ${t['calls checked']} other MPI calls (a buffer or status argument while a receive was ` +
          'in flight or a status remembered, or a buffer the library keeps)',
      );
    }
    if (t['call sites']) {
      out.push(
        `  adaptive    ${t['call sites']} call sites, ${t['adaptive decisions'] ?? 0} decisions, ` +
          `${t['call sites switched off'] ?? 0} switched off (not faster in the background)`,
      );
    }
    if (!converted && !run.disabled.length) out.push('  nothing was converted: see "passed" for why');
  }
  return out;
}

// ---------------------------------------------------------------- --html

function overlapSection(p: Profile): string {
  return overlapRuns(p)
    .map((run) => {
      const t = overlapTotals(run);
      const rows = [...run.stats.entries()].map(([k, v]) => {
        const isTime = k.endsWith(' ns');
        const fmt = (x: number) => (isTime ? humanTime(x / 1e9) : k.startsWith('bytes') ? humanBytes(x) : num(x));
        return [cell(isTime ? k.slice(0, -3) : k), cell(fmt(t[k]), t[k]), cell(fmt(Math.min(...v)), Math.min(...v)), cell(fmt(Math.max(...v)), Math.max(...v))];
      });
      return `<section id="overlap-${run.tool}"><h2>Overlap statistics <small>overlap, tool ${run.tool}: ${run.ranks.length} ranks</small></h2>
${run.disabled.map((d) => `<p class="warn">rank ${d.rank}: off (${esc(d.reason)})</p>`).join('\n')}
${table(`overlap-${run.tool}-stats`, [{ head: 'statistic' }, { head: 'all ranks', right: true }, { head: 'min / rank', right: true }, { head: 'max / rank', right: true }], rows)}
</section>`;
    })
    .join('\n');
}

export const report: ToolReport = {
  text: (p) => formatOverlap(p),
  json: (p) =>
    overlapRuns(p).map((run) => ({
      tool: run.tool,
      totals: overlapTotals(run),
      disabled: run.disabled,
      ranks: run.ranks.map((rank, i) => ({ rank, ...Object.fromEntries([...run.stats.entries()].map(([k, v]) => [k, v[i]])) })),
    })),
  html: (p) => overlapSection(p),
};

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
  describe,
  Symbolizer,
} from '../../../src/tool-api/index.js';

export interface OverlapRun {
  tool: number;
  /** statistic name -> value per rank (rank order) */
  stats: Map<string, number[]>;
  ranks: number[];
  /** ranks where the tool stayed off, with the reason */
  disabled: { rank: number; reason: string }[];
  /** adaptive: each call site's account, summed over ranks (block "site") */
  sites: AdaptiveSite[];
}

/** Why adaptive runs a site as it does (OV_WHY_NAMES in adaptive.h). */
const WHY: Record<string, string> = {
  exploring: 'still exploring (no decision yet)',
  unhidden: 'plain: its background receives were touched at once, nothing to hide behind',
  'early-slower': 'plain: slower in the background in its first blocks',
  'early-faster': 'background: faster in its first blocks',
  won: 'background: won every block against plain, 5 % faster over all',
  'not-won': 'plain: not faster in every block, or by less than 5 % (in doubt, plain)',
};

export interface AdaptiveSite {
  /** where: the object and the offset in it (the same in every rank) */
  path: string;
  offset: number;
  calls: number;
  background: number;
  /** ranks whose latest decision ran the site in the background / plain */
  onRanks: number;
  offRanks: number;
  /** the latest decision's reason on each rank, counted */
  why: Map<string, number>;
  /** mean periods (ns) that rank's decisions compared, summed with their rank count, for a mean */
  plainNs: number;
  backgroundNs: number;
  compared: number;
  decisions: number;
}

/** A "site" line: "<address> <calls> <background> <on> <why> <plain ns> <background ns> <decisions> <bias> <path>". */
function parseSite(text: string): (Omit<AdaptiveSite, 'why' | 'onRanks' | 'offRanks' | 'compared'> & { on: boolean; why: string }) | undefined {
  const m = /^([0-9a-f]+) (\d+) (\d+) ([01]) (\S+) (\d+) (\d+) (\d+) ([0-9a-f]+) ?(.*)$/.exec(text);
  if (!m) return undefined;
  const addr = Number.parseInt(m[1], 16);
  return {
    path: m[10],
    offset: m[10] ? addr - Number.parseInt(m[9], 16) : addr,
    calls: Number(m[2]),
    background: Number(m[3]),
    on: m[4] === '1',
    why: m[5],
    plainNs: Number(m[6]),
    backgroundNs: Number(m[7]),
    decisions: Number(m[8]),
  };
}

function sitesOf(texts: string[]): AdaptiveSite[] {
  const by = new Map<string, AdaptiveSite>();
  for (const t of texts) {
    const s = parseSite(t);
    if (!s) continue;
    const key = `${s.path}@${s.offset}`;
    let a = by.get(key);
    if (!a)
      by.set(
        key,
        (a = {
          path: s.path,
          offset: s.offset,
          calls: 0,
          background: 0,
          onRanks: 0,
          offRanks: 0,
          why: new Map(),
          plainNs: 0,
          backgroundNs: 0,
          compared: 0,
          decisions: 0,
        }),
      );
    a.calls += s.calls;
    a.background += s.background;
    if (s.on) a.onRanks++;
    else a.offRanks++;
    a.why.set(s.why, (a.why.get(s.why) ?? 0) + 1);
    if (s.plainNs && s.backgroundNs) {
      a.plainNs += s.plainNs;
      a.backgroundNs += s.backgroundNs;
      a.compared++;
    }
    a.decisions += s.decisions;
  }
  return [...by.values()].sort((x, y) => y.calls - x.calls);
}

export function overlapRuns(p: Profile): OverlapRun[] {
  const runs = new Map<number, OverlapRun>();
  for (const r of p.ranks) {
    for (const [tool, name] of r.tools) {
      if (name !== 'overlap' || runs.has(tool)) continue;
      runs.set(tool, { tool, stats: new Map(), ranks: [], disabled: [], sites: [] });
    }
  }
  for (const run of runs.values()) {
    const ranks = p.ranks.filter((r) => r.tools.get(run.tool) === 'overlap');
    run.sites = sitesOf(ranks.flatMap((r) => r.texts.filter((t) => t.tool === run.tool && t.name === 'site').map((t) => t.text)));
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
      const plain = t['call sites decided plain'] ?? 0;
      out.push(
        `  adaptive    ${t['call sites']} call sites (over all ranks): ${t['call sites'] - plain} in the background, ${plain} plain at the end; ` +
          `${t['adaptive decisions'] ?? 0} decisions` +
          (t['call sites in doubt explored again once the others had decided']
            ? `; ${t['call sites in doubt explored again once the others had decided']} sites in doubt explored again once the others had decided`
            : ''),
      );
      out.push(...siteLines(run.sites));
    }
    if (!converted && !run.disabled.length) out.push('  nothing was converted: see "passed" for why');
  }
  return out;
}

const us = (ns: number) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} µs`);

/** Each site's place named (function, file:line where known), its decision and what it measured. */
function explained(sites: AdaptiveSite[]): { site: AdaptiveSite; where: string; chosen: string; measured: string }[] {
  const sym = new Symbolizer();
  for (const s of sites) sym.add({ path: s.path, offset: s.offset });
  sym.resolve();
  return sites.map((s) => {
    const where = s.path ? describe(sym.get({ path: s.path, offset: s.offset })) : s.offset ? `0x${s.offset.toString(16)}` : 'a Python line';
    const why = [...s.why.entries()].sort((a, b) => b[1] - a[1]);
    const ranks = s.onRanks + s.offRanks;
    const chosen =
      why.length === 1
        ? `${ranks > 1 ? `on ${ranks} ranks ` : ''}${WHY[why[0][0]] ?? why[0][0]}`
        : why.map(([w, n]) => `${n} rank${n === 1 ? '' : 's'} ${WHY[w] ?? w}`).join('; ');
    const measured = s.compared ? `mean period plain ${us(s.plainNs / s.compared)}, background ${us(s.backgroundNs / s.compared)}` : '';
    return { site: s, where, chosen, measured };
  });
}

/** One line per call site (the 10 busiest): where, how its calls ran, what the latest decision
 * measured and why it chose so. */
function siteLines(sites: AdaptiveSite[]): string[] {
  const out = explained(sites.slice(0, 10)).map(
    (e) => `    ${e.where}: ${e.site.calls} calls, ${e.site.background} in the background; ${e.chosen}${e.measured ? ` (${e.measured})` : ''}`,
  );
  if (sites.length > 10) out.push(`    … ${sites.length - 10} more sites (--json)`);
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
${run.sites.length ? `<h3>Adaptive decisions per call site</h3>\n${siteTable(run)}` : ''}
</section>`;
    })
    .join('\n');
}

function siteTable(run: OverlapRun): string {
  const rows = explained(run.sites).map((e) => [
    cell(e.where),
    cell(num(e.site.calls), e.site.calls),
    cell(num(e.site.background), e.site.background),
    cell(e.chosen),
    cell(e.measured),
  ]);
  return table(
    `overlap-${run.tool}-sites`,
    [
      { head: 'call site' },
      { head: 'calls', right: true },
      { head: 'in the background', right: true },
      { head: 'decision (latest, per rank)' },
      { head: 'measured' },
    ],
    rows,
  );
}

export const report: ToolReport = {
  text: (p) => formatOverlap(p),
  json: (p) =>
    overlapRuns(p).map((run) => ({
      tool: run.tool,
      totals: overlapTotals(run),
      disabled: run.disabled,
      sites: run.sites.map((s) => ({ ...s, why: Object.fromEntries(s.why) })),
      ranks: run.ranks.map((rank, i) => ({ rank, ...Object.fromEntries([...run.stats.entries()].map(([k, v]) => [k, v[i]])) })),
    })),
  html: (p) => overlapSection(p),
};

// `mpii report DIR --html FILE`: every tool's results in one self-contained page. No network:
// styles, script and data are inline, and the page's Content-Security-Policy forbids loading
// anything else. Tables are written here; the two charts (the communication matrix as a heatmap
// with counts/bytes and class switches, per-rank MPI vs compute bars) are drawn by the page's
// script from the data embedded in it, binned so that a 1024-rank job stays a few thousand cells.
import type { Profile } from '../profile-file/read.js';
import { DEFAULT_PAIRS, DEFAULT_TOP, type ReportFilter } from './filter.js';
import { cell, esc, table, type PageData } from './html-kit.js';
import { pageHead, SORTABLE_SCRIPT } from './html-page.js';
import { rankRanges, runHeader, toolLabel, utc } from './header.js';
import { timelineSection } from './timeline.js';
import { TOOL_REPORTS } from './tools.js';
import { builtinManifests } from '../tools/manifest.js';

// the kit the sections are written with, for the pages that import it from here (diff-html.ts)
export { cell, esc, HEATMAP_CELLS, RANK_BARS, table } from './html-kit.js';
export type { Col } from './html-kit.js';

/** Places on the page (manifests' `report.html-order`): the timeline, then the generic
 *  sections of tools without a report module of their own. */
const TIMELINE_ORDER = 40;
const GENERIC_ORDER = 80;

/** A tool without a report module that draws its own sections (external ones, noop): its
 *  counters summed over ranks, its text blocks as tables when they are JSON records, else as text. */
function genericSection(p: Profile): string {
  const out: string[] = [];
  const instances = new Map<number, string>();
  const known = new Set(TOOL_REPORTS.map((t) => t.name).concat(builtinManifests().map((m) => m.name)));
  for (const r of p.ranks) for (const [id, name] of r.tools) if (!known.has(name)) instances.set(id, name);
  for (const [tool, name] of [...instances].sort((a, b) => a[0] - b[0])) {
    const title = `Results of ${name}`;
    out.push(`<section id="tool-${tool}" class="tool-${esc(name)}"><h2>${esc(title)} <small>${esc(name)}, tool ${tool}</small></h2>`);
    const sums = new Map<string, { total: number; ranks: number }>();
    const texts = new Map<string, { rank: number; text: string }[]>();
    for (const r of p.ranks) {
      if (r.tools.get(tool) !== name) continue;
      for (const c of r.counters) {
        if (c.tool !== tool) continue;
        const names = c.labels.length && c.labels[c.labels.length - 1] === '' ? c.labels.slice(0, -1) : c.labels; // "a\nb\n"
        const labelled = names.length === c.length || c.length === 1;
        let nonzero = 0;
        c.forEach((i, v) => {
          if (v >= 2 ** 63) return;
          nonzero++;
          if (!labelled) return; // a table without names (a tool's own layout): only how full it is
          const label = c.length === 1 ? c.name : `${c.name}: ${names[i]}`;
          const s = sums.get(label) ?? { total: 0, ranks: 0 };
          s.total += v;
          s.ranks++;
          sums.set(label, s);
        });
        if (!labelled && nonzero) {
          const s = sums.get(`${c.name} (non-zero entries)`) ?? { total: 0, ranks: 0 };
          s.total += nonzero;
          s.ranks++;
          sums.set(`${c.name} (non-zero entries)`, s);
        }
      }
      for (const t of r.texts) if (t.tool === tool) texts.set(t.name, [...(texts.get(t.name) ?? []), { rank: r.rank, text: t.text }]);
    }
    if (sums.size > 500) out.push(`<p>${sums.size} counters; the first 500:</p>`);
    if (sums.size) {
      out.push(
        table(
          `tool-${tool}-counters`,
          [{ head: 'counter' }, { head: 'all ranks', right: true }, { head: 'ranks', right: true }],
          [...sums].slice(0, 500).map(([k, s]) => [cell(k), cell(s.total), cell(s.ranks)]),
        ),
      );
    }
    for (const [section, list] of texts) out.push(findings(`tool-${tool}-${section}`, section, list));
    if (!sums.size && !texts.size) out.push('<p>No findings recorded.</p>');
    out.push('</section>');
  }
  return out.join('\n');
}

function findings(id: string, section: string, list: { rank: number; text: string }[]): string {
  const records: Record<string, unknown>[] = [];
  const plain: { rank: number; text: string }[] = [];
  for (const { rank, text } of list) {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      plain.push({ rank, text });
      continue;
    }
    const items = Array.isArray(v) ? v : [v];
    for (const it of items) {
      if (it && typeof it === 'object' && !Array.isArray(it)) records.push({ rank, ...(it as Record<string, unknown>) });
      else plain.push({ rank, text: JSON.stringify(it) });
    }
  }
  const out = [`<h3>${esc(section)} <small>(${records.length + plain.length} entr${records.length + plain.length === 1 ? 'y' : 'ies'})</small></h3>`];
  if (records.length) {
    const keys = [...new Set(records.flatMap((r) => Object.keys(r)))];
    const show = (v: unknown) => (v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
    out.push(
      table(
        `${id}-records`,
        keys.map((k) => ({ head: k, right: records.every((r) => r[k] === undefined || typeof r[k] === 'number') })),
        records.slice(0, 1000).map((r) => keys.map((k) => cell(show(r[k]), typeof r[k] === 'number' ? (r[k] as number) : show(r[k])))),
      ),
    );
    if (records.length > 1000) out.push(`<p>… ${records.length - 1000} more (mpii report --json)</p>`);
  }
  if (plain.length) {
    // raw text (load maps, notes): folded, it is rarely what one looks for first
    const same = plain.every((x) => x.text === plain[0].text);
    out.push(
      `<details><summary>${same ? `the same on ${plain.length} rank${plain.length === 1 ? '' : 's'}` : `text of ${plain.length} rank${plain.length === 1 ? '' : 's'}`}</summary>`,
    );
    for (const x of same ? plain.slice(0, 1) : plain.slice(0, 200))
      out.push(`<pre>${same ? '' : `<b>rank ${x.rank}</b>\n`}${esc(x.text.slice(0, 20000))}</pre>`);
    out.push('</details>');
  }
  return out.join('\n');
}

// ---------------------------------------------------------------- the page

/** The run as mpiP's header tells it: command, launcher, MPI, times, hosts, tools and options. */
function runBlock(p: Profile): string {
  const h = runHeader(p);
  const rows: [string, string, string][] = [];
  if (h.command) rows.push(['command', 'Command', h.command.join(' ')]);
  if (h.launcher) rows.push(['launcher', 'Launcher', h.launcher]);
  rows.push(['mpi', 'MPI', h.mpi + (h.mpii ? ` · mpii ${h.mpii}` : '')]);
  if (h.start !== null) rows.push(['start', 'Started', utc(h.start)]);
  if (h.start !== null) rows.push(['stop', 'Stopped', h.stop !== null ? `${utc(h.stop)} (${(h.stop - h.start).toFixed(3)} s)` : 'no rank finished']);
  rows.push([
    'hosts',
    `Host${h.hosts.length === 1 ? '' : 's'} (${h.hosts.length})`,
    h.hosts
      .slice(0, 64)
      .map((x) => `${x.host}: ${x.ranks.length} (${rankRanges(x.ranks)})`)
      .join(' · ') + (h.hosts.length > 64 ? ` · … ${h.hosts.length - 64} more` : ''),
  ]);
  rows.push(['tools', 'Tools', h.tools.map(toolLabel).join(' ') || 'none']);
  if (h.missing.length) rows.push(['missing', 'Not recorded', `${h.missing.join(', ')} (the run was not started by mpii run)`]);
  return `<dl id="run" class="run">${rows.map(([k, label, v]) => `<dt>${esc(label)}</dt><dd data-key="${k}">${esc(v)}</dd>`).join('')}</dl>`;
}

export interface HtmlOptions {
  top?: number;
  generated?: Date;
  filter?: ReportFilter;
}

export function htmlReport(p: Profile, o: HtmlOptions = {}): string {
  // the rows of the text report: call sites and trace-count functions DEFAULT_TOP, pairs DEFAULT_PAIRS
  const top = o.top ?? o.filter?.top ?? DEFAULT_TOP;
  const pairsTop = o.top ?? DEFAULT_PAIRS;
  const data: PageData = { heatmaps: [], bars: [], hists: [] };
  const tools = new Map<number, string>();
  for (const r of p.ranks) for (const [id, name] of r.tools) tools.set(id, name);
  const states = p.ranks.map((r) => r.state);
  const body: string[] = [];
  const ctx = { top, pairsTop, filter: o.filter ?? {}, data };
  const parts = [
    ...TOOL_REPORTS.filter((t) => t.report.html).map((t) => ({ order: t.htmlOrder, html: () => t.report.html!(p, ctx) })),
    { order: TIMELINE_ORDER, html: () => timelineSection(p) },
    { order: GENERIC_ORDER, html: () => genericSection(p) },
  ].sort((a, b) => a.order - b.order); // stable: a tool at 40 or 80 comes before the core's part
  for (const part of parts) body.push(...[part.html()].flat());
  const sections = body.join('\n');
  if (!tools.size) body.push('<p>No tools were in the stack: nothing was recorded.</p>');
  const nav = [...sections.matchAll(/<section id="([^"]+)"[^>]*><h2>([^<]+)/g)].map((m) => `<a href="#${m[1]}">${m[2].trim()}</a>`).join(' · ');
  const title = `mpii report: ${p.ranks.length} rank${p.ranks.length === 1 ? '' : 's'}`;
  const status = p.complete
    ? 'complete'
    : `INCOMPLETE: ${p.ranks.length}${p.size > 0 ? ` of ${p.size}` : ''} ranks left data; ` +
      `${states.filter((s) => s === 'aborted').length} aborted, ${states.filter((s) => s === 'running').length} did not finalize`;
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  return `${pageHead(title, CSS, esc)}
<header><h1>${esc(title)}</h1>
<p class="meta${p.complete ? '' : ' warn'}" id="status">${esc(status)} · ${esc(p.ranks[0]?.flavor ?? '?')} · tools: ${esc(
    [...tools.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([id, n]) => `${id}:${n}`)
      .join(' ') || 'none',
  )}
 · ${esc(p.dir)}</p>
${runBlock(p)}
<nav>${nav}</nav></header>
<main>
${body.join('\n')}
</main>
<footer>Written by mpii${o.generated ? ` on ${esc(o.generated.toISOString())}` : ''} from ${esc(p.source)}. Self-contained: this file loads nothing.</footer>
<script type="application/json" id="mpii-data">${json}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}

export const CSS = `
:root { --fg: #1d2330; --muted: #5c6475; --line: #dde1e8; --bg: #fff; --alt: #f6f7f9; --mpi: #d9480f; --compute: #4c6ef5; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "Liberation Sans", sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 16px 24px 8px; border-bottom: 1px solid var(--line); background: var(--bg); }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 14px; margin: 18px 0 6px; }
small { color: var(--muted); font-weight: normal; }
main { padding: 0 24px 24px; max-width: 1400px; }
nav a { margin-right: 4px; color: #1c5fd4; text-decoration: none; }
.meta { color: var(--muted); margin: 0 0 4px; }
.warn { color: #b35c00; }
table { border-collapse: collapse; margin: 4px 0 12px; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: var(--alt); cursor: pointer; user-select: none; white-space: nowrap; }
th.sorted-asc::after { content: " ▲"; } th.sorted-desc::after { content: " ▼"; }
td.num, th.num { text-align: right; }
tr:nth-child(even) td { background: #fbfbfc; }
.callers { color: var(--muted); font-size: 12px; }
.cards { display: flex; gap: 12px; flex-wrap: wrap; margin: 8px 0; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; min-width: 150px; }
.card b { display: block; font-size: 18px; }
.card span { color: var(--muted); font-size: 12px; }
figure.chart { margin: 6px 0 12px; }
figcaption { color: var(--muted); font-size: 12px; margin-top: 4px; }
.key { display: inline-block; width: 10px; height: 10px; margin: 0 2px 0 8px; }
.key.mpi { background: var(--mpi); } .key.compute { background: var(--compute); }
.controls { margin: 4px 0 8px; } .controls label { margin-right: 10px; white-space: nowrap; } .controls .sep { margin-left: 14px; }
.heatmap svg text, .bars svg text, svg.timeline text { font-size: 10px; fill: var(--muted); }
.heatmap rect.cell:hover, .bars rect:hover, svg.timeline line.ev:hover { stroke: #000; stroke-width: 1; }
.info { min-height: 1.5em; }
pre { background: var(--alt); padding: 8px; overflow-x: auto; }
.run { display: grid; grid-template-columns: max-content 1fr; gap: 0 12px; margin: 4px 0 8px; font-size: 13px; } .run dt { color: var(--muted); } .run dd { margin: 0; overflow-wrap: anywhere; }
footer { color: var(--muted); padding: 12px 24px; border-top: 1px solid var(--line); font-size: 12px; }
`;

// The page's script: plain ES2017, no library. Data comes from #mpii-data.
const SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('mpii-data').textContent);
  var NS = 'http://www.w3.org/2000/svg';
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function bytes(n) {
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'], v = n, i = 0;
    while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
    return i === 0 ? Math.round(n) + ' B' : v.toFixed(v < 10 ? 2 : 1) + ' ' + u[i];
  }
  function secs(s) {
    if (s === 0) return '0';
    if (s >= 1) return s.toFixed(3) + ' s';
    if (s >= 1e-3) return (s * 1e3).toFixed(3) + ' ms';
    if (s >= 1e-6) return (s * 1e6).toFixed(2) + ' µs';
    return (s * 1e9).toFixed(0) + ' ns';
  }
  // light yellow to dark red, on a log scale between the smallest and the largest cell
  var STOPS = [[255, 255, 204], [254, 217, 118], [253, 141, 60], [227, 26, 28], [128, 0, 38]];
  function colour(t) {
    t = Math.max(0, Math.min(1, t)) * (STOPS.length - 1);
    var i = Math.min(STOPS.length - 2, Math.floor(t)), f = t - i, a = STOPS[i], b = STOPS[i + 1];
    return 'rgb(' + [0, 1, 2].map(function (k) { return Math.round(a[k] + (b[k] - a[k]) * f); }).join(',') + ')';
  }
  function rangeLabel(k, block, n) {
    return block === 1 ? String(k) : (k * block) + '–' + (Math.min(n, (k + 1) * block) - 1);
  }

  function drawHeatmap(h) {
    var box = document.getElementById(h.id);
    var controls = document.getElementById(h.id + '-controls');
    var info = document.getElementById(h.id + '-info');
    var tool = h.id.replace(/-heatmap$/, '');
    function selected(name) { return controls.querySelector('input[name="' + tool + '-' + name + '"]:checked').value; }
    function render() {
      var cls = selected('class'), what = selected('what');
      var m = h.classes[cls][what], other = h.classes[cls][what === 'bytes' ? 'count' : 'bytes'];
      var s = h.side, size = Math.max(240, Math.min(640, s * 16)), c = size / s, L = 64, T = 8;
      var max = 0, min = Infinity, total = 0, nonzero = 0;
      for (var i = 0; i < m.length; i++) { var v = m[i]; if (v > 0) { nonzero++; total += v; if (v > max) max = v; if (v < min) min = v; } }
      // log scale over at most four decades below the busiest cell, at least one: cells that are
      // nearly equal look nearly equal
      var decades = Math.max(1, Math.min(4, Math.log10(max / min))), lo = Math.log10(max) - decades, span = decades;
      box.textContent = '';
      var svg = el('svg', { width: L + size + 110, height: T + size + 44, role: 'img',
        'aria-label': 'communication matrix', 'data-class': cls, 'data-what': what, 'data-max': max, 'data-total': total,
        'data-side': s, 'data-block': h.block, 'data-nonzero': nonzero }, box);
      el('rect', { x: L, y: T, width: size, height: size, fill: '#f4f5f7' }, svg);
      for (var r = 0; r < s; r++) for (var q = 0; q < s; q++) {
        var val = m[r * s + q];
        if (!(val > 0)) continue;
        var rect = el('rect', { 'class': 'cell', x: L + q * c, y: T + r * c, width: c, height: c,
          fill: colour(span > 0 ? (Math.log10(val) - lo) / span : 1), 'data-row': r, 'data-col': q, 'data-value': val,
          'data-other': other[r * s + q] }, svg);
        var t = el('title', {}, rect);
        t.textContent = describe(r, q, val, other[r * s + q], what);
      }
      var step = Math.max(1, Math.ceil(s / 16));
      for (var k = 0; k < s; k += step) {
        var ty = el('text', { x: L - 4, y: T + (k + 0.5) * c + 3, 'text-anchor': 'end' }, svg);
        ty.textContent = rangeLabel(k, h.block, h.n);
        var tx = el('text', { x: L + (k + 0.5) * c, y: T + size + 12, 'text-anchor': 'middle' }, svg);
        tx.textContent = h.block === 1 ? String(k) : String(k * h.block);
      }
      var ax = el('text', { x: L + size / 2, y: T + size + 30, 'text-anchor': 'middle' }, svg);
      ax.textContent = 'receiver →';
      var ay = el('text', { x: 12, y: T + size / 2, transform: 'rotate(-90 12 ' + (T + size / 2) + ')', 'text-anchor': 'middle' }, svg);
      ay.textContent = 'sender →';
      // legend
      var gx = L + size + 16, gh = Math.min(size, 200);
      for (var g = 0; g < 20; g++) el('rect', { x: gx, y: T + gh - (g + 1) * gh / 20, width: 14, height: gh / 20 + 0.5, fill: colour(g / 19) }, svg);
      var fmt = what === 'bytes' ? bytes : function (x) { return String(x); };
      var tmax = el('text', { x: gx + 18, y: T + 8 }, svg); tmax.textContent = max > 0 ? fmt(max) : '—';
      var tmin = el('text', { x: gx + 18, y: T + gh }, svg); tmin.textContent = max > 0 ? (what === 'bytes' ? bytes(Math.pow(10, lo)) : '≤ ' + +Math.pow(10, lo).toPrecision(2)) : '';
      var tlog = el('text', { x: gx, y: T + gh + 14 }, svg); tlog.textContent = '(log scale)';
      info.textContent = (max > 0 ? 'total ' + fmt(total) + (what === 'bytes' ? '' : ' messages') + ' in ' + nonzero + ' cell' + (nonzero === 1 ? '' : 's')
        + ', busiest cell ' + fmt(max) : 'no traffic in this class') + (h.block > 1 ? ' · ' + h.block + ' ranks per cell' : '') + ' · point at a cell for its numbers';
      info.setAttribute('data-total', total);
    }
    function describe(r, q, val, other, what) {
      var b = what === 'bytes' ? val : other, n = what === 'bytes' ? other : val;
      return 'ranks ' + rangeLabel(r, h.block, h.n) + ' → ' + rangeLabel(q, h.block, h.n) + ': ' + bytes(b) + ' in ' + n + ' message' + (n === 1 ? '' : 's');
    }
    box.addEventListener('mouseover', function (e) {
      var t = e.target;
      if (t.getAttribute && t.getAttribute('class') === 'cell') {
        info.textContent = describe(+t.getAttribute('data-row'), +t.getAttribute('data-col'), +t.getAttribute('data-value'),
          +t.getAttribute('data-other'), box.firstChild.getAttribute('data-what'));
      }
    });
    controls.addEventListener('change', render);
    render();
  }

  function drawBars(b) {
    var box = document.getElementById(b.id);
    var n = b.bars.length, W = Math.max(360, Math.min(1100, n * 14)), H = 220, L = 72, T = 8, bw = W / n;
    var max = 0;
    b.bars.forEach(function (x) { if (x[2] > max) max = x[2]; if (x[3] > max) max = x[3]; });
    var svg = el('svg', { width: L + W + 8, height: T + H + 34, role: 'img', 'aria-label': 'MPI and compute time per rank', 'data-bars': n, 'data-max': max }, box);
    var y = function (v) { return T + H - (max > 0 ? v / max * H : 0); };
    for (var g = 0; g <= 4; g++) {
      var v = max * g / 4;
      el('line', { x1: L, x2: L + W, y1: y(v), y2: y(v), stroke: '#e6e8ee' }, svg);
      var t = el('text', { x: L - 4, y: y(v) + 3, 'text-anchor': 'end' }, svg); t.textContent = secs(v);
    }
    b.bars.forEach(function (x, i) {
      var app = x[2], mpi = Math.min(x[3], app), label = b.block === 1 ? 'rank ' + x[0] : 'ranks ' + x[0] + '–' + x[1];
      var gr = el('g', { 'class': 'bar', 'data-first': x[0], 'data-last': x[1], 'data-app': app, 'data-mpi': x[3] }, svg);
      var w = Math.max(1, bw - (bw > 4 ? 1 : 0));
      el('rect', { 'class': 'compute', x: L + i * bw, y: y(app), width: w, height: y(mpi) - y(app), fill: 'var(--compute)' }, gr);
      el('rect', { 'class': 'mpi', x: L + i * bw, y: y(mpi), width: w, height: T + H - y(mpi), fill: 'var(--mpi)' }, gr);
      var tt = el('title', {}, gr);
      tt.textContent = label + ': MPI ' + secs(x[3]) + ' of ' + secs(app) + ' (' + (app > 0 ? (100 * x[3] / app).toFixed(1) : '0') + ' %)'
        + (b.block > 1 ? '; MPI time in the bar from ' + secs(x[4]) + ' to ' + secs(x[5]) : '');
    });
    var step = Math.max(1, Math.ceil(n / 16));
    for (var k = 0; k < n; k += step) {
      var tx = el('text', { x: L + (k + 0.5) * bw, y: T + H + 12, 'text-anchor': 'middle' }, svg); tx.textContent = String(b.bars[k][0]);
    }
    var ax = el('text', { x: L + W / 2, y: T + H + 28, 'text-anchor': 'middle' }, svg); ax.textContent = 'rank';
  }

  function drawHist(h) {
    var box = document.getElementById(h.id);
    var n = h.bins.length, L = 64, T = 8, H = 160, bw = Math.max(18, Math.min(48, 720 / n)), W = n * bw;
    var max = 0;
    h.bins.forEach(function (x) { if (x[2] > max) max = x[2]; });
    var svg = el('svg', { width: L + W + 8, height: T + H + 40, role: 'img', 'aria-label': 'message sizes', 'data-bins': n, 'data-max': max }, box);
    var y = function (v) { return T + H - (max > 0 ? v / max * H : 0); }, labels = [];
    for (var g = 0; g <= 4; g++) {
      var v = Math.round(max * g / 4);
      el('line', { x1: L, x2: L + W, y1: y(v), y2: y(v), stroke: '#e6e8ee' }, svg);
      var t = el('text', { x: L - 4, y: y(v) + 3, 'text-anchor': 'end' }, svg); t.textContent = String(v);
    }
    h.bins.forEach(function (x, i) {
      var r = el('rect', { 'class': 'size-bar', x: L + i * bw + 1, y: y(x[2]), width: bw - 2, height: T + H - y(x[2]), fill: 'var(--compute)',
        'data-lo': x[0], 'data-hi': x[1], 'data-count': x[2] }, svg);
      var tt = el('title', {}, r);
      tt.textContent = (x[1] === 0 ? '0 B' : bytes(x[0]) + ' to ' + bytes(x[1])) + ': ' + x[2] + ' message' + (x[2] === 1 ? '' : 's');
      labels.push(el('text', { 'class': 'size-label', x: L + (i + 0.5) * bw, y: T + H + 12, 'text-anchor': 'middle' }, svg));
      labels[i].textContent = pow2(x[0]);
    });
    // every k-th bin labelled, k the fewest bars the widest label (measured in the page's font)
    // and a gap span, so that no two labels meet whatever the sizes and the window's width
    var widest = 0;
    labels.forEach(function (t) { widest = Math.max(widest, t.getComputedTextLength()); });
    var step = Math.max(1, Math.ceil((widest + 8) / bw)), right = L + W + 8;
    labels.forEach(function (t, i) {
      if (i % step) svg.removeChild(t);
      else right = Math.max(right, L + (i + 0.5) * bw + t.getComputedTextLength() / 2 + 2);
    });
    svg.setAttribute('width', right); // the last label may reach past the last bar
    svg.setAttribute('data-label-step', step);
    var ax = el('text', { x: L + W / 2, y: T + H + 30, 'text-anchor': 'middle' }, svg); ax.textContent = 'message size';
  }
  /** A bin's lower bound, a power of two (or 0), exactly: 512 B, 1 KiB, 64 KiB, 1 MiB. */
  function pow2(n) {
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'], i = 0;
    while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return n + ' ' + u[i];
  }

  ${SORTABLE_SCRIPT}

  data.heatmaps.forEach(drawHeatmap);
  data.bars.forEach(drawBars);
  data.hists.forEach(drawHist);
  document.querySelectorAll('table.sortable').forEach(sortable);
  document.body.setAttribute('data-ready', '1');
})();
`;

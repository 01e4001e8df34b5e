// `mpii report DIR --html FILE`: every tool's results in one self-contained page. No network:
// styles, script and data are inline, and the page's Content-Security-Policy forbids loading
// anything else. Tables are written here; the two charts (the communication matrix as a heatmap
// with counts/bytes and class switches, per-rank MPI vs compute bars) are drawn by the page's
// script from the data embedded in it, binned so that a 1024-rank job stays a few thousand cells.
import type { Profile } from '../profile-file/read.js';
import { binnedMatrices, communicators, monitorRuns, totals, CLASSES, type MonitorRun } from '../../preload/tools/monitor/report/data.js';
import { busiestPairs, humanBytes } from '../../preload/tools/monitor/report/text.js';
import { sizeHistogram } from '../../preload/tools/monitor/report/size-histogram.js';
import { overlapRuns, overlapTotals } from '../../preload/tools/overlap/report.js';
import { memcheckRuns } from '../../preload/tools/memcheck/report.js';
import { describe as where } from './symbols.js';
import { imbalance, pct, profileRuns, runTotals, siteTotals, type ProfileRun } from '../../preload/tools/profile/report/data.js';
import { humanTime } from '../../preload/tools/profile/report/text.js';
import { describe } from './addr2line.js';
import { pageHead, SORTABLE_SCRIPT } from './html-page.js';
import { traceCountTables } from '../../preload/tools/trace-count/report.js';
import { chooseRanks, chooseSites, DEFAULT_PAIRS, DEFAULT_TOP, type ReportFilter } from './filter.js';
import { siteRankRows, siteRows, type SiteRow } from '../../preload/tools/profile/report/stats.js';
import { rankRanges, runHeader, toolLabel, utc } from './header.js';
import { timelineSection } from './timeline.js';

/** Cells per side of the heatmap at most, and bars of the per-rank chart at most. */
export const HEATMAP_CELLS = 64;
export const RANK_BARS = 128;
const KNOWN_TOOLS = new Set(['noop', 'trace-count', 'monitor', 'overlap', 'profile', 'memcheck']);

export const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const num = (v: number) => (Number.isInteger(v) ? v.toLocaleString('en-US') : v.toFixed(2));

export interface Col { head: string; right?: boolean; title?: string }
/** A table; each cell is [text, sort value]. Sortable by clicking a header (the page's script). */
export function table(id: string, cols: Col[], rows: [string, number | string][][], cls = ''): string {
  const head = cols.map((c, i) => `<th data-col="${i}"${c.right ? ' class="num"' : ''}${c.title ? ` title="${esc(c.title)}"` : ''}>${esc(c.head)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map(([text, sort], i) =>
    `<td${cols[i].right ? ' class="num"' : ''} data-sort="${esc(sort)}">${text}</td>`).join('')}</tr>`).join('\n');
  return `<table id="${esc(id)}" class="sortable ${cls}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

export const cell = (text: string | number, sort?: number | string): [string, number | string] => [esc(text), sort ?? (typeof text === 'number' ? text : String(text))];
const rawCell = (html: string, sort: number | string): [string, number | string] => [html, sort];

// ---------------------------------------------------------------- profile

/** mpiP's "Callsite Time statistics": per call site, its ranks and the sum over them (folded). */
function perRankTables(run: ProfileRun, sites: SiteRow[], ranks: number[], id: string): string {
  const out = ['<h3>Per rank, each call site <small>(mpiP: Callsite Time statistics; app % and MPI % of the rank\'s time)</small></h3>'];
  for (const t of sites) {
    const rows = siteRankRows(run, t.site.id, ranks);
    const line = (r: string | number, x: { count: number; tmax: number; mean: number; tmin: number; appPercent: number; mpiPercent: number; sent: number; recv: number }) => [
      cell(r, typeof r === 'number' ? r : Infinity), cell(x.count), cell(humanTime(x.tmax), x.tmax), cell(humanTime(x.mean), x.mean), cell(humanTime(x.tmin), x.tmin),
      cell(x.appPercent.toFixed(2), x.appPercent), cell(x.mpiPercent.toFixed(2), x.mpiPercent), cell(humanBytes(x.sent), x.sent), cell(humanBytes(x.recv), x.recv)];
    out.push(`<details class="site-ranks" data-site="${t.site.id + 1}"><summary>site ${t.site.id + 1}: ${esc(t.site.fn)} ${esc(t.site.location)} (${rows.length} rank${rows.length === 1 ? '' : 's'})</summary>`);
    out.push(table(`${id}-site-${t.site.id + 1}-ranks`, [{ head: 'rank', right: true }, { head: 'calls', right: true }, { head: 'max', right: true },
      { head: 'mean', right: true }, { head: 'min', right: true }, { head: 'app %', right: true }, { head: 'MPI %', right: true },
      { head: 'sent', right: true }, { head: 'received', right: true }], [...rows.map((r) => line(r.rank, r)), line('*', t)]));
    out.push('</details>');
  }
  return out.join('\n');
}

function profileSection(run: ProfileRun, top: number, data: PageData, f: ReportFilter): string {
  const n = run.ranks.length;
  const total = runTotals(run);
  const im = imbalance(run);
  const out: string[] = [];
  const id = `profile-${run.tool}`;
  out.push(`<section id="${id}"><h2>Where the MPI time goes <small>profile, tool ${run.tool}</small></h2>`);
  if (!n) return `${out.join('')}<p>Nothing recorded: no rank reached MPI_Init with the tool.</p></section>`;
  out.push(`<div class="cards">
<div class="card"><b>${esc(humanTime(total.mpi))}</b><span>in MPI, all ranks</span></div>
<div class="card"><b>${pct(total.mpi, total.recorded).toFixed(2)} %</b><span>of the application time</span></div>
<div class="card"><b>${im.ratio.toFixed(2)}</b><span>imbalance: max / mean MPI time per rank</span></div>
<div class="card"><b>${esc(humanTime(im.max))}</b><span>most MPI time (rank ${im.maxRank})</span></div>
</div>`);
  // the bars: drawn by the script, binned beyond RANK_BARS ranks
  const block = Math.max(1, Math.ceil(n / RANK_BARS));
  const bars: number[][] = [];
  for (let b = 0; b * block < n; b++) {
    const part = run.ranks.slice(b * block, (b + 1) * block);
    const mean = (f: (r: typeof part[0]) => number) => part.reduce((a, r) => a + f(r), 0) / part.length;
    bars.push([part[0].rank, part[part.length - 1].rank, mean((r) => r.recorded), mean((r) => r.mpi),
      Math.min(...part.map((r) => r.mpi)), Math.max(...part.map((r) => r.mpi))]);
  }
  data.bars.push({ id: `${id}-bars`, block, bars });
  out.push(`<h3>MPI vs compute time per rank${block > 1 ? ` <small>(${block} ranks per bar: means)</small>` : ''}</h3>
<figure class="chart"><div id="${id}-bars" class="bars" data-ranks="${n}" data-block="${block}"></div>
<figcaption><span class="key mpi"></span> MPI <span class="key compute"></span> compute (time recording was on, MPI_Init to MPI_Finalize)
— MPI time per rank: min ${esc(humanTime(im.min))} (rank ${im.minRank}), mean ${esc(humanTime(im.mean))}, max ${esc(humanTime(im.max))} (rank ${im.maxRank})</figcaption></figure>`);

  const sites = siteRows(run);
  const chosen = chooseSites(sites, f, top);
  const rows = chosen.map((t) => {
    const frames = t.site.frames.slice(1).map((f) => esc(describe(f)));
    const where = `${esc(t.site.frames.length ? describe(t.site.frames[0]) : t.site.location)}${frames.length ? `<div class="callers">called from ${frames.join(' ← ')}</div>` : ''}`;
    return [cell(t.site.id + 1), cell(t.site.fn), rawCell(where, t.site.location), cell(humanTime(t.time), t.time),
      cell(pct(t.time, total.recorded).toFixed(2), t.time), cell(pct(t.time, total.mpi).toFixed(2), t.time), cell(t.count),
      cell(humanTime(t.count ? t.time / t.count : 0), t.count ? t.time / t.count : 0), cell(humanTime(t.tmin), t.tmin), cell(humanTime(t.tmax), t.tmax),
      cell(t.cov.toFixed(2), t.cov), cell(`${t.ranks}`, t.ranks), cell(humanBytes(t.sent), t.sent), cell(humanBytes(t.recv), t.recv), cell(t.sentPercent.toFixed(2), t.sentPercent)];
  });
  out.push(`<h3>Top call sites by MPI time <small>(${sites.length} site${sites.length === 1 ? '' : 's'}, all ranks${f.sites ? `; --sites ${esc(f.sites.join(','))}` : ''}${chosen.length < sites.length ? `; ${chosen.length} shown` : ''})</small></h3>`);
  out.push(table(`${id}-sites`, [{ head: 'site', right: true }, { head: 'call' }, { head: 'location' }, { head: 'time', right: true },
    { head: 'app %', right: true }, { head: 'MPI %', right: true }, { head: 'calls', right: true }, { head: 'mean', right: true },
    { head: 'min', right: true }, { head: 'max', right: true }, { head: 'COV', right: true, title: 'coefficient of variation of the time per rank' },
    { head: 'ranks', right: true }, { head: 'sent', right: true }, { head: 'received', right: true }, { head: 'Sent %', right: true, title: 'share of all bytes sent' }], rows, 'sites'));

  const moved = chosen.filter((t) => t.sent + t.recv > 0).sort((a, b) => b.sent + b.recv - (a.sent + a.recv));
  if (moved.length) {
    out.push(`<h3>Message sizes by call site <small>(bytes per call = sent + received)</small></h3>`);
    out.push(table(`${id}-sizes`, [{ head: 'site', right: true }, { head: 'call' }, { head: 'location' }, { head: 'calls', right: true },
      { head: 'min', right: true }, { head: 'mean', right: true }, { head: 'max', right: true }, { head: 'sent', right: true }, { head: 'received', right: true }],
    moved.map((t) => {
      const mean = (t.sent + t.recv) / Math.max(1, t.count);
      return [cell(t.site.id + 1), cell(t.site.fn), cell(t.site.location), cell(t.count), cell(humanBytes(Math.max(0, t.smin)), t.smin),
        cell(humanBytes(Math.round(mean)), mean), cell(humanBytes(t.smax), t.smax), cell(humanBytes(t.sent), t.sent), cell(humanBytes(t.recv), t.recv)];
    })));
  }
  if (f.ranks) out.push(perRankTables(run, chosen, chooseRanks(run, f), id));
  const listed = Array.isArray(f.ranks) ? chooseRanks(run, f).map((i) => run.ranks[i]) : run.ranks;
  out.push(`<details><summary>${listed.length === n ? `All ${n} ranks` : `Ranks ${esc(rankRanges(listed.map((r) => r.rank)))} (--ranks)`}</summary>`);
  out.push(table(`${id}-ranks`, [{ head: 'rank', right: true }, { head: 'app s', right: true }, { head: 'MPI s', right: true }, { head: 'MPI %', right: true },
    { head: 'finished' }], listed.map((r) => [cell(r.rank), cell(r.app.toFixed(4), r.app), cell(r.mpi.toFixed(4), r.mpi),
    cell(pct(r.mpi, r.recorded).toFixed(2), pct(r.mpi, r.recorded)), cell(r.finished ? 'yes' : 'no (times up to its last MPI call)')])));
  out.push('</details>');
  for (const p of new Set(run.problems)) out.push(`<p class="warn">No file:line for some call sites: ${esc(p)}</p>`);
  out.push('</section>');
  return out.join('\n');
}

// ---------------------------------------------------------------- monitor

function monitorSection(run: MonitorRun, top: number, data: PageData): string {
  const id = `monitor-${run.tool}`;
  const t = totals(run);
  const b = binnedMatrices(run, HEATMAP_CELLS);
  data.heatmaps.push({ id: `${id}-heatmap`, n: b.n, block: b.block, side: b.side,
    classes: Object.fromEntries(Object.entries(b.cells).map(([k, v]) => [k, { bytes: Array.from(v.bytes), count: Array.from(v.count) }])) });
  const classes = [['all', 'all (data flow)'], ...CLASSES.map((c) => [c.name, c.label])];
  const out = [`<section id="${id}"><h2>Communication <small>monitor, tool ${run.tool}: ${run.ranks.length} of ${run.size} ranks</small></h2>`];
  out.push(table(`${id}-totals`, [{ head: 'class' }, { head: 'messages', right: true }, { head: 'bytes', right: true }],
    CLASSES.map((c) => [cell(c.label), cell(t[c.name].count), cell(humanBytes(t[c.name].bytes), t[c.name].bytes)])));
  out.push(`<h3>Communication matrix${b.block > 1 ? ` <small>(${b.block} ranks per cell)</small>` : ''}</h3>
<div class="controls" id="${id}-heatmap-controls">
<span>class:</span> ${classes.map(([k, label], i) => `<label><input type="radio" name="${id}-class" value="${k}"${i === 0 ? ' checked' : ''}> ${esc(label)}</label>`).join(' ')}
<span class="sep">show:</span> <label><input type="radio" name="${id}-what" value="bytes" checked> bytes</label> <label><input type="radio" name="${id}-what" value="count"> messages</label>
</div>
<figure class="chart"><div id="${id}-heatmap" class="heatmap"></div>
<figcaption id="${id}-heatmap-info" class="info">Row: the sender (for one-sided reads in “all”, the rank read from); column: the receiver. Point at a cell for its numbers.</figcaption></figure>`);
  const sizes = sizeHistogram(run);
  if (sizes.length) {
    data.hists.push({ id: `${id}-sizes`, bins: sizes.map((x) => [x.lo, x.hi, x.count]) });
    out.push(`<h3>Message sizes <small>(point-to-point messages sent, all ranks, in powers of two)</small></h3>
<figure class="chart"><div id="${id}-sizes" class="hist"></div>
<figcaption>${sizes.reduce((a, x) => a + x.count, 0).toLocaleString('en-US')} messages; a bar holds the sizes from its label up to the next one</figcaption></figure>`);
  }
  const { pairs, total } = busiestPairs(run, top);
  if (pairs.length) {
    out.push(`<h3>Busiest point-to-point pairs <small>(${total} pair${total === 1 ? '' : 's'} with messages)</small></h3>`);
    out.push(table(`${id}-pairs`, [{ head: 'sender', right: true }, { head: 'receiver', right: true }, { head: 'bytes', right: true }, { head: 'messages', right: true }],
      pairs.map((p) => [cell(p.from), cell(p.to), cell(humanBytes(p.bytes), p.bytes), cell(p.count)])));
  }
  const comms = communicators(run).filter((c) => c.o2a.count + c.a2o.count + c.a2a.count > 0);
  if (comms.length) {
    out.push(`<h3>Collectives per communicator</h3>`);
    out.push(table(`${id}-comms`, [{ head: 'communicator' }, { head: 'processes', right: true }, { head: 'one-to-all ops', right: true }, { head: 'bytes', right: true },
      { head: 'all-to-one ops', right: true }, { head: 'bytes', right: true }, { head: 'all-to-all ops', right: true }, { head: 'bytes', right: true }],
    comms.slice(0, top).map((c) => [cell(c.name), cell(c.procs.split(',').length), cell(c.o2a.count), cell(humanBytes(c.o2a.bytes), c.o2a.bytes),
      cell(c.a2o.count), cell(humanBytes(c.a2o.bytes), c.a2o.bytes), cell(c.a2a.count), cell(humanBytes(c.a2a.bytes), c.a2a.bytes)])));
  }
  out.push('</section>');
  return out.join('\n');
}

// ---------------------------------------------------------------- overlap, trace-count, other tools

function overlapSection(p: Profile): string {
  return overlapRuns(p).map((run) => {
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
  }).join('\n');
}

/** memcheck: the findings grouped by call site (as in the terminal report), then its statistics. */
function memcheckSection(p: Profile): string {
  return memcheckRuns(p).map((run) => {
    const n = run.findings.reduce((a, f) => a + f.count, 0);
    const rows = run.findings.map((f) => [
      cell(f.kind), cell(f.count), cell(f.ranks.join(', '), f.ranks[0]),
      cell(f.bytes ? humanBytes(f.bytes) : '', f.bytes),
      cell(`${f.call.fn}${f.call.at ? ` at ${where(f.call.at)}` : ''}`),
      cell(f.access ? `${f.access.kind} at ${where(f.access.at)}, buffer+${f.first.offset} of ${humanBytes(f.first.bufferBytes)}` : ''),
      cell(f.backtrace.slice(0, 6).map(where).join(' < ')),
    ]);
    const stats = Object.entries(run.stats).map(([k, v]) => [cell(k), cell(k.startsWith('bytes') ? humanBytes(v) : num(v), v)]);
    return `<section id="memcheck-${run.tool}"><h2>Memory checking <small>memcheck, tool ${run.tool} (${esc(run.engine || 'off')}): ${n} finding${n === 1 ? '' : 's'}</small></h2>
${run.disabled.map((d) => `<p class="warn">rank ${d.rank}: off (${esc(d.reason)})</p>`).join('\n')}
${rows.length ? table(`memcheck-${run.tool}-findings`, [{ head: 'finding' }, { head: 'times', right: true }, { head: 'ranks' }, { head: 'bytes', right: true },
    { head: 'buffer of' }, { head: 'access' }, { head: 'backtrace' }], rows) : '<p>No findings.</p>'}
${table(`memcheck-${run.tool}-stats`, [{ head: 'statistic' }, { head: 'all ranks', right: true }], stats)}
</section>`;
  }).join('\n');
}

function traceCountSection(p: Profile, top: number): string {
  return traceCountTables(p).map(({ tool, rows }) => `<section id="trace-count-${tool}"><h2>MPI calls <small>trace-count, tool ${tool}</small></h2>
${table(`trace-count-${tool}-calls`, [{ head: 'function' }, { head: 'total', right: true }, { head: 'min / rank', right: true }, { head: 'max / rank', right: true }],
    rows.slice(0, top).map((r) => [cell(r.fn), cell(Number(r.total)), cell(Number(r.min)), cell(Number(r.max))]))}
</section>`).join('\n');
}

/** Any other tool (memcheck, external ones): its counters summed over ranks, its text blocks as
 *  tables when they are JSON records, else as text. */
function genericSection(p: Profile): string {
  const out: string[] = [];
  const instances = new Map<number, string>();
  for (const r of p.ranks) for (const [id, name] of r.tools) if (!KNOWN_TOOLS.has(name)) instances.set(id, name);
  for (const [tool, name] of [...instances].sort((a, b) => a[0] - b[0])) {
    const title = name === 'memcheck' ? 'Memory checking findings' : `Results of ${name}`;
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
      out.push(table(`tool-${tool}-counters`, [{ head: 'counter' }, { head: 'all ranks', right: true }, { head: 'ranks', right: true }],
        [...sums].slice(0, 500).map(([k, s]) => [cell(k), cell(s.total), cell(s.ranks)])));
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
    out.push(table(`${id}-records`, keys.map((k) => ({ head: k, right: records.every((r) => r[k] === undefined || typeof r[k] === 'number') })),
      records.slice(0, 1000).map((r) => keys.map((k) => cell(show(r[k]), typeof r[k] === 'number' ? (r[k] as number) : show(r[k]))))));
    if (records.length > 1000) out.push(`<p>… ${records.length - 1000} more (mpii report --json)</p>`);
  }
  if (plain.length) { // raw text (load maps, notes): folded, it is rarely what one looks for first
    const same = plain.every((x) => x.text === plain[0].text);
    out.push(`<details><summary>${same ? `the same on ${plain.length} rank${plain.length === 1 ? '' : 's'}` : `text of ${plain.length} rank${plain.length === 1 ? '' : 's'}`}</summary>`);
    for (const x of (same ? plain.slice(0, 1) : plain.slice(0, 200))) out.push(`<pre>${same ? '' : `<b>rank ${x.rank}</b>\n`}${esc(x.text.slice(0, 20000))}</pre>`);
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
  rows.push(['hosts', `Host${h.hosts.length === 1 ? '' : 's'} (${h.hosts.length})`, h.hosts.slice(0, 64).map((x) => `${x.host}: ${x.ranks.length} (${rankRanges(x.ranks)})`).join(' · ')
    + (h.hosts.length > 64 ? ` · … ${h.hosts.length - 64} more` : '')]);
  rows.push(['tools', 'Tools', h.tools.map(toolLabel).join(' ') || 'none']);
  if (h.missing.length) rows.push(['missing', 'Not recorded', `${h.missing.join(', ')} (the run was not started by mpii run)`]);
  return `<dl id="run" class="run">${rows.map(([k, label, v]) => `<dt>${esc(label)}</dt><dd data-key="${k}">${esc(v)}</dd>`).join('')}</dl>`;
}

interface PageData {
  heatmaps: { id: string; n: number; block: number; side: number; classes: Record<string, { bytes: number[]; count: number[] }> }[];
  bars: { id: string; block: number; bars: number[][] }[];
  /** message-size histograms: [smallest size, largest size, messages] per bar */
  hists: { id: string; bins: number[][] }[];
}

export interface HtmlOptions { top?: number; generated?: Date; filter?: ReportFilter }

export function htmlReport(p: Profile, o: HtmlOptions = {}): string {
  // the rows of the text report: call sites and trace-count functions DEFAULT_TOP, pairs DEFAULT_PAIRS
  const top = o.top ?? o.filter?.top ?? DEFAULT_TOP;
  const pairsTop = o.top ?? DEFAULT_PAIRS;
  const data: PageData = { heatmaps: [], bars: [], hists: [] };
  const tools = new Map<number, string>();
  for (const r of p.ranks) for (const [id, name] of r.tools) tools.set(id, name);
  const states = p.ranks.map((r) => r.state);
  const body: string[] = [];
  for (const run of profileRuns(p)) body.push(profileSection(run, top, data, o.filter ?? {}));
  for (const run of monitorRuns(p)) body.push(monitorSection(run, pairsTop, data));
  body.push(timelineSection(p));
  body.push(overlapSection(p));
  body.push(memcheckSection(p));
  body.push(genericSection(p));
  body.push(traceCountSection(p, top));
  const sections = body.join('\n');
  if (!tools.size) body.push('<p>No tools were in the stack: nothing was recorded.</p>');
  const nav = [...sections.matchAll(/<section id="([^"]+)"[^>]*><h2>([^<]+)/g)].map((m) => `<a href="#${m[1]}">${m[2].trim()}</a>`).join(' · ');
  const title = `mpii report: ${p.ranks.length} rank${p.ranks.length === 1 ? '' : 's'}`;
  const status = p.complete ? 'complete' : `INCOMPLETE: ${p.ranks.length}${p.size > 0 ? ` of ${p.size}` : ''} ranks left data; `
    + `${states.filter((s) => s === 'aborted').length} aborted, ${states.filter((s) => s === 'running').length} did not finalize`;
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  return `${pageHead(title, CSS, esc)}
<header><h1>${esc(title)}</h1>
<p class="meta${p.complete ? '' : ' warn'}" id="status">${esc(status)} · ${esc(p.ranks[0]?.flavor ?? '?')} · tools: ${esc([...tools.entries()].sort((a, b) => a[0] - b[0]).map(([id, n]) => `${id}:${n}`).join(' ') || 'none')}
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
    var y = function (v) { return T + H - (max > 0 ? v / max * H : 0); };
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
      if (n <= 24 || i % Math.ceil(n / 24) === 0) {
        var tx = el('text', { x: L + (i + 0.5) * bw, y: T + H + 12, 'text-anchor': 'middle' }, svg); tx.textContent = bytes(x[0]);
      }
    });
    var ax = el('text', { x: L + W / 2, y: T + H + 30, 'text-anchor': 'middle' }, svg); ax.textContent = 'message size';
  }

  ${SORTABLE_SCRIPT}

  data.heatmaps.forEach(drawHeatmap);
  data.bars.forEach(drawBars);
  data.hists.forEach(drawHist);
  document.querySelectorAll('table.sortable').forEach(sortable);
  document.body.setAttribute('data-ready', '1');
})();
`;

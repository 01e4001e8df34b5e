// `mpii report A B --html FILE`: what changed, as one self-contained page (the same styles and
// sortable tables as the run report, no script beyond sorting, nothing loaded).
import { cell, CSS, esc, table } from './html.js';
import { pageHead, SORTABLE_SCRIPT } from './html-page.js';
import { humanBytes, humanTime } from './units.js';
import { signedBytes, signedTime } from './diff-text.js';
import { utc } from './header.js';
import type { RunDiff } from './diff.js';
import { DEFAULT_TOP } from './filter.js';

const pct = (p: number | null) => (p === null ? 'new' : `${p > 0 ? '+' : ''}${p.toFixed(1)} %`);

export function diffHtml(d: RunDiff, o: { top?: number; generated?: Date } = {}): string {
  const top = o.top ?? DEFAULT_TOP; // the rows of the text and --json
  const body: string[] = [];
  const runs = [['A', d.a], ['B', d.b]] as const;
  body.push(`<dl class="run" id="runs">${runs.map(([k, s]) => `<dt>${k}</dt><dd data-key="${k}">${esc(`${s.dir}: ${s.ranks} ranks, ${s.header.mpi}`
    + `${s.header.start !== null ? `, ${utc(s.header.start)}` : ''}${s.complete ? '' : ', INCOMPLETE'}`)}</dd>`).join('')}</dl>`);
  for (const n of d.notes) body.push(`<p class="warn note">Note: ${esc(n)}</p>`);
  const p = d.profile;
  if (p) {
    const { a, b } = p.totals;
    body.push(`<section id="profile"><h2>Where the MPI time goes <small>profile</small></h2><div class="cards">
<div class="card"><b>${esc(humanTime(a!.mpi))} → ${esc(humanTime(b!.mpi))}</b><span>MPI time, all ranks (${esc(signedTime(b!.mpi - a!.mpi))})</span></div>
<div class="card"><b>${a!.mpiPercent.toFixed(2)} % → ${b!.mpiPercent.toFixed(2)} %</b><span>MPI share of the application time</span></div>
<div class="card"><b>${p.imbalance.a!.ratio.toFixed(2)} → ${p.imbalance.b!.ratio.toFixed(2)}</b><span>imbalance: max / mean MPI time per rank</span></div>
</div>`);
    body.push(`<h3>Call sites, largest change of time first <small>(matched by call and location; ${p.sites.length} sites)</small></h3>`);
    body.push(table('diff-sites', [{ head: 'call' }, { head: 'location' }, { head: 'status' }, { head: 'time A', right: true }, { head: 'time B', right: true },
      { head: 'change', right: true }, { head: '%', right: true }, { head: 'calls A', right: true }, { head: 'calls B', right: true },
      { head: 'bytes A', right: true }, { head: 'bytes B', right: true }],
    p.sites.slice(0, top).map((s) => [cell(s.call), cell(s.location), cell(s.status), cell(s.a ? humanTime(s.a.time) : '—', s.a?.time ?? -1),
      cell(s.b ? humanTime(s.b.time) : '—', s.b?.time ?? -1), cell(signedTime(s.time), s.time), cell(s.status === 'vanished' ? 'gone' : pct(s.timePercent), s.timePercent ?? Infinity),
      cell(s.a ? s.a.count : '—', s.a?.count ?? -1), cell(s.b ? s.b.count : '—', s.b?.count ?? -1),
      cell(s.a ? humanBytes(s.a.sent + s.a.recv) : '—', s.a ? s.a.sent + s.a.recv : -1), cell(s.b ? humanBytes(s.b.sent + s.b.recv) : '—', s.b ? s.b.sent + s.b.recv : -1)])));
    body.push('<h3>MPI time per rank, largest change first</h3>');
    body.push(table('diff-ranks', [{ head: 'rank', right: true }, { head: 'A', right: true }, { head: 'B', right: true }, { head: 'change', right: true }],
      p.ranks.filter((r) => r.change !== 0).slice(0, top).map((r) => [cell(r.rank), cell(r.a === null ? '—' : humanTime(r.a), r.a ?? -1), cell(r.b === null ? '—' : humanTime(r.b), r.b ?? -1),
        cell(signedTime(r.change), r.change)])));
    body.push('</section>');
  }
  const m = d.monitor;
  if (m) {
    body.push('<section id="monitor"><h2>Communication <small>monitor</small></h2>');
    body.push(table('diff-classes', [{ head: 'class' }, { head: 'messages A', right: true }, { head: 'messages B', right: true }, { head: 'bytes A', right: true },
      { head: 'bytes B', right: true }, { head: 'change', right: true }], m.classes.map((c) => [cell(c.label), cell(c.a.count), cell(c.b.count),
      cell(humanBytes(c.a.bytes), c.a.bytes), cell(humanBytes(c.b.bytes), c.b.bytes), cell(signedBytes(c.b.bytes - c.a.bytes), c.b.bytes - c.a.bytes)])));
    body.push(`<h3>Communication matrix: point-to-point pairs that changed <small>(${m.pairsChanged})</small></h3>`);
    body.push(table('diff-pairs', [{ head: 'sender', right: true }, { head: 'receiver', right: true }, { head: 'bytes A', right: true }, { head: 'bytes B', right: true },
      { head: 'change', right: true }, { head: 'messages A', right: true }, { head: 'messages B', right: true }],
    m.pairs.slice(0, top).map((x) => [cell(x.from), cell(x.to), cell(humanBytes(x.a.bytes), x.a.bytes), cell(humanBytes(x.b.bytes), x.b.bytes),
      cell(signedBytes(x.bytes), x.bytes), cell(x.a.count), cell(x.b.count)])));
    body.push('</section>');
  }
  if (d.traceCount) {
    body.push('<section id="trace-count"><h2>MPI calls <small>trace-count</small></h2>');
    body.push(table('diff-calls', [{ head: 'function' }, { head: 'calls A', right: true }, { head: 'calls B', right: true }, { head: 'change', right: true }],
      d.traceCount.slice(0, top).map((x) => [cell(x.fn), cell(x.a), cell(x.b), cell(x.change)])));
    body.push('</section>');
  }
  const title = 'mpii report: what changed from A to B';
  return `${pageHead(title, CSS, esc)}
<header><h1>${esc(title)}</h1></header>
<main>
${body.join('\n')}
</main>
<footer>Written by mpii${o.generated ? ` on ${esc(o.generated.toISOString())}` : ''}. Self-contained: this file loads nothing.</footer>
<script>${SORT}</script>
</body></html>
`;
}

const SORT = `
${SORTABLE_SCRIPT}
document.querySelectorAll('table.sortable').forEach(sortable);
document.body.setAttribute('data-ready', '1');
`;

// The profile tool's section of `mpii report --html`: cards, the per-rank MPI vs compute bars
// (drawn by the page's script from PageData), the call sites as mpiP lists them, per rank on ask.
import {
  describe,
  type ReportFilter,
  rankRanges,
  cell,
  esc,
  RANK_BARS,
  rawCell,
  table,
  type PageData,
  humanBytes,
  humanTime,
} from '../../../../src/tool-api/index.js';
import { chooseRanks, chooseSites } from './filter.js';
import { imbalance, pct, runTotals, type ProfileRun } from './data.js';
import { siteRankRows, siteRows, type SiteRow } from './stats.js';

/** mpiP's "Callsite Time statistics": per call site, its ranks and the sum over them (folded). */
function perRankTables(run: ProfileRun, sites: SiteRow[], ranks: number[], id: string): string {
  const out = ["<h3>Per rank, each call site <small>(mpiP: Callsite Time statistics; app % and MPI % of the rank's time)</small></h3>"];
  for (const t of sites) {
    const rows = siteRankRows(run, t.site.id, ranks);
    const line = (
      r: string | number,
      x: { count: number; tmax: number; mean: number; tmin: number; appPercent: number; mpiPercent: number; sent: number; recv: number },
    ) => [
      cell(r, typeof r === 'number' ? r : Infinity),
      cell(x.count),
      cell(humanTime(x.tmax), x.tmax),
      cell(humanTime(x.mean), x.mean),
      cell(humanTime(x.tmin), x.tmin),
      cell(x.appPercent.toFixed(2), x.appPercent),
      cell(x.mpiPercent.toFixed(2), x.mpiPercent),
      cell(humanBytes(x.sent), x.sent),
      cell(humanBytes(x.recv), x.recv),
    ];
    out.push(
      `<details class="site-ranks" data-site="${t.site.id + 1}"><summary>site ${t.site.id + 1}: ${esc(t.site.fn)} ${esc(t.site.location)} (${rows.length} rank${rows.length === 1 ? '' : 's'})</summary>`,
    );
    out.push(
      table(
        `${id}-site-${t.site.id + 1}-ranks`,
        [
          { head: 'rank', right: true },
          { head: 'calls', right: true },
          { head: 'max', right: true },
          { head: 'mean', right: true },
          { head: 'min', right: true },
          { head: 'app %', right: true },
          { head: 'MPI %', right: true },
          { head: 'sent', right: true },
          { head: 'received', right: true },
        ],
        [...rows.map((r) => line(r.rank, r)), line('*', t)],
      ),
    );
    out.push('</details>');
  }
  return out.join('\n');
}

export function profileSection(run: ProfileRun, top: number, data: PageData, f: ReportFilter): string {
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
    const mean = (f: (r: (typeof part)[0]) => number) => part.reduce((a, r) => a + f(r), 0) / part.length;
    bars.push([
      part[0].rank,
      part[part.length - 1].rank,
      mean((r) => r.recorded),
      mean((r) => r.mpi),
      Math.min(...part.map((r) => r.mpi)),
      Math.max(...part.map((r) => r.mpi)),
    ]);
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
    return [
      cell(t.site.id + 1),
      cell(t.site.fn),
      rawCell(where, t.site.location),
      cell(humanTime(t.time), t.time),
      cell(pct(t.time, total.recorded).toFixed(2), t.time),
      cell(pct(t.time, total.mpi).toFixed(2), t.time),
      cell(t.count),
      cell(humanTime(t.count ? t.time / t.count : 0), t.count ? t.time / t.count : 0),
      cell(humanTime(t.tmin), t.tmin),
      cell(humanTime(t.tmax), t.tmax),
      cell(t.cov.toFixed(2), t.cov),
      cell(`${t.ranks}`, t.ranks),
      cell(humanBytes(t.sent), t.sent),
      cell(humanBytes(t.recv), t.recv),
      cell(t.sentPercent.toFixed(2), t.sentPercent),
    ];
  });
  out.push(
    `<h3>Top call sites by MPI time <small>(${sites.length} site${sites.length === 1 ? '' : 's'}, all ranks${f.sites ? `; --sites ${esc(f.sites.join(','))}` : ''}${chosen.length < sites.length ? `; ${chosen.length} shown` : ''})</small></h3>`,
  );
  out.push(
    table(
      `${id}-sites`,
      [
        { head: 'site', right: true },
        { head: 'call' },
        { head: 'location' },
        { head: 'time', right: true },
        { head: 'app %', right: true },
        { head: 'MPI %', right: true },
        { head: 'calls', right: true },
        { head: 'mean', right: true },
        { head: 'min', right: true },
        { head: 'max', right: true },
        { head: 'COV', right: true, title: 'coefficient of variation of the time per rank' },
        { head: 'ranks', right: true },
        { head: 'sent', right: true },
        { head: 'received', right: true },
        { head: 'Sent %', right: true, title: 'share of all bytes sent' },
      ],
      rows,
      'sites',
    ),
  );

  const moved = chosen.filter((t) => t.sent + t.recv > 0).sort((a, b) => b.sent + b.recv - (a.sent + a.recv));
  if (moved.length) {
    out.push(`<h3>Message sizes by call site <small>(bytes per call = sent + received)</small></h3>`);
    out.push(
      table(
        `${id}-sizes`,
        [
          { head: 'site', right: true },
          { head: 'call' },
          { head: 'location' },
          { head: 'calls', right: true },
          { head: 'min', right: true },
          { head: 'mean', right: true },
          { head: 'max', right: true },
          { head: 'sent', right: true },
          { head: 'received', right: true },
        ],
        moved.map((t) => {
          const mean = (t.sent + t.recv) / Math.max(1, t.count);
          return [
            cell(t.site.id + 1),
            cell(t.site.fn),
            cell(t.site.location),
            cell(t.count),
            cell(humanBytes(Math.max(0, t.smin)), t.smin),
            cell(humanBytes(Math.round(mean)), mean),
            cell(humanBytes(t.smax), t.smax),
            cell(humanBytes(t.sent), t.sent),
            cell(humanBytes(t.recv), t.recv),
          ];
        }),
      ),
    );
  }
  if (f.ranks) out.push(perRankTables(run, chosen, chooseRanks(run, f), id));
  const listed = Array.isArray(f.ranks) ? chooseRanks(run, f).map((i) => run.ranks[i]) : run.ranks;
  out.push(`<details><summary>${listed.length === n ? `All ${n} ranks` : `Ranks ${esc(rankRanges(listed.map((r) => r.rank)))} (--ranks)`}</summary>`);
  out.push(
    table(
      `${id}-ranks`,
      [{ head: 'rank', right: true }, { head: 'app s', right: true }, { head: 'MPI s', right: true }, { head: 'MPI %', right: true }, { head: 'finished' }],
      listed.map((r) => [
        cell(r.rank),
        cell(r.app.toFixed(4), r.app),
        cell(r.mpi.toFixed(4), r.mpi),
        cell(pct(r.mpi, r.recorded).toFixed(2), pct(r.mpi, r.recorded)),
        cell(r.finished ? 'yes' : 'no (times up to its last MPI call)'),
      ]),
    ),
  );
  out.push('</details>');
  for (const p of new Set(run.problems)) out.push(`<p class="warn">No file:line for some call sites: ${esc(p)}</p>`);
  out.push('</section>');
  return out.join('\n');
}

// The profile tool's part of `mpii report A B`: totals, MPI time per rank and call sites, matched
// by MPI function and location (file:line and function of every frame, as the report names
// them), so a rebuilt program's sites match while its addresses moved; ranks by number.
// Everything is sorted by the size of the change, largest first.
import {
  type Profile,
  type ReportFilter,
  cell,
  esc,
  table,
  cut,
  type DiffTextContext,
  type ToolDiff,
  humanBytes,
  humanTime,
  signedBytes,
  signedCount,
  signedPercent,
  signedTime,
} from '../../../../src/tool-api/index.js';
import { siteMatches } from './filter.js';
import { imbalance, profileRuns, runTotals, siteTotals, type Imbalance, type ProfileRun } from './data.js';

export interface Side<T> {
  a: T | null;
  b: T | null;
}
const change = (a: number | null, b: number | null) => (b ?? 0) - (a ?? 0);
const relative = (a: number | null, b: number | null) => (a ? (100 * change(a, b)) / a : null);

export interface SiteValues {
  site: number;
  count: number;
  time: number;
  sent: number;
  recv: number;
  ranks: number;
  tmin: number;
  tmax: number;
}
export interface SiteChange extends Side<SiteValues> {
  call: string;
  location: string;
  /** 'both', or only in B ('appeared') or only in A ('vanished') */
  status: 'both' | 'appeared' | 'vanished';
  time: number;
  /** change of time in % of A's (null: not in A) */
  timePercent: number | null;
  count: number;
  bytes: number;
}

export interface RankChange extends Side<number> {
  rank: number;
  change: number;
}

export interface ProfileDiff {
  totals: Side<{ app: number; recorded: number; mpi: number; mpiPercent: number; ranks: number }>;
  imbalance: Side<Imbalance>;
  /** MPI seconds per rank */
  ranks: RankChange[];
  sites: SiteChange[];
}

type SiteTotal = ReturnType<typeof siteTotals>[0];

export function profileDiff(ra: ProfileRun, rb: ProfileRun, f: ReportFilter): ProfileDiff {
  const tot = (run: ProfileRun) => {
    const t = runTotals(run);
    return { ...t, mpiPercent: t.recorded > 0 ? (100 * t.mpi) / t.recorded : 0, ranks: run.ranks.length };
  };
  const ranks = new Map<number, RankChange>();
  for (const r of ra.ranks) ranks.set(r.rank, { rank: r.rank, a: r.mpi, b: null, change: 0 });
  for (const r of rb.ranks) {
    const x = ranks.get(r.rank) ?? { rank: r.rank, a: null, b: null, change: 0 };
    x.b = r.mpi;
    ranks.set(r.rank, x);
  }
  for (const x of ranks.values()) x.change = change(x.a, x.b);

  const sites = new Map<string, SiteChange>();
  const key = (t: SiteTotal) => `${t.site.fn}|${t.site.location}`;
  const values = (t: SiteTotal): SiteValues => ({
    site: t.site.id + 1,
    count: t.count,
    time: t.time,
    sent: t.sent,
    recv: t.recv,
    ranks: t.ranks,
    tmin: t.tmin,
    tmax: t.tmax,
  });
  const keep = (t: SiteTotal) => !f.sites || siteMatches(t, f.sites);
  for (const t of siteTotals(ra)) {
    if (!keep(t)) continue;
    const old = sites.get(key(t));
    if (old?.a) {
      // two sites of A with one name (two objects, no debug information): add up
      old.a = { ...old.a, count: old.a.count + t.count, time: old.a.time + t.time, sent: old.a.sent + t.sent, recv: old.a.recv + t.recv };
      continue;
    }
    sites.set(key(t), {
      call: t.site.fn,
      location: t.site.location,
      status: 'vanished',
      a: values(t),
      b: null,
      time: 0,
      timePercent: null,
      count: 0,
      bytes: 0,
    });
  }
  for (const t of siteTotals(rb)) {
    if (!keep(t)) continue;
    const x = sites.get(key(t)) ?? {
      call: t.site.fn,
      location: t.site.location,
      status: 'appeared' as const,
      a: null,
      b: null,
      time: 0,
      timePercent: null,
      count: 0,
      bytes: 0,
    };
    if (x.b) x.b = { ...x.b, count: x.b.count + t.count, time: x.b.time + t.time, sent: x.b.sent + t.sent, recv: x.b.recv + t.recv };
    else x.b = values(t);
    if (x.a) x.status = 'both';
    sites.set(key(t), x);
  }
  for (const x of sites.values()) {
    x.time = change(x.a?.time ?? null, x.b?.time ?? null);
    x.timePercent = relative(x.a?.time ?? null, x.b?.time ?? null);
    x.count = change(x.a?.count ?? null, x.b?.count ?? null);
    x.bytes = change(x.a ? x.a.sent + x.a.recv : null, x.b ? x.b.sent + x.b.recv : null);
  }
  const bySize = (x: SiteChange, y: SiteChange) =>
    Math.abs(y.time) - Math.abs(x.time) ||
    Math.abs(y.count) - Math.abs(x.count) ||
    Math.abs(y.bytes) - Math.abs(x.bytes) ||
    x.call.localeCompare(y.call) ||
    x.location.localeCompare(y.location);
  return {
    totals: { a: tot(ra), b: tot(rb) },
    imbalance: { a: imbalance(ra), b: imbalance(rb) },
    ranks: [...ranks.values()].sort((x, y) => Math.abs(y.change) - Math.abs(x.change) || x.rank - y.rank),
    sites: [...sites.values()].sort(bySize),
  };
}

function text(p: ProfileDiff, o: DiffTextContext): string[] {
  const { top, width, bold, table: t } = o;
  const out = [bold('profile:')];
  const { a, b } = p.totals;
  const ia = p.imbalance.a!;
  const ib = p.imbalance.b!;
  const rows = [
    [
      'MPI time, all ranks',
      humanTime(a!.mpi),
      humanTime(b!.mpi),
      signedTime(b!.mpi - a!.mpi),
      signedPercent(a!.mpi ? (100 * (b!.mpi - a!.mpi)) / a!.mpi : null),
    ],
    [
      'app time, all ranks',
      humanTime(a!.app),
      humanTime(b!.app),
      signedTime(b!.app - a!.app),
      signedPercent(a!.app ? (100 * (b!.app - a!.app)) / a!.app : null),
    ],
    ['MPI % of app time', a!.mpiPercent.toFixed(2), b!.mpiPercent.toFixed(2), signedCount(Number((b!.mpiPercent - a!.mpiPercent).toFixed(2))), ''],
    ['max rank MPI time', humanTime(ia.max), humanTime(ib.max), signedTime(ib.max - ia.max), signedPercent(ia.max ? (100 * (ib.max - ia.max)) / ia.max : null)],
    ['imbalance max/mean', ia.ratio.toFixed(2), ib.ratio.toFixed(2), signedCount(Number((ib.ratio - ia.ratio).toFixed(2))), ''],
  ];
  out.push(...t(['', 'A', 'B', 'change', ''], rows, [false, true, true, true, true]));

  const ranks = p.ranks.filter((r) => r.change !== 0).slice(0, top);
  if (ranks.length) {
    out.push(`  MPI time per rank, largest change first${p.ranks.length > ranks.length ? ` (${ranks.length} of ${p.ranks.length})` : ''}:`);
    out.push(
      ...t(
        ['rank', 'A', 'B', 'change'],
        ranks.map((r) => [String(r.rank), r.a === null ? '—' : humanTime(r.a), r.b === null ? '—' : humanTime(r.b), signedTime(r.change)]),
        [true, true, true, true],
      ),
    );
  }
  const sites = p.sites.slice(0, top);
  if (!sites.length) return out;
  const num = new Map<SiteChange, number>(sites.map((s, i) => [s, i + 1]));
  out.push(`  call sites, largest change of time first (matched by call and location):`);
  out.push(
    ...t(
      ['#', 'call', 'location', 'A/B'],
      sites.map((s) => [
        String(num.get(s)),
        s.call,
        s.location,
        s.status === 'both' ? `${s.a!.site}/${s.b!.site}` : s.status === 'appeared' ? `new/${s.b!.site}` : `${s.a!.site}/gone`,
      ]),
      [true, false, false, true],
      2,
    ),
  );
  out.push('  time per call site (A → B):');
  out.push(
    ...t(
      ['#', 'call', 'A', 'B', 'change', '%'],
      sites.map((s) => [
        String(num.get(s)),
        s.call,
        s.a ? humanTime(s.a.time) : '—',
        s.b ? humanTime(s.b.time) : '—',
        signedTime(s.time),
        s.status === 'vanished' ? 'gone' : signedPercent(s.timePercent),
      ]),
      [true, false, true, true, true, true],
    ),
  );
  out.push('  calls and bytes (sent + received) per call site (A → B):');
  out.push(
    ...t(
      ['#', 'call', 'calls A', 'calls B', 'bytes A', 'bytes B', 'change'],
      sites.map((s) => [
        String(num.get(s)),
        s.call,
        s.a ? String(s.a.count) : '—',
        s.b ? String(s.b.count) : '—',
        s.a ? humanBytes(s.a.sent + s.a.recv) : '—',
        s.b ? humanBytes(s.b.sent + s.b.recv) : '—',
        signedBytes(s.bytes),
      ]),
      [true, false, true, true, true, true, true],
    ),
  );
  if (p.sites.length > sites.length) out.push(`    … ${p.sites.length - sites.length} more call sites (--top N; --top 0 for all)`);
  const list = (label: string, xs: SiteChange[]) => {
    if (!xs.length) return;
    out.push(`  ${label} (${xs.length}):`);
    for (const s of xs.slice(0, top)) out.push(cut(`    ${s.call}  ${s.location}`, width));
    if (xs.length > top) out.push(`    … ${xs.length - top} more`);
  };
  list(
    'call sites only in B (appeared)',
    p.sites.filter((s) => s.status === 'appeared'),
  );
  list(
    'call sites only in A (vanished)',
    p.sites.filter((s) => s.status === 'vanished'),
  );
  return out;
}

function html(p: ProfileDiff, top: number): string {
  const { a, b } = p.totals;
  const body = [
    `<section id="profile"><h2>Where the MPI time goes <small>profile</small></h2><div class="cards">
<div class="card"><b>${esc(humanTime(a!.mpi))} → ${esc(humanTime(b!.mpi))}</b><span>MPI time, all ranks (${esc(signedTime(b!.mpi - a!.mpi))})</span></div>
<div class="card"><b>${a!.mpiPercent.toFixed(2)} % → ${b!.mpiPercent.toFixed(2)} %</b><span>MPI share of the application time</span></div>
<div class="card"><b>${p.imbalance.a!.ratio.toFixed(2)} → ${p.imbalance.b!.ratio.toFixed(2)}</b><span>imbalance: max / mean MPI time per rank</span></div>
</div>`,
  ];
  body.push(`<h3>Call sites, largest change of time first <small>(matched by call and location; ${p.sites.length} sites)</small></h3>`);
  body.push(
    table(
      'diff-sites',
      [
        { head: 'call' },
        { head: 'location' },
        { head: 'status' },
        { head: 'time A', right: true },
        { head: 'time B', right: true },
        { head: 'change', right: true },
        { head: '%', right: true },
        { head: 'calls A', right: true },
        { head: 'calls B', right: true },
        { head: 'bytes A', right: true },
        { head: 'bytes B', right: true },
      ],
      p.sites
        .slice(0, top)
        .map((s) => [
          cell(s.call),
          cell(s.location),
          cell(s.status),
          cell(s.a ? humanTime(s.a.time) : '—', s.a?.time ?? -1),
          cell(s.b ? humanTime(s.b.time) : '—', s.b?.time ?? -1),
          cell(signedTime(s.time), s.time),
          cell(s.status === 'vanished' ? 'gone' : signedPercent(s.timePercent), s.timePercent ?? Infinity),
          cell(s.a ? s.a.count : '—', s.a?.count ?? -1),
          cell(s.b ? s.b.count : '—', s.b?.count ?? -1),
          cell(s.a ? humanBytes(s.a.sent + s.a.recv) : '—', s.a ? s.a.sent + s.a.recv : -1),
          cell(s.b ? humanBytes(s.b.sent + s.b.recv) : '—', s.b ? s.b.sent + s.b.recv : -1),
        ]),
    ),
  );
  body.push('<h3>MPI time per rank, largest change first</h3>');
  body.push(
    table(
      'diff-ranks',
      [
        { head: 'rank', right: true },
        { head: 'A', right: true },
        { head: 'B', right: true },
        { head: 'change', right: true },
      ],
      p.ranks
        .filter((r) => r.change !== 0)
        .slice(0, top)
        .map((r) => [
          cell(r.rank),
          cell(r.a === null ? '—' : humanTime(r.a), r.a ?? -1),
          cell(r.b === null ? '—' : humanTime(r.b), r.b ?? -1),
          cell(signedTime(r.change), r.change),
        ]),
    ),
  );
  body.push('</section>');
  return body.join('\n');
}

export const profileDiffReport: ToolDiff<ProfileDiff> = {
  compute(a: Profile, b: Profile, f: ReportFilter) {
    const pa = profileRuns(a)[0];
    const pb = profileRuns(b)[0];
    return pa && pb ? profileDiff(pa, pb, f) : undefined;
  },
  text,
  html,
  // the rows of the text and the page: ranks whose time changed, the first sites
  json: (p, top) => ({ ...p, ranks: p.ranks.filter((r) => r.change !== 0).slice(0, top), sites: p.sites.slice(0, top) }),
};

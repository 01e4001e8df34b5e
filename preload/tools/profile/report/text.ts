// What `mpii run` and `mpii report` print for the profile tool, laid out as mpiP does: app vs MPI
// time per rank, the spread of MPI time across ranks, the call sites that take the most time,
// and message sizes per call site.
import {
  bold as boldText,
  yellow,
  type Profile,
  humanBytes,
  describe,
  DEFAULT_TOP,
  type ReportFilter,
  rankRanges,
  wrap,
  cut,
  textTable,
  WIDTH,
  humanTime,
} from '../../../../src/tool-api/index.js';
import { chooseRanks, chooseSites, siteMatches } from './filter.js';
import { imbalance, pct, profileRuns, runTotals, type ProfileRun } from './data.js';
import { siteRankRows, siteRows, type SiteRow } from './stats.js';
export { humanTime };

export interface ProfileTextOptions {
  top?: number;
  color?: boolean;
  ranks?: number;
  filter?: ReportFilter;
  width?: number;
}

function formatRun(run: ProfileRun, o: Required<ProfileTextOptions>): string[] {
  const bold = o.color ? boldText : (s: string) => s;
  const warn = o.color ? yellow : (s: string) => s;
  const t = (head: string[], rows: string[][], right: boolean[], shrink?: number, indent = '    ') =>
    textTable(head, rows, right, { indent, bold, shrink, width: o.width });
  const n = run.ranks.length;
  const out = [bold(`profile (tool ${run.tool}): ${n} rank${n === 1 ? '' : 's'}, call sites at stack depth ${run.depth}, timer ${run.timer}`)];
  if (!n) return [...out, '  nothing recorded (no rank reached MPI_Init with the tool)'];
  const total = runTotals(run);
  const unfinished = run.ranks.filter((r) => !r.finished).length;
  const f = o.filter;

  // app vs MPI time per rank: all of them for small jobs, the busiest in MPI for big ones; with
  // --ranks, the ranks it names (all with --ranks alone)
  const listed = f.ranks ? chooseRanks(run, f).map((i) => run.ranks[i]) : undefined;
  const shown = listed ?? (n <= o.ranks ? run.ranks : [...run.ranks].sort((a, b) => b.mpi - a.mpi || a.rank - b.rank).slice(0, o.ranks));
  const rows = shown.map((r) => [String(r.rank) + (r.finished ? '' : '†'), r.app.toFixed(4), r.mpi.toFixed(4), pct(r.mpi, r.recorded).toFixed(2)]);
  rows.push(['*', total.app.toFixed(4), total.mpi.toFixed(4), pct(total.mpi, total.recorded).toFixed(2)]);
  const which = listed
    ? listed.length < n
      ? ` (ranks ${rankRanges(listed.map((r) => r.rank))}; * = all ${n})`
      : ''
    : n > o.ranks
      ? ` (the ${o.ranks} ranks with the most MPI time; * = all ${n})`
      : '';
  out.push(`  app vs MPI time per rank${which}:`);
  out.push(...t(['rank', 'app s', 'MPI s', 'MPI %'], rows, [true, true, true, true]));
  if (unfinished) out.push(warn(`    † did not reach MPI_Finalize: times up to its last MPI call (${unfinished} rank${unfinished === 1 ? '' : 's'})`));
  const joins = run.ranks.reduce((a, r) => a + r.joins, 0);
  if (joins > 0) {
    const resumes = run.ranks.reduce((a, r) => a + r.resumes, 0);
    out.push(
      `    MPI calls from more than one thread: counted under a lock from ${joins} start${joins === 1 ? '' : 's'}, ` +
        `the unlocked path back ${resumes} time${resumes === 1 ? '' : 's'} (all ranks)`,
    );
  }
  if (run.ranks.some((r) => r.pcontrol > 0)) {
    out.push(`    MPI % is of the time recording was on (MPI_Pcontrol switched it ${run.ranks.reduce((a, r) => a + r.pcontrol, 0)} times)`);
  }
  if (n > 1) {
    const im = imbalance(run);
    const line =
      `MPI time across ranks: min ${humanTime(im.min)} (rank ${im.minRank}), mean ${humanTime(im.mean)}, ` +
      `max ${humanTime(im.max)} (rank ${im.maxRank}); max/mean ${im.ratio.toFixed(2)}`;
    out.push(
      ...wrap(line, o.width - 4).map((l, i) => {
        const s = `${i ? '    ' : '  '}${l}`;
        return im.ratio >= 1.25 ? warn(s) : s;
      }),
    );
  }

  const sites = siteRows(run);
  const top = chooseSites(sites, f, o.top);
  const more = (f.sites ? sites.filter((x) => siteMatches(x, f.sites!)).length : sites.length) - top.length;
  if (top.length) {
    const R = [true, false];
    const id = (x: SiteRow) => [String(x.site.id + 1), x.site.fn];
    out.push(`  call sites by MPI time (mpiP: Callsites${f.sites ? `; --sites ${f.sites.join(',')}` : ''}):`);
    out.push(...callSites(top, o.width, bold));
    if (more > 0) out.push(`    … ${more} more call site${more === 1 ? '' : 's'} (--top N, --sites; --top 0 for all)`);
    out.push('  time per call site, all ranks (mpiP: Aggregate Time):');
    out.push(
      ...t(
        ['site', 'call', 'time', 'app %', 'MPI %', 'calls', 'COV'],
        top.map((x) => [...id(x), humanTime(x.time), x.appPercent.toFixed(2), x.mpiPercent.toFixed(2), String(x.count), x.cov.toFixed(2)]),
        [...R, true, true, true, true, true],
      ),
    );
    out.push('  time per call, all ranks (mpiP: Callsite Time statistics):');
    out.push(
      ...t(
        ['site', 'call', 'calls', 'min', 'mean', 'max'],
        top.map((x) => [...id(x), String(x.count), humanTime(x.tmin), humanTime(x.mean), humanTime(x.tmax)]),
        [...R, true, true, true, true],
      ),
    );
    const calls = sites.reduce((a, x) => a + x.count, 0);
    const timed = sites.reduce((a, x) => a + x.timed, 0);
    if (timed < calls) {
      out.push(`    times: ${timed} of ${calls} calls timed (scaled); sample=1 times every call`);
      out.push("    (a site's first 64 calls, then one in N at random, one in 16 N past its 1,088th timed; min, max of the timed)");
    }
    const moved = top.filter((x) => x.sent + x.recv > 0).sort((a, b) => b.sent + b.recv - (a.sent + a.recv) || a.site.id - b.site.id);
    if (moved.length) {
      out.push('  bytes per call site, all ranks (mpiP: Aggregate Sent Message Size):');
      out.push(
        ...t(
          ['site', 'call', 'calls', 'sent', 'Sent %', 'received', 'mean'],
          moved.map((x) => [
            ...id(x),
            String(x.count),
            humanBytes(x.sent),
            x.sentPercent.toFixed(2),
            humanBytes(x.recv),
            humanBytes(Math.round((x.sent + x.recv) / Math.max(1, x.count))),
          ]),
          [...R, true, true, true, true, true],
        ),
      );
      out.push('  message sizes by call site (bytes per call = sent + received; all ranks):');
      out.push(
        ...t(
          ['site', 'call', 'calls', 'min', 'mean', 'max'],
          moved.map((x) => [
            ...id(x),
            String(x.count),
            humanBytes(Math.max(0, x.smin)),
            humanBytes(Math.round((x.sent + x.recv) / Math.max(1, x.count))),
            humanBytes(x.smax),
          ]),
          [...R, true, true, true, true],
        ),
      );
    }
    if (f.ranks) out.push(...perRank(run, top, chooseRanks(run, f), o, bold));
  }
  for (const p of new Set(run.problems)) out.push(...wrap(`no file:line for some sites: ${p}`, o.width - 4).map((l, i) => warn(`${i ? '    ' : '  '}${l}`)));
  return out;
}

/** mpiP's Callsites: number, call, location; the callers of a deeper stack on lines below ("← "). */
function callSites(top: SiteRow[], width: number, bold: (s: string) => string): string[] {
  const indent = '    ';
  const wNo = Math.max(4, ...top.map((x) => String(x.site.id + 1).length));
  const wFn = Math.max(4, ...top.map((x) => x.site.fn.length));
  const lead = indent.length + wNo + 2 + wFn + 2;
  const room = Math.max(16, width - lead);
  const out = [indent + bold(`${'site'.padStart(wNo)}  ${'call'.padEnd(wFn)}  location`)];
  for (const x of top) {
    const frames = x.site.frames.length && !x.site.overflow ? x.site.frames.map(describe) : [x.site.location];
    frames.forEach((fr, i) => {
      const text = cut(i ? `← ${fr}` : fr, room);
      out.push(i ? `${' '.repeat(lead)}${text}` : `${indent}${String(x.site.id + 1).padStart(wNo)}  ${x.site.fn.padEnd(wFn)}  ${text}`);
    });
  }
  return out;
}

/** mpiP's "Callsite Time statistics" per rank: each site, then its ranks and the sum over them. */
function perRank(run: ProfileRun, top: SiteRow[], ranks: number[], o: Required<ProfileTextOptions>, bold: (s: string) => string): string[] {
  const n = run.ranks.length;
  const out = [
    `  per rank, each call site (mpiP: Callsite Time statistics${ranks.length < n ? `; ranks ${rankRanges(ranks.map((i) => run.ranks[i].rank))}` : ''}):`,
  ];
  for (const x of top) {
    const rows = siteRankRows(run, x.site.id, ranks);
    out.push(cut(`    site ${x.site.id + 1}  ${x.site.fn}  ${x.site.location}`, o.width));
    if (!rows.length) {
      out.push('      (not called on these ranks)');
      continue;
    }
    const line = (r: string, c: number, mx: number, mean: number, mn: number, app: number, mpi: number, sent: number) => [
      r,
      String(c),
      humanTime(mx),
      humanTime(mean),
      humanTime(mn),
      app.toFixed(2),
      mpi.toFixed(2),
      humanBytes(sent),
    ];
    const body = rows.map((r) => line(String(r.rank), r.count, r.tmax, r.mean, r.tmin, r.appPercent, r.mpiPercent, r.sent));
    body.push(line('*', x.count, x.tmax, x.mean, x.tmin, x.appPercent, x.mpiPercent, x.sent));
    out.push(
      ...textTable(['rank', 'calls', 'max', 'mean', 'min', 'app %', 'MPI %', 'sent'], body, [true, true, true, true, true, true, true, true], {
        indent: '      ',
        bold,
        width: o.width,
      }),
    );
  }
  out.push(...wrap("app % and MPI % of a rank are of that rank's time; * is the site on all ranks (of all ranks' time)", o.width - 4).map((l) => `    ${l}`));
  return out;
}

export function formatProfile(p: Profile, opts: ProfileTextOptions = {}): string[] {
  const o: Required<ProfileTextOptions> = {
    top: opts.top ?? opts.filter?.top ?? DEFAULT_TOP,
    color: opts.color ?? false,
    ranks: opts.ranks ?? 16,
    filter: opts.filter ?? {},
    width: opts.width ?? WIDTH,
  };
  return profileRuns(p).flatMap((run) => formatRun(run, o));
}

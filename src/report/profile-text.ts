// What `mpii run` and `mpii report` print for the profile tool, laid out as mpiP does: app vs MPI
// time per rank, the spread of MPI time across ranks, the call sites that take the most time,
// and message sizes per call site.
import { Chalk } from 'chalk';
import type { Profile } from '../profile/read.js';
import { humanBytes } from './monitor-text.js';
import { imbalance, pct, profileRuns, runTotals, siteTotals, type ProfileRun } from './profile.js';

export interface ProfileTextOptions { top?: number; color?: boolean; ranks?: number }

const chalk = new Chalk({ level: 2 });

/** Seconds with a unit that keeps 3–4 significant digits. */
export function humanTime(s: number): string {
  if (s === 0) return '0';
  if (s >= 100) return `${s.toFixed(1)} s`;
  if (s >= 1) return `${s.toFixed(3)} s`;
  if (s >= 1e-3) return `${(s * 1e3).toFixed(3)} ms`;
  if (s >= 1e-6) return `${(s * 1e6).toFixed(2)} µs`;
  return `${(s * 1e9).toFixed(0)} ns`;
}

/** Left-aligned text columns and right-aligned numbers, two spaces apart. */
function table(head: string[], rows: string[][], right: boolean[], indent: string, bold: (s: string) => string): string[] {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (right[i] ? c.padStart(w[i]) : c.padEnd(w[i]))).join('  ').trimEnd();
  return [indent + bold(line(head)), ...rows.map((r) => indent + line(r))];
}

function formatRun(run: ProfileRun, o: Required<ProfileTextOptions>): string[] {
  const bold = o.color ? (s: string) => chalk.bold(s) : (s: string) => s;
  const warn = o.color ? (s: string) => chalk.yellow(s) : (s: string) => s;
  const n = run.ranks.length;
  const out = [bold(`profile (tool ${run.tool}): ${n} rank${n === 1 ? '' : 's'}, call sites at stack depth ${run.depth}, timer ${run.timer}`)];
  if (!n) return [...out, '  nothing recorded (no rank reached MPI_Init with the tool)'];
  const total = runTotals(run);
  const unfinished = run.ranks.filter((r) => !r.finished).length;

  // app vs MPI time per rank: all of them for small jobs, the busiest in MPI for big ones
  const shown = n <= o.ranks ? run.ranks : [...run.ranks].sort((a, b) => b.mpi - a.mpi || a.rank - b.rank).slice(0, o.ranks);
  const rows = shown.map((r) => [String(r.rank) + (r.finished ? '' : '†'), r.app.toFixed(4), r.mpi.toFixed(4), pct(r.mpi, r.recorded).toFixed(2)]);
  rows.push(['*', total.app.toFixed(4), total.mpi.toFixed(4), pct(total.mpi, total.recorded).toFixed(2)]);
  out.push(`  app vs MPI time per rank${n > o.ranks ? ` (the ${o.ranks} ranks with the most MPI time; * = all ${n})` : ''}:`);
  out.push(...table(['rank', 'app s', 'MPI s', 'MPI %'], rows, [true, true, true, true], '    ', bold));
  if (unfinished) out.push(warn(`    † did not reach MPI_Finalize: times up to its last MPI call (${unfinished} rank${unfinished === 1 ? '' : 's'})`));
  if (run.ranks.some((r) => r.pcontrol > 0)) {
    out.push(`    MPI % is of the time recording was on (MPI_Pcontrol switched it ${run.ranks.reduce((a, r) => a + r.pcontrol, 0)} times)`);
  }
  if (n > 1) {
    const im = imbalance(run);
    const line = `  MPI time across ranks: min ${humanTime(im.min)} (rank ${im.minRank}), mean ${humanTime(im.mean)}, `
      + `max ${humanTime(im.max)} (rank ${im.maxRank}); max/mean ${im.ratio.toFixed(2)}`;
    out.push(im.ratio >= 1.25 ? warn(line) : line);
  }

  const sites = siteTotals(run);
  const top = sites.slice(0, o.top);
  if (top.length) {
    out.push(`  top call sites by MPI time (all ranks):`);
    out.push(...table(['site', 'call', 'location', 'time', 'app %', 'MPI %', 'calls', 'mean', 'max', 'COV'],
      top.map((t) => [String(t.site.id + 1), t.site.fn, t.site.location, humanTime(t.time), pct(t.time, total.recorded).toFixed(2),
        pct(t.time, total.mpi).toFixed(2), String(t.count), humanTime(t.count ? t.time / t.count : 0), humanTime(t.tmax), t.cov.toFixed(2)]),
      [true, false, false, true, true, true, true, true, true, true], '    ', bold));
    if (sites.length > top.length) out.push(`    … ${sites.length - top.length} more call sites (mpii report --json or --html for all)`);
    const calls = sites.reduce((x, t) => x + t.count, 0);
    const timed = sites.reduce((x, t) => x + t.timed, 0);
    if (timed < calls) {
      out.push(`    times: ${timed} of ${calls} calls timed (each site's first 64, then one in N at random), scaled to all; `
        + 'profile option sample=1 times every call');
    }
  }
  const moved = sites.filter((t) => t.sent + t.recv > 0).sort((a, b) => b.sent + b.recv - (a.sent + a.recv) || a.site.id - b.site.id);
  if (moved.length) {
    out.push(`  message sizes by call site (bytes per call = sent + received; all ranks):`);
    out.push(...table(['site', 'call', 'location', 'calls', 'min', 'mean', 'max', 'sent', 'received'],
      moved.slice(0, o.top).map((t) => [String(t.site.id + 1), t.site.fn, t.site.location, String(t.count), humanBytes(Math.max(0, t.smin)),
        humanBytes(Math.round((t.sent + t.recv) / Math.max(1, t.count))), humanBytes(t.smax), humanBytes(t.sent), humanBytes(t.recv)]),
      [true, false, false, true, true, true, true, true, true], '    ', bold));
  }
  for (const p of new Set(run.problems)) out.push(warn(`  no file:line for some sites: ${p}`));
  return out;
}

export function formatProfile(p: Profile, opts: ProfileTextOptions = {}): string[] {
  const o: Required<ProfileTextOptions> = { top: opts.top ?? 15, color: opts.color ?? false, ranks: opts.ranks ?? 16 };
  return profileRuns(p).flatMap((run) => formatRun(run, o));
}

// What `mpii run` prints at the end and `mpii report DIR` prints later.
import type { Profile } from '../profile-file/read.js';
import { formatTraceCount, traceCountTables } from '../../preload/tools/trace-count/report.js';
import { profileJson } from '../../preload/tools/profile/report/data.js';
import { formatProfile } from '../../preload/tools/profile/report/text.js';
import { communicators, monitorRuns, totals } from '../../preload/tools/monitor/report/data.js';
import { formatMonitor } from '../../preload/tools/monitor/report/text.js';
import { formatOverlap, overlapRuns, overlapTotals } from '../../preload/tools/overlap/report.js';
import { formatMemcheck, memcheckRuns } from '../../preload/tools/memcheck/report.js';
import { formatMpit, mpitJson } from './mpit.js';
import { formatTimeline, timelineJson } from './timeline.js';
import type { ReportFilter } from './filter.js';
import { fitLines } from './text-table.js';
import { formatHeader, headerJson, runHeader, wrap } from './header.js';

export interface ReportOptions {
  /** rows of each table (trace-count functions, monitor peer pairs); tools' own `top` otherwise */
  top?: number;
  monitorTop?: number;
  /** draw the monitor's communication matrix */
  matrix?: boolean;
  color?: boolean;
  /** call sites listed for the profile tool (its own `top` otherwise) */
  profileTop?: number;
  /** --sites, --ranks (and --top) for the profile tool's tables */
  filter?: ReportFilter;
}

/** Colour on a terminal, never with NO_COLOR, always with FORCE_COLOR (src/color.ts). */
export { wantColor } from '../color.js';

export function formatSummary(p: Profile, opts: ReportOptions = {}): string {
  const lines: string[] = [];
  const states = p.ranks.map((r) => r.state);
  const head = p.complete
    ? `mpii profile: ${p.ranks.length} rank${p.ranks.length === 1 ? '' : 's'}, ${p.ranks[0]?.flavor ?? '?'} (${p.dir})`
    : `mpii profile: INCOMPLETE — ${p.ranks.length}${p.size > 0 ? ` of ${p.size}` : ''} ranks left data; `
      + `${states.filter((s) => s === 'aborted').length} aborted, ${states.filter((s) => s === 'running').length} did not finalize (${p.dir})`;
  lines.push(head);
  for (const d of p.spawned) lines.push(`spawned job (MPI_Comm_spawn): its own profile in ${d} (mpii report ${d})`);
  const header = runHeader(p);
  lines.push(...formatHeader(header)); // the tools' options are in it; the names follow
  lines.push(...wrap(`tools: ${header.tools.length ? header.tools.map((t) => `${t.id}:${t.name}`).join(' ') : '(none)'}`, 78).map((l, i) => (i ? `  ${l}` : l)));
  lines.push(...formatTraceCount(p, opts.top));
  lines.push(...formatProfile(p, { top: opts.filter?.top ?? opts.profileTop ?? opts.top, color: opts.color, filter: opts.filter }));
  lines.push(...formatMonitor(p, { top: opts.monitorTop ?? opts.top, matrix: opts.matrix, color: opts.color }));
  lines.push(...formatTimeline(p));
  lines.push(...formatOverlap(p));
  lines.push(...formatMemcheck(p));
  // the MPI_T part keeps its lines (one pvar per line, as scripts and tests read them)
  return [...fitLines(lines.join('\n').split('\n')), ...formatMpit(p)].join('\n');
}

export function summaryJson(p: Profile, filter: ReportFilter = {}): unknown {
  return {
    dir: p.dir,
    complete: p.complete,
    size: p.size,
    spawned: p.spawned,
    run: headerJson(runHeader(p)),
    ranks: p.ranks.map((r) => ({ rank: r.rank, host: r.host, pid: r.pid, state: r.state, flavor: r.flavor,
      seconds: r.tEnd > 0 ? r.tEnd - r.tStart : null, tools: Object.fromEntries(r.tools) })),
    traceCount: traceCountTables(p).map((t) => ({ tool: t.tool,
      rows: t.rows.map((r) => ({ fn: r.fn, total: Number(r.total), min: Number(r.min), max: Number(r.max) })) })),
    profile: profileJson(p, filter),
    monitor: monitorRuns(p).map((run) => ({
      tool: run.tool,
      size: run.size,
      totals: totals(run),
      communicators: communicators(run),
      ranks: run.ranks.map((r) => ({
        rank: r.rank,
        peers: [...r.peers.entries()].sort((a, b) => a[0] - b[0]).map(([peer, s]) => ({ peer, ...s })),
        communicators: r.comms,
      })),
    })),
    overlap: overlapRuns(p).map((run) => ({
      tool: run.tool,
      totals: overlapTotals(run),
      disabled: run.disabled,
      ranks: run.ranks.map((rank, i) => ({ rank, ...Object.fromEntries([...run.stats.entries()].map(([k, v]) => [k, v[i]])) })),
    })),
    memcheck: memcheckRuns(p),
    mpit: mpitJson(p),
    timeline: timelineJson(p),
  };
}

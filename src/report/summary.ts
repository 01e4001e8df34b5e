// What `mpii run` prints at the end and `mpii report DIR` prints later.
import type { Profile } from '../profile-file/read.js';
import { formatMpit, mpitJson } from './mpit.js';
import { formatTimeline, timelineJson } from './timeline.js';
import type { ReportFilter } from './filter.js';
import { fitLines } from './text-table.js';
import { formatHeader, headerJson, runHeader, wrap } from './header.js';
import type { OptionValue } from '../config/options.js';
import { TOOL_REPORTS } from './tools.js';

/** The timeline's place among the tools' parts (manifests' `order`): after the ones below 40. */
const TIMELINE_ORDER = 40;

export interface ReportOptions {
  /** rows of each table (mpii report --top); after mpii run, each tool's own `top` */
  top?: number;
  color?: boolean;
  /** --sites, --ranks (and --top) */
  filter?: ReportFilter;
  /** after mpii run: the options the run gave each tool, by tool name (its first instance) */
  toolOptions?: Record<string, Record<string, OptionValue>>;
}

/** Colour on a terminal, never with NO_COLOR, always with FORCE_COLOR (src/color.ts). */
export { wantColor } from '../color.js';

export function formatSummary(p: Profile, opts: ReportOptions = {}): string {
  const lines: string[] = [];
  const states = p.ranks.map((r) => r.state);
  const head = p.complete
    ? `mpii profile: ${p.ranks.length} rank${p.ranks.length === 1 ? '' : 's'}, ${p.ranks[0]?.flavor ?? '?'} (${p.dir})`
    : `mpii profile: INCOMPLETE — ${p.ranks.length}${p.size > 0 ? ` of ${p.size}` : ''} ranks left data; ` +
      `${states.filter((s) => s === 'aborted').length} aborted, ${states.filter((s) => s === 'running').length} did not finalize (${p.dir})`;
  lines.push(head);
  for (const d of p.spawned) lines.push(`spawned job (MPI_Comm_spawn): its own profile in ${d} (mpii report ${d})`);
  const header = runHeader(p);
  lines.push(...formatHeader(header)); // the tools' options are in it; the names follow
  lines.push(
    ...wrap(`tools: ${header.tools.length ? header.tools.map((t) => `${t.id}:${t.name}`).join(' ') : '(none)'}`, 78).map((l, i) => (i ? `  ${l}` : l)),
  );
  let timeline = false;
  for (const t of TOOL_REPORTS) {
    if (!timeline && t.order >= TIMELINE_ORDER) {
      lines.push(...formatTimeline(p));
      timeline = true;
    }
    if (t.report.text) {
      // a loop, not push(...): --top 0 on a big job gives a tool a million lines (the call stack's limit)
      for (const l of t.report.text(p, { top: opts.top, color: opts.color, filter: opts.filter, options: opts.toolOptions?.[t.name] })) lines.push(l);
    }
  }
  if (!timeline) lines.push(...formatTimeline(p));
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
    ranks: p.ranks.map((r) => ({
      rank: r.rank,
      host: r.host,
      pid: r.pid,
      state: r.state,
      flavor: r.flavor,
      seconds: r.tEnd > 0 ? r.tEnd - r.tStart : null,
      tools: Object.fromEntries(r.tools),
    })),
    ...Object.fromEntries(TOOL_REPORTS.filter((t) => t.json && t.report.json).map((t) => [t.json, t.report.json!(p, filter)])),
    mpit: mpitJson(p),
    timeline: timelineJson(p),
  };
}

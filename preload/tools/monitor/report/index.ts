// The monitor tool's report module (tool.yaml `report.module`): what it adds to each output of
// `mpii run` and `mpii report` (src/report/tool-report.ts).
import { type ToolReport, JsonStream, DEFAULT_PAIRS } from '../../../../src/tool-api/index.js';
import { monitorDiffReport } from './diff.js';
import { communicators, monitorDigest, monitorRuns, peerRows, spreadNote, totals, type CommRecord } from './data.js';
import { csvPaths, profPaths, writeCsv, writeProf } from './files.js';
import { monitorSection } from './html.js';
import { busiestPairs, formatMonitor, TEXT_CELLS } from './text.js';

/** A rank's record in --json: without the member list's numbers (the communicators list has it) */
const commJson = ({ members: _m, ...c }: CommRecord) => c;

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

export const report: ToolReport = {
  // the terminal report alone: each rank's per-peer table digested as it is read, then dropped
  digest: (o) => monitorDigest({ top: o.top ?? 10, cells: TEXT_CELLS }),
  // its own `top` and `matrix` (as the run was told, or mpii report's --top, --matrix, --no-matrix)
  text: (p, o) => formatMonitor(p, { top: num(o.options?.top) ?? o.top, matrix: o.options?.matrix !== false, color: o.color }),
  json: (p, filter) =>
    monitorRuns(p).map((run) => {
      const note = spreadNote(run);
      const only = Array.isArray(filter.ranks) ? new Set(filter.ranks) : undefined;
      const pairs = busiestPairs(run, filter.top ?? DEFAULT_PAIRS);
      return {
        tool: run.tool,
        size: run.size,
        totals: totals(run),
        // the busiest point-to-point pairs (--top, else the text's number; --top 0: all)
        pairs: pairs.pairs,
        pairCount: pairs.total,
        communicators: communicators(run),
        ...(note ? { aggregated: note } : {}),
        // per rank, each peer: only with --ranks [LIST] (a big job's are N² rows); made rank by
        // rank as --json is written (src/report/json-stream.ts), never all in memory at once
        ...(filter.ranks
          ? {
              ranks: new JsonStream(function* () {
                for (const r of run.ranks) {
                  if (!only || only.has(r.rank)) yield { rank: r.rank, peers: peerRows(r), communicators: r.comms.map(commJson) };
                }
              }),
            }
          : {}),
      };
    }),
  html: (p, o) => monitorRuns(p).map((run) => monitorSection(run, o.pairsTop, o.data)),
  files: (p) => {
    const runs = monitorRuns(p);
    // several monitor instances in one stack: number the outputs after the first
    const suffix = (i: number) => (i === 0 ? '' : `-tool${runs[i].tool}`);
    return {
      has: { csv: runs.length > 0, prof: runs.length > 0 },
      provides: ['csv', 'prof'],
      planned: (o) => runs.flatMap((run, i) => [...(o.csv ? csvPaths(o.csv + suffix(i)) : []), ...(o.prof ? profPaths(run, o.prof + suffix(i)) : [])]),
      write: (o) =>
        runs.flatMap((run, i) => [
          ...(o.csv ? writeCsv(run, o.csv + suffix(i)).map((f) => `wrote ${f}`) : []),
          ...(o.prof ? [`wrote ${writeProf(run, o.prof + suffix(i)).length} .prof file(s): ${o.prof + suffix(i)}.<rank>.prof`] : []),
        ]),
    };
  },
  diff: monitorDiffReport,
};

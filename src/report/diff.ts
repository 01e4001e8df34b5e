// `mpii report A B`: what changed from run A to run B of the same program (the same or another
// rank count): whether the two can be compared, what differs in how they ran (notes), and each
// tool's own comparison (its report module's `diff`: preload/tools/<tool>/…), largest change first.
import type { Profile } from '../profile-file/read.js';
import { MpiiError } from '../errors.js';
import { runHeader, type RunHeader } from './header.js';
import type { ReportFilter } from './filter.js';
import type { ToolDiff } from './tool-report.js';
import { TOOL_REPORTS } from './tools.js';

/** One tool's comparison: its name, its key in --json (the manifest's `report.json`), its data. */
export interface ToolChange {
  name: string;
  key: string;
  data: unknown;
  diff: ToolDiff<unknown>;
}

export interface RunDiff {
  a: { dir: string; ranks: number; complete: boolean; header: RunHeader };
  b: { dir: string; ranks: number; complete: boolean; header: RunHeader };
  notes: string[];
  /** the comparisons of the tools both runs have data of, in the report's order */
  tools: ToolChange[];
}

/** The comparison of tool `name` in `d` (undefined: not in both runs). */
export function toolChange<D>(d: RunDiff, name: string): D | undefined {
  return d.tools.find((t) => t.name === name)?.data as D | undefined;
}

/** Two runs are comparable when they ran the same tools (in any order of the stack). */
function checkComparable(a: Profile, b: Profile, ha: RunHeader, hb: RunHeader): void {
  const ta = ha.tools.map((t) => t.name); // in stack order, as the header lists them
  const tb = hb.tools.map((t) => t.name);
  if ([...ta].sort().join(',') !== [...tb].sort().join(',')) {
    throw new MpiiError(
      `cannot compare ${a.dir} (tools: ${ta.join(',') || 'none'}) with ${b.dir} (tools: ${tb.join(',') || 'none'}): they ran different tools`,
      'compare two runs made with the same --tools',
    );
  }
}

function notesOf(a: Profile, b: Profile, ha: RunHeader, hb: RunHeader): string[] {
  const notes: string[] = [];
  if (ha.program && hb.program) {
    if (ha.program.sha256 !== hb.program.sha256 || ha.program.size !== hb.program.size) {
      notes.push(
        `the program binary differs: A ${ha.program.path} (${ha.program.size} bytes, sha256 ${ha.program.sha256.slice(0, 12)}…), ` +
          `B ${hb.program.path} (${hb.program.size} bytes, sha256 ${hb.program.sha256.slice(0, 12)}…)`,
      );
    }
  } else {
    notes.push(`whether the program binary is the same is not known (${!ha.program ? 'A' : 'B'} was not started by mpii run or its program was not found)`);
  }
  if (ha.command && hb.command && ha.command.slice(1).join('\0') !== hb.command.slice(1).join('\0')) {
    notes.push(`the program's arguments differ: A ${ha.command.slice(1).join(' ') || '(none)'}, B ${hb.command.slice(1).join(' ') || '(none)'}`);
  }
  if (ha.mpi !== hb.mpi) notes.push(`the MPI differs: A ${ha.mpi}, B ${hb.mpi}`);
  if (a.ranks.length !== b.ranks.length) {
    notes.push(`A has ${a.ranks.length} ranks, B ${b.ranks.length}: totals and call sites compare the whole jobs, ranks compare by number`);
  }
  if (!a.complete) notes.push("A is INCOMPLETE (a rank did not finish): its numbers stop at each rank's last MPI call");
  if (!b.complete) notes.push("B is INCOMPLETE (a rank did not finish): its numbers stop at each rank's last MPI call");
  return notes;
}

export function diffRuns(a: Profile, b: Profile, f: ReportFilter = {}): RunDiff {
  const ha = runHeader(a);
  const hb = runHeader(b);
  checkComparable(a, b, ha, hb);
  const d: RunDiff = {
    a: { dir: a.dir, ranks: a.ranks.length, complete: a.complete, header: ha },
    b: { dir: b.dir, ranks: b.ranks.length, complete: b.complete, header: hb },
    notes: notesOf(a, b, ha, hb),
    tools: [],
  };
  for (const t of TOOL_REPORTS) {
    const diff = t.report.diff;
    const data = diff?.compute(a, b, f);
    if (diff && data !== undefined) d.tools.push({ name: t.name, key: t.json ?? t.name, data, diff });
  }
  return d;
}

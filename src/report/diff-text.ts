// `mpii report A B` on the terminal: at most 80 columns, largest changes first: the runs, the
// notes on how they differ, then each tool's comparison (its report module's `diff.text`).
import { DEFAULT_TOP } from './filter.js';
import { bold as boldText, yellow } from './ansi.js';
import { utc, wrap } from './header.js';
import { table, WIDTH } from './text-table.js';
import type { RunDiff } from './diff.js';
import { TOOL_REPORTS } from './tools.js';

/** "a", "a or b", "a, b or c" */
const orList = (xs: string[]) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`);

export interface DiffTextOptions {
  top?: number;
  color?: boolean;
  width?: number;
}

export function formatDiff(d: RunDiff, o: DiffTextOptions = {}): string {
  const top = o.top ?? DEFAULT_TOP;
  const width = o.width ?? WIDTH;
  const bold = o.color ? boldText : (s: string) => s;
  const warn = o.color ? yellow : (s: string) => s;
  const t_ = (head: string[], rows: string[][], right: boolean[], shrink?: number) => table(head, rows, right, { bold, shrink, width });
  const out = [bold('mpii report: what changed from run A to run B')];
  for (const [k, s] of [
    ['A', d.a],
    ['B', d.b],
  ] as const) {
    const when = s.header.start !== null ? `, ${utc(s.header.start)}` : '';
    out.push(
      ...wrap(`${k}  ${s.dir}: ${s.ranks} rank${s.ranks === 1 ? '' : 's'}, ${s.header.mpi}${when}${s.complete ? '' : ', INCOMPLETE'}`, width - 2).map(
        (l, i) => `${i ? '     ' : '  '}${l}`,
      ),
    );
  }
  for (const n of d.notes) out.push(...wrap(`note: ${n}`, width - 2).map((l, i) => warn(`${i ? '    ' : '  '}${l}`)));

  for (const t of d.tools) out.push(...t.diff.text(t.data, { top, width, bold, table: t_ }));
  if (!d.tools.length) out.push(`  neither run has ${orList(TOOL_REPORTS.filter((t) => t.report.diff).map((t) => t.name))} data to compare`);
  return out.join('\n');
}

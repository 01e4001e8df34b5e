// `mpii report A B [--json] [--html FILE] [--top N] [--sites LIST]`: what changed from run A to run B.
import { writeFileSync } from 'node:fs';
import { MpiiError } from '../errors.js';
import { readProfile } from '../profile-file/read.js';
import { diffRuns } from './diff.js';
import { formatDiff } from './diff-text.js';
import { DEFAULT_TOP, type ReportFilter } from './filter.js';
import { wantColor } from './summary.js';

export async function diffCommand(
  a: string,
  b: string,
  o: { json?: boolean; html?: string; csv?: string; prof?: string; ranks?: unknown },
  f: ReportFilter,
): Promise<number> {
  if (o.csv || o.prof) throw new MpiiError('--csv and --prof write the files of one run', `run mpii report ${a} --csv DIR and mpii report ${b} --csv DIR`);
  if (o.ranks !== undefined)
    throw new MpiiError('--ranks is for the report of one run', 'the comparison lists every rank whose MPI time changed (--top N of them)');
  const d = diffRuns(readProfile(a), readProfile(b), f);
  if (o.html) {
    const { diffHtml } = await import('./diff-html.js');
    const html = diffHtml(d, { top: f.top, generated: new Date() });
    try {
      writeFileSync(o.html, html);
    } catch (e) {
      throw new MpiiError(`cannot write ${o.html} (${(e as NodeJS.ErrnoException).code ?? e})`, 'pass --html FILE in a writable directory');
    }
    if (!o.json) console.error(`wrote ${o.html} (${(html.length / 1024).toFixed(0)} KiB)`);
  }
  if (o.json) {
    const top = f.top ?? DEFAULT_TOP; // the rows of the text and the page
    const j = { a: d.a, b: d.b, notes: d.notes, ...Object.fromEntries(d.tools.map((t) => [t.key, t.diff.json(t.data, top)])) };
    console.log(JSON.stringify(j, null, 2));
  } else {
    console.log(formatDiff(d, { top: f.top, color: wantColor(process.stdout) }));
  }
  return 0;
}

// `mpii report DIR [DIR2]`: a run's report again, in the terminal, as --json, --html, --csv or
// --prof files. A module of its own so that the report loads only what it uses (none of what
// `mpii run`, `mpii build` or `mpii doctor` need: execa, the shim's build, MPI detection).
import type { OptionValue } from '../config/options.js';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { MpiiError } from '../errors.js';
import { profileBytes, readProfile, readProfileAsync, type Profile, type RankProfile, type ReadOptions } from '../profile-file/read.js';
import { formatSummary, summaryJson, wantColor } from '../report/summary.js';
import { reportFilter, type ReportFilter } from '../report/filter.js';
import type { ToolReportModule } from '../report/tools.js';
import { recordedReportOptions, withoutAsked } from '../profile-file/report-options.js';
import { BIG_PROFILE_BYTES, progressMode, progressWorthIt, startProgress, type ProgressMode } from './progress.js';
import { blockWriter, writeJson } from '../report/json-stream.js';

export interface ReportFlags {
  json?: boolean;
  top?: number;
  csv?: string;
  prof?: string;
  html?: string;
  force?: boolean;
  ranks?: string | boolean;
  sites?: string;
  /** the tools' options their own flags set (`--no-matrix`: the monitor's matrix=false), by tool */
  toolOptions?: Record<string, Record<string, OptionValue>>;
}

export async function reportCommand(dir: string, o: ReportFlags, dir2?: string): Promise<number> {
  if (o.top !== undefined && !(Number.isInteger(o.top) && o.top >= 0)) {
    throw new MpiiError('--top needs a whole number (0: every row)', 'e.g. --top 20');
  }
  if (o.top === 0) o = { ...o, top: Infinity }; // every row, in every format
  const filter = reportFilter(o);
  try {
    if (dir2 !== undefined) return await (await import('../report/diff-command.js')).diffCommand(dir, dir2, o, filter);
    return await report(dir, o, filter);
  } catch (e) {
    if (e instanceof MpiiError) throw e;
    // the reader of the output stopped early (`mpii report DIR --json | head`): nothing is wrong
    if ((e as NodeJS.ErrnoException).code === 'EPIPE') return 0;
    // a damaged file can fail in ways no check foresaw: still one line, never a stack trace
    throw new MpiiError(
      `cannot make the report of ${dir}: ${(e as Error).message ?? e}`,
      're-run the job; if the profile is intact, this is an mpii bug: please report it',
    );
  }
}

async function report(dir: string, o: ReportFlags, filter: ReportFilter): Promise<number> {
  // an existing page is replaced only when asked (checked before the profile is read)
  if (o.html && existsSync(o.html) && !o.force) {
    throw new MpiiError(`${o.html} already exists`, 'add --force to replace it, or pass another --html FILE');
  }
  // long work (a big profile, the page of many ranks) shows progress on stderr; with --json,
  // only as a spinner on a terminal, never as lines in a script's log
  const mode = progressMode(process.stderr, process.env, { lines: !o.json });
  const { TOOL_REPORTS } = await import('../report/tools.js');
  // the terminal report alone: the tools take what it needs of each rank while it is read (a
  // big job's per-peer tables are then not kept)
  const hooks = o.json || o.html || o.csv || o.prof ? [] : TOOL_REPORTS.flatMap((t) => (t.report.digest ? [t.report.digest({ top: o.top })] : []));
  const onImage = hooks.length
    ? (r: RankProfile) => {
        for (const h of hooks) h(r);
      }
    : undefined;
  const p = await readWithProgress(dir, mode, !!o.json, { onImage });
  // the options the run was given (in its profile) are the defaults; --top and the tools' flags win
  const toolOptions = withoutAsked(recordedReportOptions(p), { top: o.top, toolOptions: o.toolOptions });
  // call-site rows in every format: the recorded `top` of the tool whose report takes the filter
  for (const t of TOOL_REPORTS) {
    const top = toolOptions[t.name]?.top;
    if (t.report.checkFilter && filter.top === undefined && typeof top === 'number') filter = { ...filter, top: top === 0 ? Infinity : top };
  }
  for (const t of TOOL_REPORTS) t.report.checkFilter?.(p, filter);
  writeToolFiles(dir, p, o, filter, TOOL_REPORTS);
  if (o.html) {
    const { htmlReport } = await import('../report/html.js');
    const progress =
      progressWorthIt({ htmlRanks: p.ranks.length }) && mode !== 'off'
        ? await startProgress(`mpii: writing the HTML report of ${p.ranks.length} ranks to ${o.html}`, mode)
        : undefined;
    progress?.show(); // the page is made in one synchronous go: the line is there, the spinner stands
    let html: string;
    try {
      html = htmlReport(p, { top: o.top, generated: new Date(), filter });
      await writeFile(o.html, html);
    } catch (e) {
      progress?.fail();
      if (!(e as NodeJS.ErrnoException).syscall) throw e;
      throw new MpiiError(`cannot write ${o.html} (${(e as NodeJS.ErrnoException).code ?? e})`, 'pass --html FILE in a writable directory');
    }
    const wrote = `wrote ${o.html} (${(html.length / 1024).toFixed(0)} KiB)`;
    if (progress && !o.json) progress.succeed(wrote);
    else if (progress) progress.stop();
    else if (!o.json) console.error(wrote);
  }
  if (o.json) {
    // indented, as JSON.stringify(…, null, 2), but on one line from a big profile on (a big job's
    // per-peer rows take a few lines each when indented); written as it is made
    const out = blockWriter(1);
    writeJson(summaryJson(p, filter), out.write, profileBytes(dir) <= BIG_PROFILE_BYTES);
    out.end();
  } else console.log(formatSummary(p, { top: o.top, color: wantColor(process.stdout), filter, toolOptions }));
  return 0;
}

/** --csv DIR and --prof PREFIX: the files of the tools that write them (their report modules'
 * `files`), none replaced without --force, none written when one is in the way. */
function writeToolFiles(dir: string, p: Profile, o: ReportFlags, filter: ReportFilter, tools: ToolReportModule[]): void {
  if (!o.csv && !o.prof) return;
  const outputs = tools.flatMap((t) => (t.report.files ? [{ name: t.name, out: t.report.files(p) }] : []));
  for (const kind of ['csv', 'prof'] as const) {
    if (!o[kind] || outputs.some((x) => x.out.has[kind])) continue;
    const names = outputs.filter((x) => x.out.provides.includes(kind)).map((x) => x.name);
    throw new MpiiError(`${dir} has no ${names.join(' or ')} data for --csv/--prof`, `run the job with ${names.map((n) => `--tools ${n}`).join(' or ')}`);
  }
  const asked = { csv: o.csv, prof: o.prof };
  if (!o.force) {
    const taken = outputs.flatMap((x) => x.out.planned(asked)).filter((f) => existsSync(f));
    if (taken.length) {
      throw new MpiiError(
        `${taken[0]} already exists${taken.length > 1 ? ` (and ${taken.length - 1} more of the files to write)` : ''}`,
        'add --force to replace them, or pass another --csv DIR / --prof PREFIX',
      );
    }
  }
  for (const x of outputs) for (const line of x.out.write(asked, filter)) if (!o.json) console.error(line);
}

/** The profile of `dir`; one bigger than BIG_PROFILE_BYTES is read with progress shown (the
 * spinner leaves a last line, except with --json). */
async function readWithProgress(dir: string, mode: ProgressMode, json: boolean, ro: ReadOptions = {}): Promise<Profile> {
  const bytes = profileBytes(dir);
  if (mode === 'off' || !progressWorthIt({ profileBytes: bytes })) return readProfile(dir, ro);
  const size = `${(bytes / 1048576).toFixed(0)} MiB`;
  const what = `mpii: reading the profile of ${dir} (${size})`;
  const progress = await startProgress(what, mode);
  try {
    // a spinner turns between chunks; lines show no percentage: one synchronous read, no turns
    const p =
      mode === 'spinner'
        ? await readProfileAsync(dir, (done, total) => progress.update(`${what}: ${Math.floor((100 * done) / Math.max(1, total))}%`), ro)
        : readProfile(dir, ro);
    if (json) progress.stop();
    else progress.succeed(`mpii: read the profile of ${dir} (${size}, ${p.ranks.length} rank${p.ranks.length === 1 ? '' : 's'})`);
    return p;
  } catch (e) {
    progress.fail();
    throw e;
  }
}

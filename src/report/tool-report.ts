// The interface between the report and the tools: each built-in tool's folder holds a report
// module (its manifest's `report.module`) exporting `report: ToolReport`. The report (text,
// --json, --html, --csv/--prof, the filters) asks every module in turn and names no tool.
import type { OptionValue } from '../config/options.js';
import type { Profile, RankProfile } from '../profile-file/read.js';
import type { ReportFilter } from './filter.js';
import type { PageData } from './html-kit.js';

export interface TextContext {
  /** --top of `mpii report` (undefined after `mpii run`: the tool's own options decide) */
  top?: number;
  color?: boolean;
  /** --sites, --ranks (and --top) */
  filter?: ReportFilter;
  /** the options the run gave the tool (its first instance; recorded in the profile), with
   *  those its own flags of `mpii report` set */
  options?: Record<string, OptionValue>;
}

export interface HtmlContext {
  /** rows of the tables (--top, else DEFAULT_TOP) and of the peer-pair tables (--top, else DEFAULT_PAIRS) */
  top: number;
  pairsTop: number;
  filter: ReportFilter;
  /** the charts' data the sections add to */
  data: PageData;
}

/** The files `mpii report --csv DIR` / `--prof PREFIX` write for a tool. */
export interface FileOutputs {
  /** the outputs the tool can write at all, and those it has data for in this run */
  provides: ('csv' | 'prof')[];
  has: { csv: boolean; prof: boolean };
  /** the files that would be written (checked before anything is, unless --force) */
  planned(o: { csv?: string; prof?: string }): string[];
  /** write them; returns the lines to print (`wrote …`) */
  write(o: { csv?: string; prof?: string }, filter: ReportFilter): string[];
}

/** What `mpii report A B` gives a tool's comparison for its terminal lines. */
export interface DiffTextContext {
  /** rows listed per table (--top) */
  top: number;
  width: number;
  bold(s: string): string;
  /** an aligned table at the report's width; `shrink`: the column that gives way */
  table(head: string[], rows: string[][], right: boolean[], shrink?: number): string[];
}

/** `mpii report A B`: a tool's comparison of two runs of the same program. `D` is the tool's own
 *  comparison; the generic part (src/report/diff*.ts) only passes it from `compute` to the rest. */
export interface ToolDiff<D> {
  /** its comparison, or undefined when a run has none of its data */
  compute(a: Profile, b: Profile, filter: ReportFilter): D | undefined;
  /** its lines of the terminal comparison, heading included */
  text(d: D, o: DiffTextContext): string[];
  /** its section of the comparison's page, `top` rows per table */
  html(d: D, top: number): string;
  /** its part of `--json` (under the manifest's `report.json` key), `top` rows per list */
  json(d: D, top: number): unknown;
}

export interface ToolReport {
  /** for a terminal report alone (`mpii report DIR` without --json, --html, --csv, --prof): a hook
   *  that sees each rank as it is read and may take what `text` will need of big sections and drop
   *  them (CounterSection.drop; src/profile-file/read.ts ReadOptions.onImage). `top`: --top. */
  digest?(o: { top?: number }): (rank: RankProfile) => void;
  /** lines of the terminal report (`mpii run`, `mpii report`) */
  text?(p: Profile, o: TextContext): string[];
  /** its part of `mpii report --json`, under the manifest's `report.json` key */
  json?(p: Profile, filter: ReportFilter): unknown;
  /** its sections of the HTML page: one string, or one per instance of the tool */
  html?(p: Profile, o: HtmlContext): string | string[];
  /** checks --ranks/--sites against its data (throws MpiiError) */
  checkFilter?(p: Profile, filter: ReportFilter): void;
  /** --csv / --prof */
  files?(p: Profile): FileOutputs;
  /** `mpii report A B` */
  diff?: ToolDiff<unknown>; // each tool's own comparison type
}

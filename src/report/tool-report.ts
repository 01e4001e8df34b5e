// The interface between the report and the tools: each built-in tool's folder holds a report
// module (its manifest's `report.module`) exporting `report: ToolReport`. The report (text,
// --json, --html, --csv/--prof, the filters) asks every module in turn and names no tool.
import type { OptionValue } from '../config/load.js';
import type { Profile, RankProfile } from '../profile-file/read.js';
import type { ReportFilter } from './filter.js';
import type { PageData } from './html-kit.js';

export interface TextContext {
  /** --top of `mpii report` (undefined after `mpii run`: the tool's own options decide) */
  top?: number;
  /** --no-matrix of `mpii report` */
  matrix?: boolean;
  color?: boolean;
  /** --sites, --ranks (and --top) */
  filter?: ReportFilter;
  /** after `mpii run`: the options the run gave the tool (its first instance) */
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
}

// The published API of mpii for the tools' report modules (preload/tools/<tool>/report.ts or
// report/*.ts): everything such a module may import from mpii, and the only file of src/ it may
// import (test/ts-layering.unit.test.ts, .dependency-cruiser.mjs). A tool imports neither mpii's
// other modules nor another tool: what two tools share lives here. The core reaches the tools'
// modules only through their registry, preload/tools/reports.gen.ts (docs/architecture.md).
//
// It re-exports the parts of the report and of the profile-file reader a tool draws with, under
// one name each (two functions called `table` and two called `describe` get the names below).

// the interface a report module implements: `export const report: ToolReport = { … }`
export type { DiffTextContext, FileOutputs, HtmlContext, TextContext, ToolDiff, ToolReport } from '../report/tool-report.js';
// one clear line naming the problem and its fix
export { MpiiError } from '../errors.js';

// the profile file: the ranks' records, the tool's blocks (generated from its blocks.yaml)
export { toolInstances, type CounterSection, type Profile, type RankProfile } from '../profile-file/read.js';
export { TableReader } from '../profile-file/table.js';
export { BLOCKS, CONSTANTS } from '../profile-file/format.gen.js';

// --top, --ranks, --sites of `mpii report`, as parsed; the default row counts
export { DEFAULT_PAIRS, DEFAULT_TOP, type ReportFilter } from '../report/filter.js';

// numbers in words: 1.5 MiB, 2.3 ms, +12 %
export { humanBytes, humanTime, signedBytes, signedCount, signedPercent, signedTime } from '../report/units.js';

// the terminal report: its width, aligned tables, wrapping, colours
export { cut, table as textTable, WIDTH } from '../report/text-table.js';
export { rankRanges, wrap } from '../report/header.js';
export { bgAnsi256, bold, yellow } from '../report/ansi.js';
// the ranks where a tool switched itself off, as the report's lines
export { disabledLines } from '../report/disabled.js';

// the HTML page: escaping, sortable tables, the charts' data
export { cell, esc, HEATMAP_CELLS, num, RANK_BARS, rawCell, table, type PageData } from '../report/html-kit.js';

// code addresses to function and file:line: call sites in batches (addr2line.ts), and single
// addresses of a rank's load map (symbols.ts), Python lines included
export { describe, parseModules, placeKey, placeOf, Symbolizer, type Location, type Module, type Place } from '../report/addr2line.js';
export { describe as describeCode, parseObjects, Symbolizer as CodeSymbolizer, type CodeLocation } from '../report/symbols.js';
export { pythonSites, type PythonSite } from '../report/python-sites.js';

// --json written as it is made; large tables of floats without an object per number
export { JsonStream } from '../report/json-stream.js';
export { Float64Pool } from '../report/float-pool.js';

// files a tool writes for --csv and --prof
export { ensureDir } from './files.js';

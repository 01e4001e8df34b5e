// The profile tool's report module (tool.yaml `report.module`): what it adds to each output of
// `mpii run` and `mpii report` (src/report/tool-report.ts).
import type { ToolReport } from '../../../../src/tool-api/index.js';
import { checkFilter } from './filter.js';
import { profileDiffReport } from './diff.js';
import { writeProfileCsv } from './csv.js';
import { profileJson, profileRuns, siteTotals } from './data.js';
import { profileSection } from './html.js';
import { formatProfile } from './text.js';

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

export const report: ToolReport = {
  // call sites listed: --top (through the filter), else the run's own `top`, else the default
  text: (p, o) => formatProfile(p, { top: o.filter?.top ?? num(o.options?.top) ?? o.top, color: o.color, filter: o.filter }),
  json: (p, filter) => profileJson(p, filter),
  html: (p, o) => profileRuns(p).map((run) => profileSection(run, o.top, o.data, o.filter)),
  checkFilter: (p, filter) =>
    checkFilter(
      profileRuns(p).map((run) => ({ run, sites: siteTotals(run) })),
      filter,
    ),
  files: (p) => {
    const runs = profileRuns(p);
    return {
      has: { csv: runs.length > 0, prof: false },
      provides: ['csv'],
      planned: () => [], // its CSV files are replaced without asking (as they always were)
      write: (o, filter) => (o.csv ? writeProfileCsv(runs, o.csv, filter).map((f) => `wrote ${f}`) : []),
    };
  },
  diff: profileDiffReport,
};

// The built-in tools' report modules, in the manifests' order (preload/tools/<name>/tool.yaml
// `report`): the modules come from their registry, preload/tools/reports.gen.ts (generated from
// the manifests by `npm run gen`), the only module through which the core imports a tool; their
// places and keys from the manifests. Loaded when the report code is first imported (never on
// `mpii run --quiet`): the report asks each in turn and names no tool.
import { MpiiError } from '../errors.js';
import { builtinManifests, type ToolManifest } from '../tools/manifest.js';
import { REPORTS } from '../../preload/tools/reports.gen.js';
import type { ToolReport } from './tool-report.js';

export interface ToolReportModule {
  name: string;
  manifest: ToolManifest;
  report: ToolReport;
  /** `report.json` of the manifest: its key in --json */
  json?: string;
  /** place in the text report and --json, and on the HTML page (the timeline is at 40 in both) */
  order: number;
  htmlOrder: number;
}

function load(m: ToolManifest): ToolReportModule {
  const report = REPORTS[m.name];
  if (!report) {
    throw new MpiiError(
      `tool '${m.name}' has a report module (${m.report!.module} in its tool.yaml) that preload/tools/reports.gen.ts does not list`,
      'run npm run gen, then npm run build, in the mpii folder (docs/writing-a-tool.md)',
    );
  }
  return { name: m.name, manifest: m, report, json: m.report!.json, order: m.order, htmlOrder: m.report!.htmlOrder };
}

/** Every built-in tool with a report module, in the manifests' order. */
export const TOOL_REPORTS: ToolReportModule[] = builtinManifests()
  .filter((m) => m.report)
  .map(load);

/** Tools whose recording MPI_Pcontrol switches (manifest `report.pcontrol`): the timeline shows when it was off. */
export const PCONTROL_TOOLS = new Set(TOOL_REPORTS.filter((t) => t.manifest.report?.pcontrol).map((t) => t.name));

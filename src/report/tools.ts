// The built-in tools' report modules, found through their manifests (preload/tools/<name>/
// tool.yaml `report.module`, compiled next to mpii's own code in dist/) and loaded once when the
// report code is first imported: the report asks each in the manifests' order and names no tool.
import path from 'node:path';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { MpiiError } from '../errors.js';
import { builtinManifests, type ToolManifest } from '../tools/manifest.js';
import { ROOT } from '../paths.js';
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

/** Where the compiled report module of a tool is: dist/ mirrors mpii's folders. */
export function compiledModule(m: ToolManifest): string {
  return path.join(ROOT, 'dist', path.relative(ROOT, m.dir), m.report!.module.replace(/\.ts$/, '.js'));
}

async function load(m: ToolManifest): Promise<ToolReportModule> {
  const file = compiledModule(m);
  if (!existsSync(file)) {
    throw new MpiiError(
      `the report module of tool '${m.name}' (${path.join(path.relative(ROOT, m.dir), m.report!.module)}) is not compiled: ${file} is missing`,
      'run npm run build in the mpii folder',
    );
  }
  const mod = (await import(pathToFileURL(file).href)) as { report?: ToolReport };
  if (!mod.report)
    throw new MpiiError(`${file} exports no \`report\``, `export const report: ToolReport = { … } from ${m.report!.module} (docs/writing-a-tool.md)`);
  return { name: m.name, manifest: m, report: mod.report, json: m.report!.json, order: m.order, htmlOrder: m.report!.htmlOrder };
}

/** Every built-in tool with a report module, in the manifests' order. */
export const TOOL_REPORTS: ToolReportModule[] = await Promise.all(
  builtinManifests()
    .filter((m) => m.report)
    .map(load),
);

/** Tools whose recording MPI_Pcontrol switches (manifest `report.pcontrol`): the timeline shows when it was off. */
export const PCONTROL_TOOLS = new Set(TOOL_REPORTS.filter((t) => t.manifest.report?.pcontrol).map((t) => t.name));

// The registry of the built-in tools' report modules, preload/tools/reports.gen.ts, made from each
// tool.yaml's `report.module`: one static import per tool, so a reader, the compiler and the
// layering test (test/ts-layering.unit.test.ts) follow the edges from the core to the tools. The
// core imports the tools through it alone (src/report/tools.ts). `npm run gen` writes it; the
// test checks the committed file is what the manifests make.
import { join, relative } from 'node:path';
import { builtinManifests, cName } from '../tools/manifest.js';

/** The registry's path in the repository. */
export const REGISTRY = join('preload', 'tools', 'reports.gen.ts');

/** The registry's text for the tools under `root`/preload/tools. */
export function reportRegistry(root: string): string {
  const toolsDir = join(root, 'preload', 'tools');
  const tools = builtinManifests(toolsDir).filter((m) => m.report);
  const imports = tools.map((m) => {
    const file = `./${relative(toolsDir, join(m.dir, m.report!.module)).replace(/\.ts$/, '.js')}`;
    return `import { report as ${cName(m.name)} } from '${file}';`;
  });
  const entries = tools.map((m) => (cName(m.name) === m.name ? `  ${m.name},` : `  '${m.name}': ${cName(m.name)},`));
  return [
    '// Generated from preload/tools/*/tool.yaml (`report.module`) by `npm run gen` (src/gen/reports.ts): do not edit.',
    "// The built-in tools' report modules, by tool name: the one place the core imports a tool from.",
    "import type { ToolReport } from '../../src/tool-api/index.js';",
    ...imports,
    '',
    'export const REPORTS: Record<string, ToolReport> = {',
    ...entries,
    '};',
    '',
  ].join('\n');
}

// The TypeScript side's layering (docs/architecture.md, "The TypeScript layers"), beside the C
// one (c-layering.unit.test.ts): no import cycle in src/ or a tool, a tool imports from mpii only
// its published API (src/tool-api/index.ts) and nothing of another tool, the core reaches the
// tools only through the generated registry of report modules. The rules are
// .dependency-cruiser.mjs's (npm run lint checks them too); here they run on the real sources,
// and on made-up trees that prove each rule fires. The registry is what the manifests make.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { REGISTRY, reportRegistry } from '../src/gen/reports.js';
import { ROOT } from './helpers.js';

const CONFIG = ((await import(pathToFileURL(join(ROOT, '.dependency-cruiser.mjs')).href)) as { default: IConfiguration }).default;
const TSCONFIG = { compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['**/*.ts'] };

/** The rules' findings on the tree at `root` (src/ and preload/tools/ under it): "rule: from → to". */
async function check(root: string): Promise<{ problems: string[]; result: ICruiseResult }> {
  const ts = join(root, 'tsconfig.json');
  const out = await cruise(
    ['src', 'preload/tools'],
    {
      ...CONFIG.options,
      baseDir: root,
      tsConfig: { fileName: ts },
      ruleSet: { forbidden: CONFIG.forbidden },
      validate: true,
    },
    undefined,
    { tsConfig: extractTSConfig(ts) },
  );
  const result = out.output as ICruiseResult;
  const problems = (result.summary.violations ?? []).map((v) =>
    v.cycle ? `${v.rule.name}: ${[v.from, ...v.cycle.map((c) => c.name)].join(' → ')}` : `${v.rule.name}: ${v.from} → ${v.to}`,
  );
  return { problems: problems.sort(), result };
}

/** A made-up tree of TypeScript files in a temporary folder. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'mpii-ts-layering-'));
  writeFileSync(join(root, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

async function checkTree(files: Record<string, string>): Promise<string[]> {
  const root = tree(files);
  try {
    return (await check(root)).problems;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// the parts every made-up tree has: a core module, the API, the registry and its reader, a tool
const BASE = {
  'src/errors.ts': 'export class MpiiError extends Error {}\n',
  'src/tool-api/index.ts': "export { MpiiError } from '../errors.js';\nexport type Report = { text(): string[] };\n",
  'src/report/tools.ts': "import { REPORTS } from '../../preload/tools/reports.gen.js';\nexport const NAMES = Object.keys(REPORTS);\n",
  'preload/tools/reports.gen.ts': "import { report as t } from './t/report.js';\nexport const REPORTS = { t };\n",
  'preload/tools/t/report.ts': "import type { Report } from '../../../src/tool-api/index.js';\nexport const report: Report = { text: () => [] };\n",
};

describe('TypeScript layering: the sources', () => {
  const real = check(ROOT); // one cruise for both tests
  it('no cycle, tools import only the API and no other tool, the core reaches tools only through the registry', async () => {
    const { problems } = await real;
    assert.deepEqual(problems, [], `the layering rules (.dependency-cruiser.mjs; docs/architecture.md) are broken:\n${problems.join('\n')}`);
  });

  it('sees the whole graph: the core, the registry, every tool with a report module, the API', async () => {
    const { result } = await real;
    const deps = new Map(result.modules.map((m) => [m.source, m.dependencies.map((d) => d.resolved)]));
    assert.ok(deps.get('src/report/tools.ts')?.includes('preload/tools/reports.gen.ts'), 'the report reads the registry');
    for (const tool of ['trace-count/report.ts', 'profile/report/index.ts', 'monitor/report/index.ts', 'overlap/report.ts', 'memcheck/report.ts']) {
      assert.ok(deps.get('preload/tools/reports.gen.ts')?.includes(`preload/tools/${tool}`), `the registry imports ${tool}`);
    }
    assert.ok(deps.get('preload/tools/profile/report/text.ts')?.includes('src/tool-api/index.ts'), 'a tool imports the API');
    // type-only imports are edges too
    assert.ok(deps.get('preload/tools/profile/report/types.ts')?.includes('src/tool-api/index.ts'));
  });
});

describe('TypeScript layering: the rules fire', () => {
  it('a made-up tree that keeps the rules passes', async () => {
    assert.deepEqual(await checkTree(BASE), []);
  });

  it('names a cycle, through a type-only import too', async () => {
    const problems = await checkTree({
      ...BASE,
      'src/a.ts': "import { b } from './b.js';\nexport const a = () => b();\n",
      'src/b.ts': "import type { C } from './c.js';\nexport const b = (c?: C) => c;\n",
      'src/c.ts': "import { a } from './a.js';\nexport type C = ReturnType<typeof a>;\n",
    });
    assert.deepEqual(problems, ['no-cycle: src/a.ts → src/b.ts → src/c.ts → src/a.ts']);
  });

  it('a tool that reaches into src/ past the API', async () => {
    const problems = await checkTree({
      ...BASE,
      'src/report/units.ts': 'export const humanBytes = (n: number) => `${n} B`;\n',
      'preload/tools/t/text.ts': "import { humanBytes } from '../../../src/report/units.js';\nexport const line = () => humanBytes(1);\n",
      'preload/tools/t/errors.ts': "import { MpiiError } from '../../../src/errors.js';\nexport const fail = () => new MpiiError('x');\n",
    });
    assert.deepEqual(problems, [
      'tool-imports-only-the-api: preload/tools/t/errors.ts → src/errors.ts',
      'tool-imports-only-the-api: preload/tools/t/text.ts → src/report/units.ts',
    ]);
  });

  it('a tool that imports another tool', async () => {
    const problems = await checkTree({
      ...BASE,
      'preload/tools/u/files.ts': 'export const ensureDir = (d: string) => d;\n',
      'preload/tools/t/csv.ts': "import { ensureDir } from '../u/files.js';\nexport const csv = () => ensureDir('x');\n",
    });
    assert.deepEqual(problems, ['tool-imports-no-other-tool: preload/tools/t/csv.ts → preload/tools/u/files.ts']);
  });

  it("the core importing a tool's module, or the registry read elsewhere", async () => {
    const problems = await checkTree({
      ...BASE,
      'src/report/filter.ts': "import type { Report } from '../../preload/tools/t/report.js';\nexport type R = Report;\n",
      'src/report/html.ts': "import { REPORTS } from '../../preload/tools/reports.gen.js';\nexport const n = Object.keys(REPORTS).length;\n",
    });
    assert.deepEqual(problems, [
      'core-imports-no-tool: src/report/filter.ts → preload/tools/t/report.ts',
      'registry-has-one-reader: src/report/html.ts → preload/tools/reports.gen.ts',
    ]);
  });

  it('the API importing the commands', async () => {
    const problems = await checkTree({
      ...BASE,
      'src/cli/main.ts': 'export const VERSION = "1";\n',
      'src/tool-api/version.ts': "export { VERSION } from '../cli/main.js';\n",
    });
    assert.deepEqual(problems, ['api-imports-no-command: src/tool-api/version.ts → src/cli/main.ts']);
  });
});

describe("the report modules' registry (preload/tools/reports.gen.ts)", () => {
  it('is what the manifests make (npm run gen)', () => {
    assert.equal(readFileSync(join(ROOT, REGISTRY), 'utf8'), reportRegistry(ROOT), 'run npm run gen and commit what it writes');
  });

  it('lists a tool added as a folder, by its manifest', () => {
    const root = mkdtempSync(join(tmpdir(), 'mpii-registry-'));
    try {
      cpSync(join(ROOT, 'preload', 'tools'), join(root, 'preload', 'tools'), { recursive: true });
      cpSync(join(ROOT, 'test', 'tools', 'hello'), join(root, 'preload', 'tools', 'hello'), { recursive: true });
      const text = reportRegistry(root);
      assert.notEqual(text, readFileSync(join(ROOT, REGISTRY), 'utf8'));
      assert.match(text, /^import \{ report as hello \} from '\.\/hello\/report\.js';$/m);
      assert.match(text, /^ {2}hello,$/m);
      assert.match(text, /^ {2}'trace-count': trace_count,$/m);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

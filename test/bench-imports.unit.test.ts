// The benchmarks (bench/*.mjs, plain JavaScript that tsc does not check) import mpii's compiled
// modules by path: every such path must name a file the build makes, so that moving a module
// cannot leave a benchmark broken until someone runs it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './helpers.js';

/** The scripts to check: bench/ and scripts/, one level of subfolders. */
function scripts(): string[] {
  const out: string[] = [];
  for (const top of ['bench', 'scripts']) {
    for (const e of readdirSync(join(ROOT, top), { withFileTypes: true })) {
      if (e.isFile() && e.name.endsWith('.mjs')) out.push(join(top, e.name));
      if (e.isDirectory()) {
        for (const f of readdirSync(join(ROOT, top, e.name))) if (f.endsWith('.mjs')) out.push(join(top, e.name, f));
      }
    }
  }
  return out;
}

/** The relative paths into dist/ a script imports (static `from '…'` and dynamic `import('…')`). */
export function distImports(source: string): string[] {
  return [...source.matchAll(/(?:from\s+|import\(\s*)['"]((?:\.\.?\/)+dist\/[^'"]+)['"]/g)].map((m) => m[1]);
}

test('the import finder sees static and dynamic imports of dist/, and nothing else', () => {
  const src = "import { a } from '../dist/src/x.js';\nconst { b } = await import('../dist/preload/y.js');\nimport c from './common.mjs';";
  assert.deepEqual(distImports(src), ['../dist/src/x.js', '../dist/preload/y.js']);
});

test("every module of mpii's build that a benchmark or script imports exists", () => {
  assert.ok(existsSync(join(ROOT, 'dist', 'src')), 'run npm run build first (npm test does)');
  const missing: string[] = [];
  for (const f of scripts()) {
    for (const p of distImports(readFileSync(join(ROOT, f), 'utf8'))) {
      if (!existsSync(join(ROOT, dirname(f), p))) missing.push(`${f}: ${p}`);
    }
  }
  assert.deepEqual(missing, []);
});

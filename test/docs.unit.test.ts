// The docs stay true to the tree: every relative link and every repository path written in
// backticks in the README and docs/ names a file that exists; each built-in tool's manifest names
// its docs page (which mentions every option) and tests that exist; the README stays a front
// door (a few hundred lines; the manual is docs/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { ROOT } from './helpers.js';
import { builtinManifests } from '../src/tools/manifest.js';

const README_MAX_LINES = 300;

function markdownFiles(): string[] {
  const inDir = (d: string) =>
    readdirSync(join(ROOT, d))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(d, f));
  return ['README.md', 'bench/README.md', ...inDir('docs'), ...inDir('docs/tools')];
}

/** Relative link targets (without #anchor) of a Markdown text. */
export function relativeLinks(md: string): string[] {
  return [...md.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]).filter((t) => !/^[a-z]+:/.test(t));
}

/** Paths inside the repository written in backticks (`src/…`, `preload/…`, …), globs left out. */
export function repoPaths(md: string): string[] {
  const tops = 'src|preload|test|bench|scripts|docs|config|bin';
  return [...md.matchAll(new RegExp('`((?:' + tops + ')/[A-Za-z0-9_./-]+)`', 'g'))].map((m) => m[1].replace(/[/.]+$/, ''));
}

test('the link and path finders find what they should, and nothing else', () => {
  const md = 'see [a](docs/a.md#x), [b](https://x.org/c), `src/cli/run.ts`, `preload/tools/<t>/`, `test/programs/profile_*.c`, `npm test`';
  assert.deepEqual(relativeLinks(md), ['docs/a.md']);
  assert.deepEqual(repoPaths(md), ['src/cli/run.ts']);
});

test('every relative link and backticked repository path in the docs exists', () => {
  const missing: string[] = [];
  for (const f of markdownFiles()) {
    const text = readFileSync(join(ROOT, f), 'utf8');
    for (const t of relativeLinks(text)) {
      if (!existsSync(normalize(join(ROOT, dirname(f), t)))) missing.push(`${f}: link ${t}`);
    }
    for (const p of repoPaths(text)) if (!existsSync(join(ROOT, p))) missing.push(`${f}: path ${p}`);
  }
  assert.deepEqual(missing, []);
});

test("each built-in tool's manifest names a docs page that exists and mentions each of its options, and tests that exist", () => {
  const manifests = builtinManifests();
  assert.ok(manifests.length >= 6);
  for (const m of manifests) {
    assert.ok(m.docs, `${m.name}: no docs page in its manifest`);
    const page = join(ROOT, m.docs);
    assert.ok(existsSync(page), `${m.name}: ${m.docs} is missing`);
    const text = readFileSync(page, 'utf8');
    for (const o of Object.keys(m.options)) assert.match(text, new RegExp(`\`${o}\``), `${m.docs} does not mention option ${o}`);
    for (const t of m.tests) if (!t.includes('*')) assert.ok(existsSync(join(ROOT, t)), `${m.name}: test ${t} named in its manifest is missing`);
  }
});

test(`the README is a front door: at most ${README_MAX_LINES} lines, the two commands first, then the install line, a link to every docs page`, () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const lines = readme.split('\n');
  assert.ok(lines.length <= README_MAX_LINES, `README.md has ${lines.length} lines: move the detail to docs/`);
  const firstBlock = readme.slice(readme.indexOf('```sh'), readme.indexOf('```', readme.indexOf('```sh') + 5));
  // the two commands that work on a fresh machine (setup + demo, every test), then the package
  assert.match(firstBlock, /^```sh\nbash scripts\/setup\.sh && npm run demo .*\n.*npm run test:all /);
  const after = readme.slice(readme.indexOf('```', readme.indexOf('```sh') + 5));
  assert.match(after.slice(0, 400), /npm install -g --allow-scripts=koffi \.\/mpii-[\d.]+\.tgz/, 'the install line for users follows');
  const linked = new Set(relativeLinks(readme).map((l) => normalize(l)));
  const pages = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f));
  assert.deepEqual(
    pages.filter((p) => !linked.has(p)),
    [],
  );
});

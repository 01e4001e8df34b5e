#!/usr/bin/env node
// The code's lint and format (docs/testing.md):
//   node scripts/lint.mjs            check (npm run lint; npm test runs it, test/lint.unit.test.ts)
//   node scripts/lint.mjs --fix      rewrite what can be rewritten (npm run format)
//   node scripts/lint.mjs eslint     one checker (or prettier, clang-format, layers), with or without --fix
//
// ESLint (eslint.config.js) and Prettier (.prettierrc.json, .prettierignore) over the TypeScript and
// JavaScript; clang-format (preload/.clang-format) over the hand-written C under preload/; the
// TypeScript layers (.dependency-cruiser.mjs: no import cycle, tools import only src/tool-api,
// docs/architecture.md) with dependency-cruiser, which has nothing to fix by itself. Each
// prints only what is wrong and the command that fixes it. ESLint and Prettier keep a cache in
// dist/.cache (of files that passed, by content): a second run checks only the files that changed.
// ESLint's type-aware rules also depend on the files a file imports, which its cache does not
// follow; a fresh clone (CI) checks everything.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, 'dist', '.cache');
const CODE = '**/*.{ts,mts,cts,js,mjs,cjs}'; // what ESLint lints too (.prettierignore still applies)
const CLANG_FORMAT_STYLE_VERSION = 14; // the version preload/.clang-format is kept with

/** A child's exit status and output, its stdout and stderr in the order they came. */
function run(cmd, args) {
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd: ROOT });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (e) => done({ status: 1, out: `${cmd}: ${e.message}\n` }));
    child.on('close', (status) => done({ status: status ?? 1, out }));
  });
}

/** The npm package's entry point, or a line saying to install the devDependencies. */
function npmBin(pkg, bin) {
  const p = join(ROOT, 'node_modules', pkg, bin);
  if (!existsSync(p)) throw new Error(`${pkg} is not installed: run npm ci (it is a devDependency)`);
  return p;
}

async function eslint(fix) {
  const args = ['--max-warnings', '0', '--cache', '--cache-strategy', 'content', '--cache-location', join(CACHE, 'eslint') + '/'];
  const r = await run(process.execPath, [npmBin('eslint', 'bin/eslint.js'), ...args, ...(fix ? ['--fix'] : []), '.']);
  return r.status === 0
    ? null
    : `${r.out.trim()}\neslint: the problems above${fix ? ' are left: fix them by hand' : ': npm run format fixes some, the rest by hand'}`;
}

async function prettier(fix) {
  // --list-different prints the files at the `log` level; --write would print every file there.
  // The code only, by name: an HTML report or a note left in the checkout is not Prettier's
  const args = ['--cache', '--cache-location', join(CACHE, 'prettier'), ...(fix ? ['--write', '--log-level', 'warn'] : ['--list-different']), CODE];
  const r = await run(process.execPath, [npmBin('prettier', 'bin/prettier.cjs'), ...args]);
  if (r.status === 0) return null;
  const files = r.out.trim().split('\n');
  return fix || files.some((f) => !existsSync(join(ROOT, f)))
    ? `${r.out.trim()}\nprettier: failed (above)`
    : `prettier: not formatted: ${files.join(', ')} — run npm run format`;
}

/** The hand-written C under preload/: every .c and .h but the generated headers ("do not edit"). */
function cSources(dir = join(ROOT, 'preload')) {
  const found = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) found.push(...cSources(p));
    else if (/\.[ch]$/.test(e.name) && !/do not edit/.test(readFileSync(p, 'utf8').split('\n', 1)[0])) found.push(relative(ROOT, p));
  }
  return found.sort();
}

async function clangFormat(fix) {
  const v = spawnSync('clang-format', ['--version'], { encoding: 'utf8' });
  if (v.error) return 'clang-format is not installed: apt-get install clang-format';
  const files = cSources();
  const r = await run('clang-format', [...(fix ? ['-i'] : ['--dry-run', '-Werror']), ...files]);
  if (r.status === 0) return null;
  const bad = [...new Set([...r.out.matchAll(/^(\S+?):\d+:\d+: error:/gm)].map((m) => relative(ROOT, resolve(ROOT, m[1]))))];
  const major = Number(/version (\d+)/.exec(v.stdout)?.[1]);
  const note =
    major === CLANG_FORMAT_STYLE_VERSION ? '' : ` (this is clang-format ${major}; the style is kept with ${CLANG_FORMAT_STYLE_VERSION}, and versions differ)`;
  return bad.length && !fix
    ? `clang-format: not formatted: ${bad.join(', ')} — run npm run format${note}`
    : `${r.out.trim()}\nclang-format: failed (above)${note}`;
}

async function layers() {
  const args = ['src', 'preload/tools', '--config', '.dependency-cruiser.mjs', '--output-type', 'err'];
  const r = await run(process.execPath, [npmBin('dependency-cruiser', 'bin/dependency-cruise.mjs'), ...args]);
  return r.status === 0 ? null : `${r.out.trim()}\nlayers: the imports above break the TypeScript layers (docs/architecture.md): fix them by hand`;
}

const CHECKERS = { eslint, prettier, 'clang-format': clangFormat, layers };

const args = process.argv.slice(2);
const fix = args.includes('--fix');
const names = args.filter((a) => a !== '--fix');
const unknown = names.filter((n) => !(n in CHECKERS));
if (unknown.length) {
  console.error(`lint: unknown checker ${unknown.join(', ')}: use ${Object.keys(CHECKERS).join(', ')} (or none for all), with or without --fix`);
  process.exit(2);
}
// ESLint first when fixing: Prettier then has the last word on the layout
const chosen = names.length ? names : Object.keys(CHECKERS);
const results = [];
if (fix) for (const n of chosen) results.push(await CHECKERS[n](true).catch((e) => `${n}: ${e.message}`));
else results.push(...(await Promise.all(chosen.map((n) => CHECKERS[n](false).catch((e) => `${n}: ${e.message}`)))));
const failed = results.filter(Boolean);
for (const f of failed) console.error(f);
if (!failed.length) console.log(`lint: ${chosen.join(', ')}: ${fix ? 'formatted' : 'clean'}`);
process.exit(failed.length ? 1 : 0);

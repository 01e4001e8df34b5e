// The code's lint and format are part of `npm test`: ESLint, Prettier and clang-format, as
// `npm run lint` runs them (scripts/lint.mjs). A failure names the files and the command that
// fixes them (npm run format, or the rule to fix by hand). Its fourth checker, the TypeScript
// layers, is tested on the sources and on made-up trees in ts-layering.unit.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

const LINT = join(ROOT, 'scripts', 'lint.mjs');

/** scripts/lint.mjs's exit status and output (stdout then stderr). */
function lint(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [LINT, ...args], { cwd: ROOT, env });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => done({ code: code ?? 1, out: out.trim() }));
  });
}

describe('lint and format', { concurrency: true }, () => {
  // a cold ESLint (no cache in dist/.cache: a fresh clone) type-checks the whole project
  for (const checker of ['eslint', 'prettier', 'clang-format']) {
    it(`${checker}: the code is clean`, { timeout: 600_000 }, async () => {
      const r = await lint([checker]);
      assert.equal(r.code, 0, `\n${r.out}`);
    });
  }

  it('without clang-format: one line that says how to install it', () => {
    // a PATH with nothing on it (Node is started by its full path)
    const r = spawnSync(process.execPath, [LINT, 'clang-format'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, PATH: mkdtempSync(join(tmpdir(), 'mpii-no-clang-format-')) },
    });
    assert.equal(r.status, 1);
    assert.equal(r.stderr, 'clang-format is not installed: apt-get install clang-format\n');
  });

  it('an unknown checker: one line naming it and the choices', () => {
    const r = spawnSync(process.execPath, [LINT, 'biome'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.equal(r.stderr, 'lint: unknown checker biome: use eslint, prettier, clang-format, layers (or none for all), with or without --fix\n');
  });
});

// The environment's contract (preload/spec/environment.yaml): the generated C names, TypeScript
// names and docs table are what it makes; neither side spells a declared name as a literal; an
// `int` variable reads the same on both sides (preload/spec/env-int.cases, the shim's reading
// compiled with cc). No MPI job.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { execaSync } from 'execa';
import { C_HEADER, DOC, environmentFiles, EnvSpecError, loadEnvSpec, SPEC, TS_FILE } from '../src/gen/env-emit.js';
import { staleEnvironmentFiles } from '../src/gen/env-gen.js';
import { envInt } from '../src/run/env-int.js';
import { injIgnored } from '../src/run/environment.js';
import { ENV, ENV_INT_DEFAULT, ENV_PASSED_ON } from '../src/environment.gen.js';
import { ROOT } from './helpers.js';

function files(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  for (const f of readdirSync(dir)) {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) out.push(...files(p, ext));
    else if (ext.test(f)) out.push(p);
  }
  return out;
}

describe('the environment declared once', () => {
  it('the C header, the TypeScript names and the table of docs/run.md are what the declaration makes (npm run gen)', () => {
    assert.deepEqual(Object.keys(environmentFiles(ROOT)).sort(), [DOC, C_HEADER, TS_FILE].sort());
    assert.deepEqual(staleEnvironmentFiles(ROOT), [], 'run npm run gen and commit what it writes');
    const table = readFileSync(join(ROOT, DOC), 'utf8');
    for (const v of loadEnvSpec(ROOT).variables) assert.match(table, new RegExp(`^\\| \`${v.name.replace(/[<>]/g, '.')}\` \\|`, 'm'));
  });

  it('a changed declaration makes the committed files stale', () => {
    const root = mkdtempSync(join(tmpdir(), 'mpii-env-contract-'));
    for (const f of [SPEC, C_HEADER, TS_FILE, DOC]) {
      mkdirSync(join(root, f, '..'), { recursive: true });
      cpSync(join(ROOT, f), join(root, f));
    }
    const yaml = join(root, SPEC);
    writeFileSync(yaml, readFileSync(yaml, 'utf8').replace('default: -1', 'default: -3'));
    assert.deepEqual(staleEnvironmentFiles(root).sort(), [DOC, C_HEADER, TS_FILE].sort());
    assert.match(environmentFiles(root)[C_HEADER], /#define MPII_ENV_INJ_DEBUG_DEFAULT -3\n/);
  });

  it('a bad declaration is refused in one line naming the variable', () => {
    const root = mkdtempSync(join(tmpdir(), 'mpii-env-bad-'));
    mkdirSync(join(root, 'preload', 'spec'), { recursive: true });
    const bad = (text: string) => {
      writeFileSync(join(root, SPEC), text);
      assert.throws(() => loadEnvSpec(root), EnvSpecError);
      try {
        loadEnvSpec(root);
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    };
    assert.match(bad('int: x\nvariables:\n  FOO: { type: path, set-by: cli, read-by: [shim], doc: d }\n'), /FOO: .*C macro/);
    assert.match(bad('int: x\nvariables:\n  FOO: { type: path, set-by: nobody, read-by: [cli], doc: d }\n'), /FOO: set-by/);
    assert.match(bad('int: x\nvariables:\n  FOO: { type: int, set-by: user, read-by: [cli], doc: d }\n'), /FOO: an int variable needs a number/);
  });

  it('every variable the shim reads is a macro of mpii_env.h in the C, and the C spells none as a literal', () => {
    const spec = loadEnvSpec(ROOT);
    const header = readFileSync(join(ROOT, C_HEADER), 'utf8');
    const found: string[] = [];
    for (const f of files(join(ROOT, 'preload'), /\.[ch]$/)) {
      if (f.endsWith(C_HEADER.split('/').pop()!)) continue;
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/getenv\("([^"]+)"\)/g)) found.push(`${relative(ROOT, f)}: getenv("${m[1]}")`);
      for (const v of spec.variables.filter((x) => x.c)) if (text.includes(`"${v.pattern ?? v.name}`)) found.push(`${relative(ROOT, f)}: "${v.name}"`);
    }
    assert.deepEqual(found, [], 'use the MPII_ENV_… macros of preload/core/mpii_env.h');
    const c = files(join(ROOT, 'preload'), /\.c$/)
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    for (const v of spec.variables.filter((x) => x.c)) {
      assert.match(header, new RegExp(`#define ${v.c} "${v.pattern ?? v.name}"`));
      assert.match(c, new RegExp(`\\b${v.c}\\b`), `${v.name} is declared read by the shim: a .c file reads it through ${v.c}`);
    }
  });

  it("src/ spells no MPII_*, INJ_* or TOOLS name as a literal: it uses ENV (the loader's and mpi4py's own names may stay)", () => {
    const names = loadEnvSpec(ROOT)
      .variables.filter((v) => /^(MPII_|INJ_|TOOLS)/.test(v.name))
      .map((v) => v.pattern ?? v.name);
    const found: string[] = [];
    for (const f of files(join(ROOT, 'src'), /\.ts$/)) {
      if (f.endsWith('.gen.ts')) continue;
      // code only: comments, and messages that name a variable with its value (`MPII_BUILD=${v} …`), are prose
      const text = readFileSync(f, 'utf8').replace(/^\s*(\/\/|\/?\*).*$/gm, '');
      for (const n of names) {
        const lit = new RegExp(`(['"\`])${n}${n.endsWith('_') ? '' : '\\1'}|env\\??\\.${n}\\b`);
        if (lit.test(text)) found.push(`${relative(ROOT, f)}: ${n}`);
      }
    }
    assert.deepEqual(found, [], 'write ENV.<name> (src/environment.gen.ts)');
    // and a variable read by a name not declared is one to declare first
    const undeclared: string[] = [];
    for (const f of files(join(ROOT, 'src'), /\.ts$/)) {
      const text = readFileSync(f, 'utf8').replace(/^\s*(\/\/|\/?\*).*$/gm, '');
      for (const m of text.matchAll(/env\??\.((?:MPII|INJ)_\w+)|env\[['"`]((?:MPII|INJ)_\w+)/g)) undeclared.push(`${relative(ROOT, f)}: ${m[1] ?? m[2]}`);
    }
    assert.deepEqual(undeclared, [], `declare it in ${SPEC} and write ENV.<name>`);
    assert.deepEqual(
      [...ENV_PASSED_ON],
      [ENV.INJ_IGNORE, ENV.INJ_DEBUG, ENV.MPIR_CVAR_QMPI_TOOL_LIST, ENV.MPIR_PARAM_QMPI_TOOL_LIST, ENV.MPICH_QMPI_TOOL_LIST, ENV.MPII_CLOCK],
    );
  });
});

/** preload/spec/env-int.cases: [value or undefined (unset), the int it reads as or 'default']. */
function cases(): [string | undefined, number | 'default'][] {
  return readFileSync(join(ROOT, 'preload', 'spec', 'env-int.cases'), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [input, want] = l.split('\t');
      return [(JSON.parse(input) as string | null) ?? undefined, want === 'default' ? 'default' : Number(want)];
    });
}

describe('an int variable reads the same in the shim and in the CLI', () => {
  const table = cases();

  it('the table has the cases that tell the readings apart', () => {
    assert.ok(table.length >= 25);
    for (const v of [undefined, '', '3 ', '\u00a03', '4294967296', '99999999999999999999'])
      assert.ok(
        table.some(([i]) => i === v),
        JSON.stringify(v),
      );
  });

  for (const fallback of [ENV_INT_DEFAULT.INJ_IGNORE, ENV_INT_DEFAULT.INJ_DEBUG]) {
    it(`the CLI (src/run/env-int.ts), default ${fallback}`, () => {
      for (const [input, want] of table) assert.equal(envInt(input, fallback), want === 'default' ? fallback : want, JSON.stringify(input));
    });

    it(`the shim (preload/core/env_int.h, compiled with cc), default ${fallback}`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'mpii-env-int-'));
      const bin = join(dir, 'env_int');
      execaSync('cc', ['-O1', '-Wall', '-Werror', '-I', join(ROOT, 'preload', 'core'), '-o', bin, join(ROOT, 'test', 'programs', 'env_int.c')]);
      const argv = table.map(([input]) => (input === undefined ? 'unset' : `=${input}`));
      const got = execaSync(bin, [String(fallback), ...argv])
        .stdout.split('\n')
        .map(Number);
      assert.deepEqual(
        got,
        table.map(([, want]) => (want === 'default' ? fallback : want)),
      );
    });
  }

  it('INJ_IGNORE is on for an int other than 0, as the shim reads it', () => {
    const on = (v?: string) => injIgnored(v === undefined ? {} : { INJ_IGNORE: v });
    assert.deepEqual(['1', ' -1', '+2', '0', '', '00', ' 0', '1 ', 'yes', '0x1', '4294967296', '4294967297', '\u00a01', undefined].map(on), [
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      true,
      false,
      false,
    ]);
  });
});

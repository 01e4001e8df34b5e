// Adding a built-in tool is adding a folder (docs/writing-a-tool.md): in a copy of mpii, the
// folder test/tools/hello goes to preload/tools/hello and nothing else changes but the generated
// registry of report modules (preload/tools/reports.gen.ts); after what a user would run
// (npm run gen, which writes the registry, then npm run build), the copy's CLI lists the tool, checks its options and run flag,
// the shim registers it with its typed options, and the report has its section — on Open MPI and
// MPICH. Also: every built-in tool's docs page names each option of its manifest.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { FLAVORS, launcherArgs, program, ROOT, TEST_ENV } from './helpers.js';

const copy = mkdtempSync(join(tmpdir(), 'mpii-add-a-tool-'));
const cache = join(copy, '.cache'); // the copy's shims: its own cache, removed with it
after(() => rmSync(copy, { recursive: true, force: true }));

async function mpii(args: string[]) {
  const r = await execa('node', [join(copy, 'bin', 'mpii.js'), ...args], {
    env: { ...TEST_ENV, XDG_CACHE_HOME: cache },
    cwd: copy,
    reject: false,
    timeout: 900_000,
  });
  return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Every file under dir, relative. */
function files(dir: string, base = ''): string[] {
  return readdirSync(join(dir, base), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(dir, join(base, e.name)) : [join(base, e.name)]));
}

describe('a tool is one folder', () => {
  before(async () => {
    for (const d of ['bin', 'config', 'preload', 'src']) cpSync(join(ROOT, d), join(copy, d), { recursive: true });
    // docs/run.md holds the environment's generated table, which npm run gen rewrites too
    for (const f of ['package.json', 'tsconfig.json', 'docs/run.md']) cpSync(join(ROOT, f), join(copy, f));
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    cpSync(join(ROOT, 'test', 'tools', 'hello'), join(copy, 'preload', 'tools', 'hello'), { recursive: true });
    // what a user runs after adding the folder (no test/ or bench/ in the copy: nothing else to
    // compile): npm run gen (compile, write the generated files: the registry now lists hello's
    // report module), then npm run build
    const tsc = () => execa('node', [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', copy], { reject: false });
    const first = await tsc();
    assert.equal(first.exitCode, 0, first.stdout);
    const gen = await execa('node', [join(copy, 'dist', 'src', 'gen', 'committed.js')], { env: { ...TEST_ENV, XDG_CACHE_HOME: cache }, reject: false });
    assert.equal(gen.exitCode, 0, gen.stderr);
    assert.match(readFileSync(join(copy, 'preload', 'tools', 'reports.gen.ts'), 'utf8'), /import \{ report as hello \} from '\.\/hello\/report\.js';/);
    const rebuilt = await tsc();
    assert.equal(rebuilt.exitCode, 0, rebuilt.stdout);
    // the copy's shims (a new folder is a new shim): built once here, where a slow machine may take its time
    const build = await execa('node', [join(copy, 'bin', 'mpii.js'), 'build', '--quiet'], {
      env: { ...TEST_ENV, XDG_CACHE_HOME: cache },
      reject: false,
      timeout: 3_600_000,
    });
    assert.equal(build.exitCode, 0, build.stderr);
  });

  it('added nothing outside the folder: the core, the CLI and the configuration are the same files', () => {
    for (const d of ['src', 'config', 'preload/core', 'preload/include']) {
      for (const f of files(join(ROOT, d))) assert.ok(readFileSync(join(copy, d, f)).equals(readFileSync(join(ROOT, d, f))), `${d}/${f} differs`);
      assert.deepEqual(files(join(copy, d)).sort(), files(join(ROOT, d)).sort(), `${d}: no file added`);
    }
  });

  it('the CLI lists it and checks its options and its run flag from the manifest', async () => {
    const tools = await mpii(['tools', '--json']);
    assert.equal(tools.code, 0, tools.stderr);
    const hello = (JSON.parse(tools.stdout) as { tools: { name: string; kind: string; options: { name: string; summary: string }[] }[] }).tools.find(
      (t) => t.name === 'hello',
    );
    assert.ok(hello, 'hello is listed');
    assert.equal(hello.kind, 'builtin');
    assert.deepEqual(
      hello.options.map((o) => [o.name, o.summary]),
      [
        ['greeting', 'one of hi|hello, default hello'],
        ['times', 'int in [1, 3], default 1'],
      ],
    );
    const bad = await mpii(['run', '--dry-run', '--tools', 'hello[times=9]', ...launcherArgs('openmpi', 2), program('openmpi', 'collectives')]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /bad value for option 'times' of tool 'hello': must be ≤ 3, got 9/);
    const unknown = await mpii(['run', '--dry-run', '--tools', 'hello[loud=1]', ...launcherArgs('openmpi', 2), program('openmpi', 'collectives')]);
    assert.match(unknown.stderr, /unknown option 'loud' for tool 'hello'/);
    const flagAlone = await mpii(['run', '--dry-run', '--hello-twice', '--tools', 'noop', ...launcherArgs('openmpi', 2), program('openmpi', 'collectives')]);
    assert.match(flagAlone.stderr, /--hello-twice but hello is not in the tool stack — add it: --tools hello/);
    const dry = await mpii([
      'run',
      '--dry-run',
      '--hello-twice',
      '--tools',
      'hello[greeting=hi]',
      ...launcherArgs('openmpi', 2),
      program('openmpi', 'collectives'),
    ]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^TOOLS=hello$/m);
    assert.match(dry.stdout, /^MPII_OPT_1='?greeting=hi;times=2'?$/m);
    const help = await mpii(['run', '--help']);
    assert.match(help.stdout, /--hello-twice\s+say hello twice/);
  });

  for (const f of FLAVORS) {
    it(`${f}: the shim registers it with its typed options, and the report has its section`, async () => {
      const out = join(copy, `out-${f}`);
      const r = await mpii(['run', '--out', out, '--tools', 'hello[greeting=hi;times=3]', ...launcherArgs(f, 2), program(f, 'collectives')]);
      assert.equal(r.code, 0, r.stderr);
      const line = r.stderr.split('\n').find((l) => l.startsWith('hello:'));
      assert.ok(line, `no hello line in:\n${r.stderr}`);
      const m = /^hello: hi hi hi, (\d+) barriers$/.exec(line);
      assert.ok(m, line);
      const barriers = Number(m[1]);
      assert.ok(barriers >= 2 && barriers % 2 === 0, `each of the 2 ranks calls MPI_Barrier alike: ${barriers}`);
      const json = await mpii(['report', out, '--json']);
      assert.equal(json.code, 0, json.stderr);
      assert.deepEqual((JSON.parse(json.stdout) as { hello: unknown }).hello, { barriers, greeting: 'hi', times: 3 });
      // the defaults of the manifest reach the C when the run gives none
      const plain = await mpii(['run', '--out', `${out}-defaults`, '--tools', 'hello', ...launcherArgs(f, 2), program(f, 'collectives')]);
      assert.match(plain.stderr, /^hello: hello, \d+ barriers$/m);
    });
  }
});

// `mpii run`'s options declared once (src/launch/run-options.ts): each one is taken by the parser
// as mpii's (a value too, when it takes one), shown by `mpii run --help`, declared in the
// commander tree, and so in the manual page and both completion scripts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Command, Option } from 'commander';
import { buildProgram, runHelp } from '../src/cli/main.js';
import { manPage } from '../src/cli/man.js';
import { completionScript } from '../src/cli/completion.js';
import { parseRunArgs } from '../src/launch/args.js';
import { OWN_RUN_OPTIONS, runOptions } from '../src/launch/run-options.js';

const VALUES: Record<string, string> = { '--mpi': 'openmpi', '--launcher': 'mpirun', '--timeout': '5' };

describe("mpii run's options, declared once", () => {
  const options = runOptions();

  it('are the own options and the tools’ run flags, each once', () => {
    const flags = options.map((o) => o.flag);
    assert.equal(new Set(flags).size, flags.length);
    for (const f of ['--tools', '--out', '--timeout', '--chained', '--dry-run', '--quiet', '--memcheck-fatal']) assert.ok(flags.includes(f), f);
  });

  it('the parser takes each as mpii’s, with its value, and leaves the program alone', () => {
    for (const o of options) {
      const argv = [o.flag, ...(o.value ? [VALUES[o.flag] ?? 'x'] : []), '-np', '2', './app', o.flag];
      const r = parseRunArgs(argv, {});
      assert.deepEqual(r.launcherArgs, ['-np', '2'], o.flag);
      assert.equal(r.program, './app', o.flag);
      assert.deepEqual(r.programArgs, [o.flag], o.flag);
    }
    assert.equal(parseRunArgs(['--chained', './app']).chained, true);
  });

  it('mpii run --help shows each (--chained too)', () => {
    const help = runHelp();
    for (const o of options) assert.match(help, new RegExp(`^  ${(o.usage ?? o.flag).replace(/[|[\]]/g, '\\$&')} +\\S`, 'm'), o.flag);
    assert.match(help, /^ {2}--chained {10}run built-in tools through the QMPI chain/m);
  });

  it('the commander tree declares each, so the man page and both completion scripts have it', async () => {
    const program = await buildProgram(
      () => {},
      () => '',
    );
    const run = program.commands.find((c: Command) => c.name() === 'run')!;
    const declared = (run.options as readonly Option[]).map((o) => o.long);
    const page = manPage(program);
    const bash = completionScript(program, 'bash');
    const zsh = completionScript(program, 'zsh');
    const runCase = (script: string) => script.slice(script.indexOf('    run)'), script.indexOf('\n      ;;', script.indexOf('    run)')));
    for (const o of options) {
      assert.ok(declared.includes(o.flag), `commander: ${o.flag}`);
      const taken = (run.options as readonly Option[]).find((x) => x.long === o.flag)!;
      assert.equal(taken.required, !!o.value, `commander takes a value for ${o.flag} exactly when the parser does`);
      assert.ok(page.includes(`\\fB${o.flag.replace(/-/g, '\\-')}\\fR`), `man: ${o.flag}`);
      assert.match(runCase(bash), new RegExp(`[ "]${o.flag}[ "]`), `bash: ${o.flag}`);
      assert.ok(runCase(zsh).includes(`${o.flag}'[`), `zsh: ${o.flag}`);
    }
    // and nothing in the tree that the declaration lacks (bar --version, every command's)
    assert.deepEqual(declared.filter((f) => f !== '--version').sort(), options.map((o) => o.flag).sort());
    assert.equal(OWN_RUN_OPTIONS.length + options.filter((o) => !OWN_RUN_OPTIONS.includes(o)).length, options.length);
  });
});

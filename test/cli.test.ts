// The small commands: tools, doctor, report --json, help.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { execa } from 'execa';
import { FLAVORS, launcherArgs, MPII, mpii, outDir, program, ranksGone, ranksOf, shimInfo, TEST_ENV } from './helpers.js';
import { buildProgram } from '../src/cli/main.js';
import { parseRunArgs } from '../src/launch/args.js';
import { ROOT } from './helpers.js';

describe('mpii tools / doctor / report', () => {
  it('tools lists the built-ins and the stacks with the default marked', async () => {
    const r = await mpii(['tools']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}noop\s+builtin/m);
    assert.match(r.stdout, /^ {2}trace-count\s+builtin.*\n.*options: top \(int/m);
    assert.match(r.stdout, /^ {2}none\s+\[\] \(default\)/m);
    assert.match(r.stdout, /^ {2}count\s+\[trace-count\]/m);
  });

  it('doctor finds both MPIs and passes on this machine', async () => {
    const r = await mpii(['doctor']);
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.stdout, /ok\s+Open MPI: compiler \S+mpicc\.openmpi, launcher \S+mpirun\.openmpi/);
    assert.match(r.stdout, /ok\s+MPICH: compiler \S+mpicc\.mpich, launcher \S+(mpirun\.mpich|mpiexec\.hydra)/);
    assert.match(r.stdout, /all good/);
  });

  it('doctor reports an LD_PRELOAD naming a missing library', async () => {
    const r = await mpii(['doctor'], { LD_PRELOAD: '/nonexistent/libx.so' });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /FAIL\s+LD_PRELOAD names missing libraries: \/nonexistent\/libx\.so/);
  });

  it('--json on every command that prints results: build, tools, doctor', async () => {
    const tools = JSON.parse((await mpii(['tools', '--json'])).stdout);
    assert.deepEqual(tools.tools.map((t: { name: string }) => t.name).sort(), ['memcheck', 'monitor', 'noop', 'overlap', 'profile', 'trace-count']);
    assert.ok(tools.stacks.some((x: { name: string; isDefault: boolean }) => x.name === 'none' && x.isDefault));
    const doctor = await mpii(['doctor', '--json']);
    assert.equal(doctor.code, 0, doctor.stderr);
    const d = JSON.parse(doctor.stdout);
    assert.equal(d.problems, 0);
    assert.ok(
      d.checks.some((c: { status: string; message: string }) => c.status === 'ok' && /^MPICH: compiler/.test(c.message)),
      doctor.stdout,
    );
    const bad = JSON.parse((await mpii(['doctor', '--json'], { LD_PRELOAD: '/nonexistent/libx.so' })).stdout);
    assert.equal(bad.problems, 1);
    assert.match(bad.checks.find((c: { status: string }) => c.status === 'fail').fix, /LD_PRELOAD/);
    const build = await mpii(['build', '--mpi', 'mpich', '--quiet', '--json']);
    assert.equal(build.code, 0, build.stderr);
    const [b] = JSON.parse(build.stdout);
    assert.equal(b.flavor, 'mpich');
    assert.match(b.library, /libmpii\.so$/);
    assert.equal(typeof b.cached, 'boolean');
  });

  it('report --json re-reads a finished run', async () => {
    const out = outDir('json');
    const run = await mpii(['run', '--quiet', '--tools', 'trace-count', '--out', out, ...launcherArgs('mpich', 2), program('mpich', 'ring')]);
    assert.equal(run.code, 0, run.stderr);
    const r = await mpii(['report', '--json', out]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.complete, true);
    assert.equal(j.ranks.length, 2);
    assert.equal(j.ranks[1].state, 'finalized');
    const send = j.traceCount[0].rows.find((x: { fn: string }) => x.fn === 'MPI_Send');
    assert.deepEqual(send, { fn: 'MPI_Send', total: 6, min: 3, max: 3 });
  });

  it('run --help documents the options', async () => {
    const r = await mpii(['run', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /--tools a,b/);
    assert.match(r.stdout, /--dry-run/);
  });
});

describe('mpii build --force', () => {
  it('rebuilds the cached shim, and on a 0-column pseudo-terminal its progress stays a few lines', async () => {
    // a private cache holding a copy of the real cached Open MPI shim (the faster of the two to
    // build: every other test builds MPICH's too): --force must replace it
    const { library } = await shimInfo('openmpi');
    const cache = mkdtempSync(join(tmpdir(), 'mpii-force-'));
    cpSync(dirname(library), join(cache, 'mpii', basename(dirname(library))), { recursive: true });
    cpSync(join(dirname(dirname(library)), 'probe-openmpi.json'), join(cache, 'mpii', 'probe-openmpi.json'));
    const copied = join(cache, 'mpii', basename(dirname(library)), 'libmpii.so');
    const before = statSync(copied);
    const env = { ...TEST_ENV, XDG_CACHE_HOME: cache };
    const warm = await execa('node', [MPII, 'build', '--mpi', 'openmpi', '--quiet'], { env });
    assert.match(warm.stdout, /\(cached\)/);
    // `script` gives the command a pseudo-terminal; stty makes it report 0 columns (as CI ptys do)
    const log = join(cache, 'typescript');
    const r = await execa('script', ['-qec', `stty cols 0 rows 0; node ${MPII} build --mpi openmpi --force`, log], {
      env,
      reject: false,
      timeout: 600_000,
      stdin: 'ignore',
    });
    assert.equal(r.exitCode, 0, r.stdout.slice(-2000));
    const out = readFileSync(log);
    assert.ok(out.length < 16384, `${out.length} bytes of progress output`);
    assert.match(out.toString(), /built the Open MPI shim/);
    assert.doesNotMatch(r.stdout, /\(cached\)/);
    const after = statSync(copied);
    assert.ok(after.ino !== before.ino || after.mtimeMs !== before.mtimeMs, 'libmpii.so was rebuilt');
    // the build's time is kept for the next one to announce
    const seconds = JSON.parse(readFileSync(join(cache, 'mpii', 'build-seconds.json'), 'utf8'));
    assert.equal(typeof seconds.shim, 'number');

    // a stack's first build says what, why and (from the second on) how long the last one took,
    // in one line, even with --quiet; a cached one says nothing
    const stack = async (tools: string) => execa('node', [MPII, 'build', '--mpi', 'openmpi', '--quiet', '--tools', tools], { env });
    const first = await stack('trace-count');
    assert.deepEqual(first.stderr.split('\n'), [
      'mpii: building the stack trace-count compiled into one wrapper per function ' + '(its first run with this shim); the job starts when it is done',
    ]);
    const second = await stack('noop');
    assert.match(
      second.stderr,
      /^mpii: building the stack noop compiled into one wrapper per function \(its first run with this shim; the last one took \d+ s\); the job starts when it is done$/,
    );
    assert.equal((await stack('noop')).stderr, '', 'cached: nothing to say');
  });
});

/** A private copy of the sleeper (runs until killed), so pgrep finds this test's ranks only. */
function sleeperCopy(f: 'openmpi' | 'mpich'): string {
  const p = join(mkdtempSync(join(tmpdir(), 'mpii-sleep-')), `sleeper-${f}-${process.pid}`);
  copyFileSync(program(f, 'sleeper'), p); // copyFileSync keeps the mode: still executable
  return p;
}

for (const f of FLAVORS) {
  describe(`signals and --timeout (${f})`, () => {
    for (const [sig, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      it(`${sig} to mpii run: exit ${code}, the launcher tears the job down`, async () => {
        const sleeper = sleeperCopy(f);
        const child = execa('node', [MPII, 'run', '--quiet', '--tools', 'noop', '--out', outDir(`${f}-${sig}`), ...launcherArgs(f, 2), sleeper], {
          env: TEST_ENV,
          reject: false,
          timeout: 120_000,
        });
        await new Promise<void>((ready) => child.stdout!.on('data', (d: Buffer) => d.toString().includes('sleeper ready') && ready()));
        assert.equal((await ranksOf(sleeper)).length, 2, 'both ranks run before the signal');
        child.kill(sig);
        const r = await child;
        assert.equal(r.exitCode, code, r.stderr);
        assert.deepEqual(await ranksGone(sleeper), [], 'no rank left running');
      });
    }

    it('--timeout ends the job: exit 124, one line, the partial profile marked INCOMPLETE', async () => {
      const sleeper = sleeperCopy(f);
      const out = outDir(`${f}-timeout`);
      const r = await mpii(['run', '--timeout', '2', '--tools', 'trace-count', '--out', out, ...launcherArgs(f, 2), sleeper], {}, undefined, 120_000);
      assert.equal(r.code, 124, r.stderr);
      const lines = r.stderr.split('\n').filter((l) => /--timeout/.test(l));
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0], /^mpii: the job ran past --timeout 2 s and was stopped \(exit 124\): its profile is partial, marked INCOMPLETE$/);
      assert.match(r.stderr, /mpii profile: INCOMPLETE/);
      const j = JSON.parse((await mpii(['report', '--json', out])).stdout);
      assert.equal(j.complete, false);
      assert.equal(j.ranks.length, 2);
      assert.deepEqual(await ranksGone(sleeper), [], 'no rank left running');
    });
  });
}

describe('a signal before the launch', () => {
  it('SIGTERM during the shim build: exit 143, no output directory, no half-built shim left', { timeout: 120_000 }, async () => {
    const cache = mkdtempSync(join(tmpdir(), 'mpii-cold-')); // a cold cache: the shim is built first
    const base = mkdtempSync(join(tmpdir(), 'mpii-early-'));
    // the C compiler the shim's files are compiled with (the MPICH wrapper's, gcc), but one that,
    // asked to compile a file, writes its pid to `compiling` and never finishes: the signal surely
    // comes while the build's compilers run, however fast the machine (the probe and the
    // preprocessing go to the real compiler)
    const bin = mkdtempSync(join(tmpdir(), 'mpii-stuckcc-'));
    const compiling = join(bin, 'compiling');
    const real = (await execa('sh', ['-c', 'command -v gcc'])).stdout.trim();
    writeFileSync(join(bin, 'gcc'), `#!/bin/sh\ncase " $* " in *" -c "*) echo $$ >> ${compiling}; exec sleep 600;; esac\nexec ${real} "$@"\n`, {
      mode: 0o755,
    });
    const child = execa('node', [MPII, 'run', '--tools', 'noop', '--out', join(base, 'out'), ...launcherArgs('mpich', 2), program('mpich', 'ring')], {
      // no shared object cache either: objects taken from it would never reach the compiler
      env: { ...TEST_ENV, XDG_CACHE_HOME: cache, MPII_OBJECT_CACHE: '', PATH: `${bin}:${TEST_ENV.PATH}` },
      reject: false,
    });
    const stuck = () => (existsSync(compiling) ? readFileSync(compiling, 'utf8').split('\n').filter(Boolean).map(Number) : []);
    try {
      while (stuck().length === 0 && child.exitCode === null) await new Promise((r) => setTimeout(r, 50)); // until a compiler runs
      assert.ok(stuck().length > 0, 'the build reached its compilers');
      child.kill('SIGTERM');
      const r = await child;
      assert.equal(r.exitCode, 143, r.stderr);
    } finally {
      for (const pid of stuck())
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
    }
    assert.deepEqual(readdirSync(base), [], 'the output directory made for the run is gone');
    assert.deepEqual(
      readdirSync(join(cache, 'mpii')).filter((f) => f.startsWith('.build-') || f.startsWith('mpich-')),
      [],
      'no build directory left',
    );
    assert.equal(existsSync(join(base, 'out')), false);
  });
});

describe('--timeout values', () => {
  it('anything but a positive number of seconds is a usage error', async () => {
    for (const v of ['0', '-1', 'ten', '1e3', '']) {
      const r = await mpii(['run', '--timeout', v, '-np', '2', program('openmpi', 'ring')]);
      assert.equal(r.code, 2, `${v}: ${r.stderr}`);
      assert.match(r.stderr, /^mpii: --timeout needs a number of seconds greater than 0/m);
    }
    const ok = await mpii(['run', '--dry-run', '--timeout=1.5', '-np', '2', program('openmpi', 'ring')]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.doesNotMatch(ok.stdout, /--timeout/, "mpii's own option, not passed to mpirun");
  });
});

describe('INJ_IGNORE', () => {
  it('a run with the tools switched off says so in one line, not as a missing profile', async () => {
    const ring = program('mpich', 'ring');
    const r = await mpii(['run', '--tools', 'trace-count', '--out', outDir('inj'), ...launcherArgs('mpich', 2), ring], { INJ_IGNORE: '1' });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('mpii:') && !/launcher:/.test(l));
    assert.deepEqual(lines, ['mpii: no profile: INJ_IGNORE=1 switched the tools off on purpose (unset INJ_IGNORE to run them)']);
    // INJ_IGNORE=0 is "not ignored" to the shim: the report is there
    const on = await mpii(['run', '--tools', 'trace-count', '--out', outDir('inj0'), ...launcherArgs('mpich', 2), ring], { INJ_IGNORE: '0' });
    assert.equal(on.code, 0, on.stderr);
    assert.match(on.stderr, /MPI_Send/);
    assert.doesNotMatch(on.stderr, /INJ_IGNORE/);
  });
});

const COMMANDS = ['run', 'build', 'tools', 'doctor', 'report', 'install', 'uninstall', 'pvars', 'cvars', 'completion', 'man'];

describe('--version, usage errors, help', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

  it("mpii --version and --version on every command print package.json's version", async () => {
    for (const args of [['--version'], ['-V'], ...COMMANDS.map((c) => [c, '--version']), ['report', 'some-dir', '-V']]) {
      const r = await mpii(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout.trim(), pkg.version, args.join(' '));
    }
  });

  it("mpii run: --version or -V anywhere before the program is mpii's, after the program the program's", async () => {
    const ring = program('mpich', 'ring');
    const base = mkdtempSync(join(tmpdir(), 'mpii-version-'));
    const out = join(base, 'out');
    for (const args of [
      ['--tools', 'trace-count', '--version', '-np', '2', ring],
      ['--out', out, '-np', '2', '-V', ring],
      ['--mpi', 'mpich', '--launcher=mpirun', '--version'],
      ['-np', '2', '--mca', 'x', 'y', '--version', '--', ring],
    ]) {
      const r = await mpii(['run', ...args]);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout.trim(), pkg.version, args.join(' '));
      assert.equal(r.stderr, '', args.join(' '));
    }
    assert.deepEqual(readdirSync(base), [], 'nothing made, nothing run');
    // the value of an option is not a flag, and what follows the program is the program's
    assert.equal(parseRunArgs(['--out', '-V', ring]).version, false);
    assert.equal(parseRunArgs(['-np', '2', ring, '--version']).version, false);
    assert.equal(parseRunArgs(['-np', '2', '--', ring, '-V']).version, false);
    const dry = await mpii(['run', '--dry-run', '--tools', 'trace-count', '-np', '2', ring, '--version']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`${ring.replace(/[.]/g, '\\.')} --version$`, 'm'), 'the program gets its --version');
  });

  it("usage errors commander catches exit 2 with one mpii line, like mpii's own", async () => {
    const cases: [string[], RegExp][] = [
      [['frobnicate'], /^mpii: unknown command 'frobnicate' — see mpii --help$/],
      [['report'], /^mpii: missing required argument 'dir' — see mpii report --help$/],
      [['report', '--jsn', 'x'], /^mpii: unknown option '--jsn' — did you mean --json\? \(mpii report --help\)$/],
      [['build', '--bogus'], /^mpii: unknown option '--bogus' — see mpii build --help$/],
      [['report', 'x', '--top'], /^mpii: option '--top <n>' argument missing — see mpii report --help$/],
      [['completion', 'fish'], /^mpii: .*'fish' is invalid.*bash, zsh.* — see mpii completion --help$/],
    ];
    for (const [args, pattern] of cases) {
      const r = await mpii(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0], pattern);
    }
    // mpii alone: the help, on stderr, as a usage error
    const bare = await mpii([]);
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /Usage: mpii/);
    // asking for help is no error
    assert.equal((await mpii(['--help'])).code, 0);
    assert.equal((await mpii(['help', 'report'])).code, 0);
  });

  it('--help of run and report has examples', async () => {
    const run = await mpii(['run', '--help']);
    assert.match(run.stdout, /Examples:\n\s+mpii run /);
    assert.match(run.stdout, /--timeout SECONDS/);
    const report = await mpii(['report', '--help']);
    assert.equal(report.code, 0);
    assert.match(report.stdout, /Examples:\n\s+mpii report /);
    assert.match((await mpii(['--help'])).stdout, /Examples:/);
  });
});

describe('mpii completion', () => {
  it('bash: generated from the command definitions, and it completes', async () => {
    const r = await mpii(['completion', 'bash']);
    assert.equal(r.code, 0, r.stderr);
    // every command and every option commander knows is in the script
    const program = await buildProgram(
      () => {},
      () => '',
    );
    for (const c of program.commands) {
      assert.match(r.stdout, new RegExp(`\\b${c.name()}\\)`), c.name());
      for (const o of c.options) assert.ok(r.stdout.includes(o.long!), `${c.name()} ${o.long}`);
    }
    const dir = mkdtempSync(join(tmpdir(), 'mpii-compl-'));
    const file = join(dir, 'mpii.bash');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, r.stdout);
    const ask = async (...words: string[]) =>
      (
        await execa('bash', [
          '-c',
          `source ${file}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _mpii; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ])
      ).stdout
        .split('\n')
        .filter(Boolean)
        .sort();
    assert.deepEqual(await ask('mpii', 're'), ['report']);
    assert.deepEqual(await ask('mpii', 'run', '--t'), ['--timeout', '--tools']);
    assert.deepEqual(await ask('mpii', 'build', '--mpi', ''), ['abi', 'all', 'mpich', 'openmpi']);
    assert.deepEqual(await ask('mpii', 'run', '--mpi', ''), ['abi', 'abi:mpich', 'abi:openmpi', 'mpich', 'openmpi']);
    assert.deepEqual(await ask('mpii', 'run', '--tools', 'trace'), ['trace-count']);
    assert.deepEqual(await ask('mpii', 'report', '--h'), ['--help', '--html']);
    assert.deepEqual(await ask('mpii', 'completion', ''), ['bash', 'zsh']);
  });

  it('zsh: every command and option, valid zsh that registers itself', async () => {
    const r = await mpii(['completion', 'zsh']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^#compdef mpii\n/);
    const program = await buildProgram(
      () => {},
      () => '',
    );
    for (const c of program.commands) {
      assert.match(r.stdout, new RegExp(`^    '${c.name()}:`, 'm'), c.name());
      for (const o of c.options) assert.ok(r.stdout.includes(o.long!), `${c.name()} ${o.long}`);
    }
    assert.equal((await execa('sh', ['-c', 'command -v zsh'], { reject: false })).exitCode, 0, 'zsh is installed by scripts/setup.sh');
    const file = join(mkdtempSync(join(tmpdir(), 'mpii-zsh-')), '_mpii');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, r.stdout);
    await execa('zsh', ['-n', file]);
    const reg = await execa('zsh', ['-c', `autoload -U compinit && compinit -u -D; source ${file}; print -r -- $_comps[mpii]`]);
    assert.equal(reg.stdout.trim(), '_mpii');
  });
});

describe('colour: NO_COLOR and FORCE_COLOR', () => {
  it('mpii tools and mpii report follow it in a pipe', async () => {
    // eslint-disable-next-line no-control-regex -- the escape sequences of a terminal (ESC [) are what this looks for
    const esc = /\x1b\[/;
    assert.doesNotMatch((await mpii(['tools'])).stdout, esc);
    assert.match((await mpii(['tools'], { FORCE_COLOR: '1' })).stdout, esc);
    assert.doesNotMatch((await mpii(['tools'], { FORCE_COLOR: '0' })).stdout, esc);
    const dir = mkdtempSync(join(tmpdir(), 'mpii-colour-'));
    const { writeSyntheticJob } = await import('../src/profile-file/synthetic.js');
    writeSyntheticJob(dir, 4);
    assert.doesNotMatch((await mpii(['report', dir])).stdout, esc);
    assert.match((await mpii(['report', dir], { FORCE_COLOR: '1' })).stdout, esc);
  });
});

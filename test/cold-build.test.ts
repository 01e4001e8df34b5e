// A new stack's first run (docs/run.md, "A new stack's first run"): it starts at once, chained
// (the general shim's QMPI chain), while the stack's compiled-in shim builds in a detached
// background process; the next run uses that shim; two runs never build it twice; a background
// build killed outright leaves nothing a run would use, and the next build takes its place.
// Every decision is read from what mpii prints (the notice, --dry-run, INJ_DEBUG), never from a time.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { execa } from 'execa';
import { FLAVORS, MPII, ROOT, TEST_ENV, launcherArgs, mpii, outDir, program, shimInfo, type Flavor } from './helpers.js';

const STARTED = (stack: string) =>
  new RegExp(
    `^mpii: running chained while the compiled-in stack ${stack.replaceAll('+', '\\+')} builds in the background ` +
      '\\(its first run with this shim(?:; the last build took \\d+ s)?, pid (\\d+)\\); the next run uses it \\(MPII_BUILD=wait waits for it\\)$',
    'm',
  );
const OTHER = (stack: string) =>
  new RegExp(
    `^mpii: running chained while the compiled-in stack ${stack.replaceAll('+', '\\+')} builds in the background ` + '\\(started by another run, pid (\\d+)\\)',
    'm',
  );
const COMPILED_IN = (stack: string) => new RegExp(`specialised stack ${stack.replaceAll('+', '\\+')}: compiled in, no chain`);

/** The interpreter whose mpi4py runs on `f` (python.test.ts checks them; setup.sh makes the venv). */
const PYTHON: Record<Flavor, string> = { openmpi: '/usr/bin/python3', mpich: join(ROOT, '.venv-mpich', 'bin', 'python') };
/** mpi4py 4 (MPICH's venv) is told its ABI, as python.test.ts does */
const PYTHON_ENV: Record<Flavor, NodeJS.ProcessEnv> = { openmpi: {}, mpich: { MPI4PY_MPIABI: 'mpich' } };

const caches: string[] = [];
after(() => {
  for (const c of caches) rmSync(c, { recursive: true, force: true });
});

for (const f of FLAVORS) {
  describe(`a new stack's first run on ${f}`, () => {
    // a private cache holding the general shim only (a copy of the cached one, none of its
    // compiled-in stacks): every stack is new there
    let env: NodeJS.ProcessEnv;
    let shimDir: string;
    before(async () => {
      const { library } = await shimInfo(f);
      const cache = mkdtempSync(join(tmpdir(), 'mpii-cold-'));
      caches.push(cache);
      shimDir = join(cache, 'mpii', basename(dirname(library)));
      cpSync(dirname(library), shimDir, { recursive: true, filter: (src) => !/\/\.?spec-[^/]*$/.test(src) });
      cpSync(join(dirname(dirname(library)), `probe-${f}.json`), join(cache, 'mpii', `probe-${f}.json`));
      // real compiles, no shared objects (scripts/run-tests.mjs): a build must still be running when it is killed
      env = { XDG_CACHE_HOME: cache, MPII_SPECIALISE: '1', MPII_BUILD: '', MPII_OBJECT_CACHE: '' };
    });
    const run = (tools: string, extra: NodeJS.ProcessEnv = {}, prog = [program(f, 'ring')]) =>
      mpii(['run', '--quiet', '--tools', tools, '--out', outDir(`${f}-cold`), ...launcherArgs(f, 2), ...prog], { ...env, ...extra }, ROOT, 900_000);
    const left = () =>
      readdirSync(shimDir)
        .filter((n) => n.startsWith('.spec-') || n.startsWith('spec-'))
        .sort();

    it('--dry-run says the stack would run chained while it builds, and starts nothing', async () => {
      const r = await mpii(['run', '--dry-run', '--tools', 'noop', ...launcherArgs(f, 2), program(f, 'ring')], env);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^# tools: noop .*; chained \(the compiled-in stack noop is not built yet: a run builds it in the background\)$/m);
      assert.equal(/^LD_PRELOAD=(\S+)$/m.exec(r.stdout)?.[1], join(shimDir, 'libmpii.so'), 'the general shim');
      assert.deepEqual(left(), [], 'no build started, no lock');
    });

    it('runs chained at once; a background build killed outright leaves no cache entry and its place is taken', async () => {
      // an mpi4py program: the first run of a new stack, chained
      const py = join(mkdtempSync(join(tmpdir(), 'mpii-cold-py-')), 'hello.py');
      writeFileSync(py, 'import sys\nfrom mpi4py import MPI\nc = MPI.COMM_WORLD\nc.Barrier()\nsys.stdout.write(f"hello from {c.rank}\\n")\n');
      // the builder is killed (its whole session: node and the compilers) as soon as the run names it
      const child = execa('node', [MPII, 'run', '--quiet', '--tools', 'noop', '--out', outDir(`${f}-cold-py`), ...launcherArgs(f, 2), PYTHON[f], py], {
        env: { ...TEST_ENV, ...env, ...PYTHON_ENV[f], INJ_DEBUG: '0' },
        reject: false,
        timeout: 300_000,
      });
      let killed: number | undefined;
      child.stderr!.on('data', (d: Buffer) => {
        const pid = Number(STARTED('noop').exec(d.toString())?.[1]);
        if (pid && !killed) {
          killed = pid;
          process.kill(-pid, 'SIGKILL');
        }
      });
      const r = await child;
      assert.equal(r.exitCode, 0, r.stderr);
      assert.ok(killed, r.stderr);
      assert.match(r.stdout, /hello from 0/);
      assert.doesNotMatch(r.stderr, COMPILED_IN('noop'), 'chained');
      assert.match(r.stderr, /stack of 1 tool built/, 'the chain');
      assert.ok(!existsSync(join(shimDir, 'spec-noop')), 'no compiled-in shim from a killed build');
      // what it left (a lock naming a dead process, its work directory) is no build in progress:
      // the next run starts one of its own
      const again = await run('noop');
      assert.equal(again.code, 0, again.stderr);
      const pid = Number(STARTED('noop').exec(again.stderr)?.[1]);
      assert.ok(pid && pid !== killed, again.stderr);
      const waited = await run('noop', { MPII_BUILD: 'wait', INJ_DEBUG: '0' });
      assert.equal(waited.code, 0, waited.stderr);
      assert.doesNotMatch(waited.stderr, /mpii: building the stack/, 'the background build made it, not this run');
      assert.match(waited.stderr, COMPILED_IN('noop'));
      assert.deepEqual(left(), ['spec-noop'], "the killed build's work directory and every lock are gone");
    });

    it('two runs of a new stack at once start one build, and the runs after it use the compiled-in shim', async () => {
      const withPid = () => {
        const c = execa('node', [MPII, 'run', '--quiet', '--tools', 'trace-count', '--out', outDir(`${f}-cold`), ...launcherArgs(f, 2), program(f, 'ring')], {
          env: { ...TEST_ENV, ...env },
          cwd: ROOT,
          reject: false,
          timeout: 900_000,
        });
        return c.then((r) => ({ code: r.exitCode ?? -1, stderr: r.stderr, pid: String(c.pid) }));
      };
      const [a, b] = await Promise.all([withPid(), withPid()]);
      assert.equal(a.code, 0, a.stderr);
      assert.equal(b.code, 0, b.stderr);
      const started = [a, b].map((r) => STARTED('trace-count').exec(r.stderr)?.[1]).filter(Boolean);
      assert.equal(started.length, 1, `${a.stderr}\n${b.stderr}`);
      // the other run saw that build under way (or, on a machine fast enough, already done): the
      // lock names the builder, or, in the instant before the starting run hands it over, that run
      const starter = [a, b].find((r) => STARTED('trace-count').test(r.stderr))!;
      const other = [a, b].find((r) => r !== starter)!;
      const by = OTHER('trace-count').exec(other.stderr)?.[1];
      assert.ok(
        by === undefined ? !/^mpii:/m.test(other.stderr) : by === started[0] || by === starter.pid,
        `${other.stderr} (builder ${started[0]}, starting run ${starter.pid})`,
      );
      // MPII_BUILD=wait waits for that build instead of making its own
      const waited = await run('trace-count', { MPII_BUILD: 'wait', INJ_DEBUG: '0' });
      assert.equal(waited.code, 0, waited.stderr);
      assert.doesNotMatch(waited.stderr, /mpii: building the stack/);
      assert.match(waited.stderr, COMPILED_IN('trace-count'));
      // from now on every run uses it at once, and says nothing about it
      const next = await run('trace-count', { INJ_DEBUG: '0' });
      assert.equal(next.code, 0, next.stderr);
      assert.doesNotMatch(next.stderr, /^mpii:/m);
      assert.match(next.stderr, COMPILED_IN('trace-count'));
      const dry = await mpii(['run', '--dry-run', '--tools', 'trace-count', ...launcherArgs(f, 2), program(f, 'ring')], env);
      assert.match(dry.stdout, /specialised: compiled into one wrapper per function/);
      assert.equal(/^LD_PRELOAD=(\S+)$/m.exec(dry.stdout)?.[1], join(shimDir, 'spec-trace-count', 'libmpii.so'));
      // the background build's time is kept for the next notice
      assert.equal(typeof JSON.parse(readFileSync(join(shimDir, '..', 'build-seconds.json'), 'utf8')).stack, 'number');
    });

    it('a background build that failed is not tried by every run: the notice says so and how to retry', async () => {
      writeFileSync(join(shimDir, '.spec-monitor.failed'), 'cc1: out of memory\n');
      const r = await run('monitor');
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stderr,
        /^mpii: running chained: the compiled-in stack monitor failed to build in the background \(cc1: out of memory\); `mpii build --tools monitor` tries again and shows why$/m,
      );
      assert.ok(!existsSync(join(shimDir, '.spec-monitor.lock')), 'no build started');
      rmSync(join(shimDir, '.spec-monitor.failed'));
    });

    it('MPII_BUILD with an unknown value is one line', async () => {
      const r = await run('noop', { MPII_BUILD: 'later' });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /^mpii: MPII_BUILD=later is not a build mode — set MPII_BUILD=wait/);
    });
  });
}

// The very first run on an MPI (docs/architecture.md, "The first run"): with nothing cached, the
// job starts on a quick shim (the stack's built-in tools only, -Og) and the stack is fully on in
// it: memcheck finds what it finds on the full shim, in C and Python, and trace-count counts a
// Fortran program's every call. Meanwhile a detached process builds the general shim, then the
// stack's compiled-in one; the run after it uses them. Every decision is read from what mpii
// prints and what the cache holds, never from a time.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLAVORS, ROOT, fortranProgram, launcherArgs, mpii, outDir, program, type Flavor } from './helpers.js';
import { readProfile } from '../src/profile-file/read.js';
import { memcheckRuns } from '../preload/tools/memcheck/report.js';

const QUICK =
  /^mpii: running on a quick shim \(-Og, this stack's tools only\) while the full (?:Open MPI|MPICH) shim(?:, then the compiled-in stack (\S+))? builds in the background \((?:the first run on this MPI|started by another run)[^)]*, pid (\d+)\); the next run uses it \(MPII_BUILD=wait waits for it\)$/m;
const COMPILED_IN = (stack: string) => new RegExp(`specialised stack ${stack.replaceAll('+', '\\+')}: compiled in, no chain`);

/** The interpreter whose mpi4py runs on `f` (python.test.ts checks them; setup.sh makes the venv). */
const PYTHON: Record<Flavor, string> = { openmpi: '/usr/bin/python3', mpich: join(ROOT, '.venv-mpich', 'bin', 'python') };
const PYTHON_ENV: Record<Flavor, NodeJS.ProcessEnv> = { openmpi: {}, mpich: { MPI4PY_MPIABI: 'mpich' } };

const caches: string[] = [];
const builders: number[] = [];
after(() => {
  for (const pid of builders) stopBuilder(pid);
  for (const c of caches) rmSync(c, { recursive: true, force: true });
});

/** An empty cache, and runs that do not wait for a build (the default, which the tests' own
 *  environment changes: helpers.ts). */
function fresh(): { cache: string; env: NodeJS.ProcessEnv } {
  const cache = mkdtempSync(join(tmpdir(), 'mpii-first-'));
  caches.push(cache);
  // no system cache either (install.test.ts fills the tests' own)
  return {
    cache: join(cache, 'mpii'),
    // nor shared objects (scripts/run-tests.mjs): a first build compiles everything
    env: { XDG_CACHE_HOME: cache, MPII_SYSTEM_CACHE: join(cache, 'no-system-cache'), MPII_BUILD: '', MPII_SPECIALISE: '1', MPII_OBJECT_CACHE: '' },
  };
}

/** Ends a background build (its session: node and its compilers); SIGTERM lets it remove its
 *  work directory and its lock. */
function stopBuilder(pid: number): void {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    // already done
  }
}

/** The quick-shim notice of a run, and the background builder it names (stopped at the end). */
function quickNotice(stderr: string): { stack?: string; pid: number } {
  const m = QUICK.exec(stderr);
  assert.ok(m, stderr);
  builders.push(Number(m[2]));
  return { stack: m[1], pid: Number(m[2]) };
}

const quickDirs = (cache: string) => readdirSync(cache).filter((d) => d.startsWith('quick-'));

for (const f of FLAVORS) {
  describe(`the first run on ${f}, nothing cached`, () => {
    it('C under memcheck: starts on a quick shim with memcheck only, and finds the send buffer overrun', async () => {
      const { cache, env } = fresh();
      const out = outDir(`first-${f}-c`);
      const r = await mpii(['run', '--quiet', '--tools', 'memcheck', '--out', out, ...launcherArgs(f, 2), program(f, 'memcheck_e1_send_overrun')], env);
      assert.equal(r.code, 0, r.stderr);
      const notice = quickNotice(r.stderr);
      assert.equal(notice.stack, undefined, 'memcheck runs chained only: the general shim is all there is to build');
      assert.deepEqual(quickDirs(cache), [readdirSync(cache).find((d) => /^quick-.*-memcheck$/.test(d))], 'one quick shim, with memcheck');
      const runs = memcheckRuns(readProfile(out));
      assert.equal(runs.length, 1);
      assert.deepEqual(
        runs[0].errors.map((e) => [e.kind, e.ranks, e.bytes]),
        [['send buffer overrun', [0], 1]],
      );
      stopBuilder(notice.pid);
    });

    it('Fortran (mpi_f08) under trace-count: every call of the ring and the halo counted', async () => {
      const { env } = fresh();
      const out = outDir(`first-${f}-f08`);
      const np = 2;
      const r = await mpii(['run', '--quiet', '--tools', 'trace-count', '--out', out, ...launcherArgs(f, np), fortranProgram(f, 'fortran_halo', 'F08')], env);
      assert.equal(r.code, 0, r.stderr);
      stopBuilder(quickNotice(r.stderr).pid);
      assert.match(r.stdout, /^fortran_halo ok size=/m);
      const json = JSON.parse((await mpii(['report', out, '--json'])).stdout);
      const count = (fn: string) => json.traceCount[0].rows.find((x: { fn: string }) => x.fn === fn)?.total ?? 0;
      const iters = 5; // fortran_halo.F90's `iters`, as in fortran.test.ts
      assert.equal(count('MPI_Init'), np);
      assert.equal(count('MPI_Sendrecv'), 2 * np * iters);
      assert.equal(count('MPI_Isend'), 2 * np * iters);
      assert.equal(count('MPI_Waitall'), np * iters);
      assert.equal(count('MPI_Allreduce'), np * (iters + 1));
    });

    it('Python (mpi4py) under memcheck: the numpy buffer written while its Isend is pending is found', async () => {
      const { env } = fresh();
      const out = outDir(`first-${f}-py`);
      const r = await mpii(
        [
          'run',
          '--quiet',
          '--tools',
          'memcheck',
          '--out',
          out,
          ...launcherArgs(f, 2),
          PYTHON[f],
          join(ROOT, 'test', 'python', 'memcheck_errors.py'),
          'isend-write',
        ],
        { ...env, ...PYTHON_ENV[f] },
      );
      assert.equal(r.code, 0, r.stderr);
      stopBuilder(quickNotice(r.stderr).pid);
      const runs = memcheckRuns(readProfile(out));
      assert.deepEqual(
        runs[0].errors.map((e) => [e.kind, e.call.fn.replace(/_c$/, ''), e.call.at?.line]),
        [['write to a pending send buffer', 'MPI_Isend', 'memcheck_errors.py:17']],
      );
    });

    // the whole hand-over once (it compiles the general shim: a minute or two of one core)
    if (f === 'openmpi') {
      it('the background build lands the general shim, then the compiled-in stack; the next run uses them and says nothing', async () => {
        const { cache, env } = fresh();
        const run = (extra: NodeJS.ProcessEnv = {}) =>
          mpii(
            ['run', '--quiet', '--tools', 'trace-count', '--out', outDir(`first-${f}-next`), ...launcherArgs(f, 2), program(f, 'ring')],
            { ...env, ...extra },
            ROOT,
            900_000,
          );
        const first = await run();
        assert.equal(first.code, 0, first.stderr);
        const { pid } = quickNotice(first.stderr);
        // a second run meanwhile: the same quick shim, and no second builder
        const second = await run();
        assert.equal(second.code, 0, second.stderr);
        const again = QUICK.exec(second.stderr);
        if (again) assert.match(second.stderr, new RegExp(`started by another run, pid ${pid}\\)`));
        // MPII_BUILD=wait waits for the general shim and the stack: the builder's, not its own
        const waited = await run({ MPII_BUILD: 'wait', INJ_DEBUG: '0' });
        assert.equal(waited.code, 0, waited.stderr);
        assert.match(waited.stderr, COMPILED_IN('trace-count'));
        const general = readdirSync(cache).filter((d) => /^openmpi-[0-9a-f]{16}$/.test(d));
        assert.equal(general.length, 1, readdirSync(cache).join(' '));
        assert.ok(existsSync(join(cache, general[0], 'spec-trace-count', 'libmpii.so')));
        assert.ok(quickDirs(cache)[0].startsWith(`quick-${general[0]}-`), 'the quick shim was of the same sources');
        const next = await run({ INJ_DEBUG: '0' });
        assert.equal(next.code, 0, next.stderr);
        assert.doesNotMatch(next.stderr, /^mpii:/m, 'nothing to build, nothing to say');
        assert.match(next.stderr, COMPILED_IN('trace-count'));
        assert.deepEqual(
          readdirSync(cache).filter((d) => d.startsWith('.spec-') && d.endsWith('.lock')),
          [],
          'no build left holding a lock',
        );
      });
    }
  });
}

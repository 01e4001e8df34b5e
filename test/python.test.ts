// Python programs (mpi4py) under every tool, on both MPIs: the interpreter is not linked against
// MPI; mpi4py's extension module loads it with dlopen(RTLD_LOCAL) after the shim. Open MPI runs
// the distribution's python3-mpi4py (3.x) with /usr/bin/python3; MPICH runs mpi4py 4 from the
// package registry in the virtual environment scripts/setup.sh makes (.venv-mpich, which also sees
// the distribution's numpy and mpi4py-fft); mpi4py 4 picks its MPI at import time
// (MPI4PY_MPIABI=mpich). Each program prints results that do not depend on timing, so a run
// under a tool stack must print exactly what the plain run prints.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { FLAVORS, OMPI_TCP_LOOPBACK, ROOT, TEST_ENV, launcherArgs, library, mpii, outDir, shimInfo, type Flavor } from './helpers.js';
import { readProfile } from '../src/profile-file/read.js';

const PY = join(ROOT, 'test', 'python');
// MPII_TEST_MPICH_PYTHON: another Python whose mpi4py runs on MPICH (in a Debian root:
// scripts/mpich-python-in-root.sh makes /opt/py311-mpich)
const MPICH_PYTHON = process.env.MPII_TEST_MPICH_PYTHON || join(ROOT, '.venv-mpich', 'bin', 'python');

interface Interpreter {
  python: string;
  env: NodeJS.ProcessEnv;
  launcher: string;
}

/** The interpreter whose mpi4py runs on `f`, or why there is none (printed with the skip). */
function interpreterFor(f: Flavor): Interpreter | string {
  const cand =
    f === 'openmpi'
      ? { python: '/usr/bin/python3', env: {}, launcher: 'mpirun.openmpi' }
      : { python: MPICH_PYTHON, env: { MPI4PY_MPIABI: 'mpich' }, launcher: 'mpirun.mpich' };
  if (!existsSync(cand.python)) return `${cand.python} is missing (scripts/setup.sh makes it; it needs mpi4py from the package registry)`;
  const r = spawnSync(cand.python, ['-c', 'import mpi4py, numpy'], { env: { ...TEST_ENV, ...cand.env }, encoding: 'utf8' });
  if (r.status !== 0) return `${cand.python} cannot import mpi4py and numpy: ${r.stderr.trim().split('\n').pop()}`;
  return cand;
}

/** The program run directly by the MPI's own launcher, no mpii: the reference output. */
async function plain(f: Flavor, py: Interpreter, args: string[], np = 2): Promise<{ code: number; stdout: string; stderr: string }> {
  // plain MPICH needs the ABI name the wheel links (mpii provides it itself: tested below)
  const env = { ...TEST_ENV, ...py.env, ...(f === 'mpich' ? { LD_LIBRARY_PATH: abiFolder() } : {}) };
  const r = await execa(py.launcher, [...launcherArgs(f, np), py.python, ...args], { env, reject: false, timeout: 180_000 });
  return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A folder holding libmpi.so.12 → libmpich.so.12 for the plain MPICH runs. */
let abiDir = '';
function abiFolder(): string {
  if (abiDir) return abiDir;
  abiDir = mkdtempSync(join(tmpdir(), 'mpii-abi-'));
  const lib = spawnSync('sh', ['-c', 'ldconfig -p | sed -n "s/^\\s*libmpich\\.so\\.12 .*=> //p" | head -1'], { encoding: 'utf8' }).stdout.trim();
  spawnSync('ln', ['-s', lib, join(abiDir, 'libmpi.so.12')]);
  return abiDir;
}

interface MemcheckFindingJson {
  kind: string;
  call: { fn: string; at: { line: number } | null };
  access: { at: { line: number; python: boolean } } | null;
}
/** The parts of `mpii report --json` these tests read (each tool's `json` returns `unknown`). */
interface ReportJson {
  complete: boolean;
  size: number;
  spawned: unknown[];
  profile: {
    sites: { call: string; location: string; frames: { language: string; cFrame: string }[]; total: { count: number; sent: number; recv: number } }[];
  }[];
  memcheck: { disabled: unknown[]; errors: MemcheckFindingJson[]; hints: MemcheckFindingJson[] }[];
  overlap: { disabled: { reason: string }[]; totals: Record<string, number> }[];
  monitor: unknown[];
  traceCount: { rows: { fn: string; total: number | string }[] }[];
}

/** The whole report (--top 0: which sites make the first 15 by time depends on the machine's load). */
async function report(out: string): Promise<ReportJson> {
  const r = await mpii(['report', '--json', '--top', '0', out]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const STACKS = [
  'noop',
  'trace-count',
  'monitor',
  'profile',
  'memcheck',
  'overlap',
  'overlap[mode=paging]',
  'overlap[mode=chaining]',
  'monitor,profile,trace-count',
  'memcheck,overlap',
];

// MPII_TEST_PYTHON_MPIS=openmpi: the MPIs whose mpi4py these tests run, when not both. The Debian
// roots (scripts/test-in-roots.sh) set it: their python3-mpi4py is built for Open MPI, and the
// package registries reached here have no mpi4py for MPICH and the roots' Python
const PYTHON_MPIS = process.env.MPII_TEST_PYTHON_MPIS?.split(',') ?? FLAVORS;
for (const f of FLAVORS.filter((x) => PYTHON_MPIS.includes(x))) {
  describe(`${f}: Python (mpi4py) programs`, () => {
    const py = interpreterFor(f);
    if (typeof py === 'string') {
      it('mpi4py for this MPI is installed (scripts/setup.sh)', () => assert.fail(py));
      return;
    }
    const scratch = mkdtempSync(join(tmpdir(), `mpii-py-${f}-`));
    let reference = '';
    before(async () => {
      const r = await plain(f, py, [join(PY, 'suite.py'), scratch]);
      assert.equal(r.code, 0, r.stderr);
      reference = r.stdout;
      assert.match(reference, /suite done on 2 ranks/);
    });

    it("finds the MPI from the interpreter's mpi4py, without --mpi: python app.py, -m mpi4py, -c, a #! script", async () => {
      const script = join(scratch, 'hello.py');
      writeFileSync(script, `#!${py.python}\nfrom mpi4py import MPI\nprint(MPI.COMM_WORLD.Get_rank())\n`);
      chmodSync(script, 0o755);
      const flavorName = f === 'openmpi' ? 'Open MPI' : 'MPICH';
      for (const argv of [[py.python, script], [py.python, '-m', 'mpi4py', script], [py.python, '-c', 'from mpi4py import MPI'], [script]]) {
        const r = await mpii(['run', '--dry-run', '-np', '2', ...argv], py.env);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, new RegExp(`^# MPI: ${flavorName} \\(python[\\d.]* imports mpi4py [\\d.]+ \\(`, 'm'), argv.join(' '));
        assert.match(r.stdout, new RegExp(`mpirun\\.${f}`));
      }
      // the banner names the extension and the launcher
      const run = await mpii(['run', '--out', outDir(`${f}-py-banner`), ...launcherArgs(f, 2), py.python, script], py.env);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, new RegExp(`mpii: ${flavorName} through mpi4py [\\d.]+ \\(.*\\), .*launcher: mpirun\\.${f}`));
    });

    // MPICH's runs are all mpi4py 4 with the ABI named (MPI4PY_MPIABI=mpich); here it is not named.
    // The mpi4py that chooses (one extension per ABI) is the wheel in .venv-mpich: where the run
    // has no MPICH Python (the Debian roots: their mpi4py is Debian's, built for Open MPI alone,
    // and the wheel's registry is out of reach) there is no choice to test
    if (f === 'openmpi' && PYTHON_MPIS.includes('mpich'))
      it("mpi4py 4 picks the ABI under mpii that it picks plain (the shim's wrappers must not make Open MPI look like MPICH)", async () => {
        assert.ok(existsSync(MPICH_PYTHON), `${MPICH_PYTHON} (scripts/setup.sh)`);
        const r = await mpii(['run', '--tools', 'trace-count', '--out', outDir('py-abi'), ...launcherArgs(f, 2), MPICH_PYTHON, join(PY, 'suite.py'), scratch]);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stderr, /through mpi4py 4\.[\d.]+ .*ABI openmpi/);
        assert.equal(r.stdout, reference);
      });

    for (const stack of STACKS) {
      it(`suite.py under ${stack} prints what it prints plain`, async () => {
        const out = outDir(`${f}-py-${stack.replace(/\W+/g, '_')}`);
        const r = await mpii(['run', '--quiet', '--tools', stack, '--out', out, ...launcherArgs(f, 2), py.python, join(PY, 'suite.py'), scratch], py.env);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout, reference);
        const p = await report(out);
        assert.equal(p.complete, true);
        assert.equal(p.size, 2);
        if (stack.includes('profile')) {
          // call sites are Python lines, with the C frame kept in --json
          const sites = p.profile[0].sites;
          const sendrecv = sites.find((s) => /^MPI_Sendrecv(_c)?$/.test(s.call) && /\(point_to_point_numpy\)$/.test(s.location));
          assert.ok(sendrecv, `a Sendrecv site in point_to_point_numpy: ${sites.map((s) => `${s.call} ${s.location}`).join('; ')}`);
          assert.match(sendrecv.location, /^suite\.py:\d+ \(point_to_point_numpy\)$/);
          assert.equal(sendrecv.frames[0].language, 'python');
          assert.match(sendrecv.frames[0].cFrame, /MPI\..*\.so\+0x/);
          assert.equal(sendrecv.total.count, 2);
        }
        if (stack.includes('memcheck')) {
          const mc = p.memcheck[0];
          assert.deepEqual(mc.disabled, [], 'memcheck checks a one-thread Python program at THREAD_MULTIPLE');
          assert.deepEqual(
            [...mc.errors, ...mc.hints].map((x) => `${x.kind} ${x.call.fn} ${x.call.at?.line}`),
            [],
            'a correct program has no findings',
          );
        }
        if (stack.includes('overlap')) {
          // mpi4py asks for MPI_THREAD_MULTIPLE: overlap declines, and says so once, not silently
          const ov = p.overlap[0];
          assert.equal(ov.disabled.length, 2);
          assert.match(
            ov.disabled[0].reason,
            /^MPI_Init_thread, called from MPI\.[\w.-]+\.so \(mpi4py\) asked for thread level MPI_THREAD_MULTIPLE and got MPI_THREAD_MULTIPLE; .*: MPI4PY_RC_THREAD_LEVEL=single in the ranks' environment/,
          );
          const text = await mpii(['report', out]);
          assert.equal(
            text.stdout.replace(/\s+/g, ' ').match(/OFF on all 2 ranks: MPI_Init_thread, called from MPI\S+ \(mpi4py\) asked for thread level/g)?.length,
            1,
            text.stdout,
          );
        }
        if (stack.includes('monitor')) {
          // the Sendrecv pair of 1000 doubles each way is in the per-peer table
          const m = p.monitor[0];
          assert.ok(m, 'monitor results');
        }
      });
    }

    it('profile counts every call of Python threads calling MPI at once (MPI_THREAD_MULTIPLE), after the main thread called alone', async () => {
      const out = outDir(`${f}-py-threads`);
      const r = await mpii(['run', '--quiet', '--tools', 'profile', '--out', out, ...launcherArgs(f, 2), py.python, join(PY, 'threads.py')], py.env);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), 'threads ok');
      const sites = (await report(out)).profile[0].sites;
      const sendrecv = sites.filter((s) => /^MPI_Sendrecv(_c)?$/.test(s.call));
      assert.deepEqual(
        sendrecv.map((s) => s.location),
        [`threads.py:18 (exchange)`],
      );
      const t = sendrecv[0].total;
      assert.deepEqual([t.count, t.sent, t.recv], [2 * 1000, 2 * 1000 * 16, 2 * 1000 * 16]);
    });

    it('overlap works on a Python program run at MPI_THREAD_SINGLE, with the same results', async () => {
      const out = outDir(`${f}-py-ov-single`);
      const r = await mpii(
        ['run', '--quiet', '--tools', 'overlap[mode=paging]', '--out', out, ...launcherArgs(f, 2), py.python, join(PY, 'suite.py'), scratch],
        { ...py.env, MPI4PY_RC_THREAD_LEVEL: 'single' },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, reference);
      const ov = (await report(out)).overlap[0];
      assert.deepEqual(ov.disabled, []);
      assert.ok(ov.totals['sends converted'] + ov.totals['receives converted'] > 0, JSON.stringify(ov.totals));
    });

    it("a PMPI preload below the shim and an MPICH-QMPI tool .so see a Python program's calls", async () => {
      const shim = await shimInfo(f);
      const counter = library(f, 'qmpi_counter_tool', shim.includeDir);
      const legacy = library(f, 'legacy_pmpi', shim.includeDir);
      const out = outDir(`${f}-py-ext`);
      const r = await mpii(
        ['run', '--quiet', '--tools', `${counter},trace-count`, '--out', out, ...launcherArgs(f, 2), py.python, join(PY, 'suite.py'), scratch],
        { ...py.env, LD_PRELOAD: legacy },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, reference);
      for (const rank of [0, 1]) {
        assert.match(r.stderr, new RegExp(`qmpi_counter\\[1\\] rank=${rank} sends=\\d+`));
        assert.match(r.stderr, new RegExp(`legacy_pmpi rank=${rank} sends=\\d+`));
      }
    });

    for (const [which, kind, fn, line, access] of [
      ['isend-write', 'write to a pending send buffer', 'MPI_Isend', 'memcheck_errors.py:17', 'memcheck_errors.py:18'],
      ['irecv-read', 'read of a pending receive buffer', 'MPI_Irecv', 'memcheck_errors.py:23', 'memcheck_errors.py:24'],
    ]) {
      it(`memcheck finds a numpy buffer misused from Python (${which}) and nothing else`, async () => {
        const out = outDir(`${f}-py-mc-${which}`);
        const r = await mpii(
          ['run', '--quiet', '--tools', 'memcheck', '--out', out, ...launcherArgs(f, 2), py.python, join(PY, 'memcheck_errors.py'), which],
          py.env,
        );
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /rank 1 done/);
        const findings = (await report(out)).memcheck[0].errors;
        assert.deepEqual((await report(out)).memcheck[0].hints, []);
        assert.deepEqual(
          findings.map((x) => [x.kind, x.call.fn.replace(/_c$/, ''), x.call.at?.line]),
          [[kind, fn, line]],
        );
        // the faulting access is named by its Python line too, not by numpy's or the interpreter's C frames
        assert.deepEqual([findings[0].access?.at.line, findings[0].access?.at.python], [access, true]);
        assert.match(
          (await mpii(['report', out])).stdout,
          new RegExp(`${access.replace('.', '\\.')} \\(${which === 'isend-write' ? 'send_then_touch' : 'receive_then_peek'}\\)`),
        );
      });
    }

    it('an exception under `python -m mpi4py` aborts the job; the profile is kept, marked incomplete', async () => {
      const out = outDir(`${f}-py-abort`);
      const r = await mpii(['run', '--tools', 'trace-count', '--out', out, ...launcherArgs(f, 2), py.python, '-m', 'mpi4py', join(PY, 'abort.py')], py.env);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /rank 1 gives up/);
      const p = await report(out);
      const allreduce = p.traceCount[0].rows.find((x) => /^MPI_Allreduce(_c)?$/.test(x.fn));
      assert.ok(allreduce && Number(allreduce.total) >= 20, JSON.stringify(p.traceCount[0].rows.slice(0, 5)));
    });

    it('Spawn: a spawning Python program behaves under mpii as it does plain', async () => {
      // parents and children reach each other over TCP: Open MPI 5's sm does not know the children's
      // host ("BTLs attempted: self sm tcp … is on host: unknown")
      const spawning: Interpreter = f === 'openmpi' ? { ...py, env: { ...py.env, ...OMPI_TCP_LOOPBACK } } : py;
      const ref = await plain(f, spawning, [join(PY, 'spawn.py')]);
      const out = outDir(`${f}-py-spawn`);
      const r = await mpii(['run', '--quiet', '--tools', 'noop', '--out', out, ...launcherArgs(f, 2), py.python, join(PY, 'spawn.py')], spawning.env);
      if (ref.code === 0) {
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout, ref.stdout);
        assert.match(r.stdout, /children answered \[21, 42\]/);
        assert.equal((await report(out)).spawned.length, 1, "the children's own profile is named");
        // the children started in the parents' node file and moved to their own directory's after
        // MPI_Init: each job's profile has its own ranks, whole, and no node file is left behind
        const [children] = readdirSync(out).filter((d) => d.startsWith('spawned-'));
        for (const [dir, n] of [
          [out, 2],
          [join(out, children), 2],
        ] as const) {
          const p = readProfile(dir);
          assert.equal(p.complete, true, dir);
          assert.deepEqual(
            p.ranks.map((x) => x.rank),
            Array.from({ length: n }, (_, i) => i),
            dir,
          );
          assert.deepEqual(
            readdirSync(dir).filter((x) => x.endsWith('.live')),
            [],
            dir,
          );
        }
      } else {
        // MPICH 4.0.2's hydra cannot spawn on this machine, plain and in C alike: the same error
        assert.match(ref.stderr, /Error in spawn call/);
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, /Error in spawn call/);
        assert.doesNotMatch(r.stderr, /SIGBUS|Segmentation|signal 7|signal 11/);
      }
    });

    it('a program from the distribution: mpi4py-fft (Debian) gives the same numbers under monitor and profile', async () => {
      const prog = join(scratch, 'fft.py');
      copyFileSync(join(PY, 'fft.py'), prog);
      const ref = await plain(f, py, [prog]);
      assert.equal(ref.code, 0, ref.stderr);
      assert.match(ref.stdout, /round trip error/);
      for (const stack of ['monitor', 'profile']) {
        const r = await mpii(['run', '--quiet', '--tools', stack, '--out', outDir(`${f}-py-fft-${stack}`), ...launcherArgs(f, 2), py.python, prog], py.env);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout, ref.stdout, stack);
      }
    });
  });
}

describe('mpich: a Python program that loads MPI with ctypes (no mpi4py)', () => {
  it('runs the same under profile and memcheck, with Python call sites', async () => {
    const prog = join(PY, 'ctypes_mpich.py');
    const ref = await execa('mpirun.mpich', ['-np', '2', '/usr/bin/python3', prog], { env: { ...TEST_ENV }, reject: false });
    assert.equal(ref.exitCode, 0, ref.stderr);
    for (const stack of ['profile', 'memcheck']) {
      const out = outDir(`ctypes-${stack}`);
      const r = await mpii(['run', '--quiet', '--mpi', 'mpich', '--tools', stack, '--out', out, '-np', '2', '/usr/bin/python3', prog]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, ref.stdout);
      const p = await report(out);
      if (stack === 'profile') {
        const site = p.profile[0].sites.find((s) => s.call === 'MPI_Sendrecv');
        assert.ok(site, `an MPI_Sendrecv site: ${p.profile[0].sites.map((s) => s.call).join(', ')}`);
        assert.match(site.location, /^ctypes_mpich\.py:\d+ \(exchange\)$/);
        assert.equal(site.total.count, 20);
      } else {
        assert.deepEqual([p.memcheck[0].errors, p.memcheck[0].hints], [[], []]);
      }
    }
  });
});

// Programs of the MPI-5 standard ABI (libmpi_abi.so.1): one binary, one shim and one QMPI tool,
// each built once, run on every implementation installed (Debian forky: MPICH 5.0 and Open MPI
// 6.0), under every built-in tool compiled in and chained, with the same output as plain and the
// true counts. Where no implementation of the ABI is installed (Debian 12), what mpii says instead.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, execaSync } from 'execa';
import { TEST_ENV, mpii, oneLineError, outDir, program, ROOT } from './helpers.js';
import { abiImplementation, abiIncludeDir, abiLibraries, systemAbiLibrary } from '../src/mpi/abi.js';
import { readProfile } from '../src/profile-file/read.js';
import { traceCountTables } from '../preload/tools/trace-count/report.js';
import { monitorRuns, totals } from '../preload/tools/monitor/report/data.js';
import { profileRuns } from '../preload/tools/profile/report/data.js';
import { siteTotals } from '../preload/tools/profile/report/totals.js';
import { memcheckRuns } from '../preload/tools/memcheck/report.js';
import { overlapRuns, overlapTotals } from '../preload/tools/overlap/report.js';

const system = systemAbiLibrary();
const installed = abiLibraries();
const IMPLS = (['mpich', 'openmpi'] as const).filter((i) => installed[i]);
const LAUNCHER = { mpich: 'mpirun.mpich', openmpi: 'mpirun.openmpi' };
const LABEL = { mpich: 'MPICH', openmpi: 'Open MPI' };
const BUILD = join(tmpdir(), `mpii-test-abi-${process.pid}`);

/** A program of test/programs built once for the standard ABI: its header, -lmpi_abi, no wrapper. */
function abiProgram(name: string): string {
  mkdirSync(BUILD, { recursive: true });
  const out = join(BUILD, name);
  execaSync('cc', ['-O2', '-g', '-I', abiIncludeDir(), '-o', out, join(ROOT, 'test', 'programs', `${name}.c`), '-lmpi_abi']);
  return out;
}

/** The ranks of `impl` find its library under the ABI's soname (how a user runs it plain). */
function plainEnv(impl: 'mpich' | 'openmpi'): NodeJS.ProcessEnv {
  const dir = join(BUILD, `lib-${impl}`);
  mkdirSync(dir, { recursive: true });
  execaSync('ln', ['-sf', installed[impl]!, join(dir, 'libmpi_abi.so.1')]);
  return { ...TEST_ENV, LD_LIBRARY_PATH: dir };
}

async function plain(impl: 'mpich' | 'openmpi', np: number, prog: string, args: string[] = []): Promise<string> {
  const env = plainEnv(impl);
  const pass = impl === 'openmpi' ? ['-x', 'LD_LIBRARY_PATH'] : [];
  const r = await execa(LAUNCHER[impl], [...pass, '-np', String(np), prog, ...args], { env, reject: false, timeout: 120_000 });
  assert.equal(r.exitCode, 0, r.stderr);
  return r.stdout;
}

const calls = (out: string, fn: string) => {
  const row = traceCountTables(readProfile(out))[0].rows.find((r) => r.fn === fn);
  return row ? [row.total, row.min, row.max] : [0n, 0n, 0n];
};

// the two forms of a stack of built-in tools: chained through QMPI, and compiled into one wrapper
// per function (built once for the ABI's shim before the tests, outside any job's time limit: a
// build takes minutes on a loaded machine; every implementation then runs from it)
const FORMS: Record<string, NodeJS.ProcessEnv> = { chained: { MPII_SPECIALISE: '0' }, compiled: { MPII_SPECIALISE: '1', MPII_BUILD: 'wait' } };
const COMPILED = ['noop,monitor,profile,trace-count', 'overlap'];

if (!system || IMPLS.length === 0) {
  describe('no MPI standard ABI installed', () => {
    it('mpii build --mpi abi says what is missing in one line', async () => {
      const r = await mpii(['build', '--mpi', 'abi', '--quiet']);
      oneLineError(r, /no header of the MPI standard ABI found/);
    });
  });
} else {
  describe('MPI standard ABI: detection', () => {
    it('a program linking libmpi_abi.so.1 runs on the implementation the system library is, with its launcher', async () => {
      const impl = abiImplementation(system)!;
      assert.ok(impl, `${system} is one of ${IMPLS.join(', ')}`);
      const r = await mpii(['run', '--tools', 'trace-count', '--out', outDir('abi-default'), '-np', '2', abiProgram('ring')]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /ring ok size=2 token=6/);
      assert.match(r.stderr, new RegExp(`mpii: MPI standard ABI on ${LABEL[impl]}, launcher: ${LAUNCHER[impl]}`));
    });

    it('--mpi openmpi on a standard-ABI program is refused in one line, as is --mpi abi on a program of an MPI own ABI', async () => {
      oneLineError(
        await mpii(['run', '--mpi', 'openmpi', '-np', '2', abiProgram('ring')]),
        /links libmpi_abi\.so\.1, the MPI standard ABI: --mpi openmpi would wrap it/,
      );
      const native = program(IMPLS[0] === 'mpich' ? 'mpich' : 'openmpi', 'ring');
      oneLineError(await mpii(['run', '--mpi', 'abi', '-np', '2', native]), /own ABI, not the MPI standard ABI that --mpi abi runs/);
    });
  });

  before(async () => {
    for (const stack of COMPILED) {
      const r = await execa('node', [join(ROOT, 'bin', 'mpii.js'), 'build', '--mpi', 'abi', '--quiet', '--tools', stack], { env: TEST_ENV, reject: false });
      assert.equal(r.exitCode, 0, r.stderr);
    }
  });

  for (const impl of IMPLS) {
    describe(`MPI standard ABI on ${LABEL[impl]}: one binary and one shim, every tool`, () => {
      const mpi = ['--mpi', `abi:${impl}`];
      let ring = '';
      before(() => {
        ring = abiProgram('ring');
      });

      for (const [form, env] of Object.entries(FORMS)) {
        it(`ring under noop, monitor, profile and trace-count (${form}): the plain output, the true counts and bytes`, async () => {
          const want = await plain(impl, 2, ring);
          const out = outDir(`abi-${impl}-${form}`);
          const r = await mpii(['run', ...mpi, '--tools', 'noop,monitor,profile,trace-count', '--out', out, '-np', '2', ring], env);
          assert.equal(r.code, 0, r.stderr);
          assert.equal(r.stdout, want);
          assert.match(r.stderr, new RegExp(`MPI standard ABI \\d+\\.\\d+ on ${LABEL[impl]} \\d`));
          // each rank sends the token on 3 times and receives it 3 times: 4-byte ints
          assert.deepEqual(calls(out, 'MPI_Send'), [6n, 3n, 3n]);
          assert.deepEqual(calls(out, 'MPI_Recv'), [6n, 3n, 3n]);
          const p = readProfile(out);
          assert.deepEqual([...p.ranks[0].tools.values()], ['noop', 'monitor', 'profile', 'trace-count']);
          assert.deepEqual(totals(monitorRuns(p)[0]).p2p, { count: 6, bytes: 24 });
          const sends = siteTotals(profileRuns(p)[0]).filter((s) => s.site.fn === 'MPI_Send');
          assert.deepEqual([sends.reduce((n, s) => n + s.count, 0), sends.reduce((n, s) => n + s.sent, 0)], [6, 24]);
        });

        it(`overlap (${form}): the plain output, and the receives really converted`, async () => {
          const prog = abiProgram('overlap_pages');
          const want = (await plain(impl, 2, prog)).split('\n').sort();
          const out = outDir(`abi-${impl}-overlap-${form}`);
          const r = await mpii(['run', ...mpi, '--quiet', '--tools', 'overlap[mode=paging]', '--out', out, '-np', '2', prog], env);
          assert.equal(r.code, 0, r.stderr);
          assert.deepEqual(r.stdout.split('\n').sort(), want);
          const t = overlapTotals(overlapRuns(readProfile(out))[0]);
          assert.ok((t['receives converted'] ?? 0) > 0, JSON.stringify(t));
        });
      }

      // memcheck has no compiled-in form (its manifest has no `specialise`): it always runs chained
      it('memcheck: a clean ring has no finding, a receive past its buffer is found where it happened', async () => {
        const clean = outDir(`abi-${impl}-memcheck-clean`);
        const r = await mpii(['run', ...mpi, '--quiet', '--tools', 'memcheck', '--out', clean, '-np', '2', ring]);
        assert.equal(r.code, 0, r.stderr);
        assert.deepEqual(memcheckRuns(readProfile(clean))[0].counts, { errors: 0, hints: 0 });
        const out = outDir(`abi-${impl}-memcheck`);
        const e = await mpii(['run', ...mpi, '--quiet', '--tools', 'memcheck', '--out', out, '-np', '2', abiProgram('memcheck_e2_recv_overrun')]);
        assert.equal(e.code, 0, e.stderr);
        const run = memcheckRuns(readProfile(out))[0];
        assert.deepEqual(
          run.errors.map((x) => [x.kind, x.ranks, x.bytes]),
          [['receive buffer overrun', [1], 4]],
        );
      });

      it("MPI_T: mpii pvars and cvars through the ABI list the implementation's own variables; --pvar samples one on every rank", async () => {
        for (const kind of ['pvars', 'cvars']) {
          const abi = JSON.parse((await mpii([kind, '--json', ...mpi])).stdout);
          const own = JSON.parse((await mpii([kind, '--json', '--mpi', impl])).stdout);
          assert.match(abi.mpi, new RegExp(`^MPI standard ABI \\d+\\.\\d+ \\(${LABEL[impl]} \\d`));
          const named = (l: { name: string; type: string }[]) => l.map((v) => `${v.name} ${v.type}`);
          assert.deepEqual(named(abi[kind]), named(own[kind]), `${kind}: the same names and datatypes as ${LABEL[impl]}'s own library`);
        }
        if (impl === 'openmpi') {
          // MPICH registers no performance variable of its own: its listing above is empty
          const out = outDir(`abi-${impl}-pvar`);
          const r = await mpii(['run', ...mpi, '--tools', 'trace-count', '--pvar', 'mpool_hugepage_bytes_allocated', '--out', out, '-np', '2', ring]);
          assert.equal(r.code, 0, r.stderr);
          const json = JSON.parse((await mpii(['report', out, '--json'])).stdout);
          const samples = json.mpit.pvars as { at: string; name: string; ranks: { rank: number; values: number[] }[] }[];
          assert.deepEqual(
            samples.map((x) => `${x.at} ${x.name} ${x.ranks.length}`),
            ['finalize mpool_hugepage_bytes_allocated 2'],
          );
        }
      });

      it('a QMPI tool compiled once against the ABI runs twice in one stack', async () => {
        const counter = await qmpiTool();
        const out = outDir(`abi-${impl}-qmpi`);
        const r = await mpii(['run', ...mpi, '--tools', `${counter},trace-count,${counter}`, '--out', out, '-np', '2', ring]);
        assert.equal(r.code, 0, r.stderr);
        for (const rank of [0, 1])
          for (const id of [1, 3]) assert.match(r.stderr, new RegExp(`qmpi_counter\\[${id}\\] rank=${rank} sends=3 recvs=3 barriers=0`));
        assert.deepEqual(calls(out, 'MPI_Send'), [6n, 3n, 3n]);
      });
    });
  }

  describe('MPI standard ABI: built once', () => {
    it('every implementation runs from the one shim, the same file', async () => {
      const libs = new Set<string>();
      for (const impl of IMPLS) {
        const r = await mpii(['run', '--dry-run', '--mpi', `abi:${impl}`, '--tools', 'trace-count', '-np', '2', abiProgram('ring')], FORMS.chained);
        assert.equal(r.code, 0, r.stderr);
        libs.add(/^LD_PRELOAD=(\S+)$/m.exec(r.stdout)![1]);
        assert.match(r.stdout, new RegExp(`^LD_LIBRARY_PATH=\\S+/abi-names/${impl}(:|$)`, 'm'));
      }
      assert.equal(libs.size, 1, [...libs].join(' '));
    });
  });
}

let tool: string | undefined;
/** test/tools/qmpi_counter_tool.c built once with the C compiler, the ABI's header and the qmpi.h
 * of mpii's ABI shim: no MPI's wrapper, no MPI library linked. */
async function qmpiTool(): Promise<string> {
  if (tool) return tool;
  const r = await execa('node', [join(ROOT, 'bin', 'mpii.js'), 'build', '--mpi', 'abi', '--quiet'], { env: TEST_ENV });
  const include = join(r.stdout.trim().split('\t')[2], '..', 'include');
  mkdirSync(BUILD, { recursive: true });
  tool = join(BUILD, 'libqmpi_counter.so');
  execaSync('cc', ['-shared', '-fPIC', '-I', abiIncludeDir(), '-I', include, '-o', tool, join(ROOT, 'test', 'tools', 'qmpi_counter_tool.c')]);
  return tool;
}

// The memcheck tool on real jobs, both MPIs: every error program (test/programs/memcheck_*.c,
// the thesis's examples E1–E10 and two more classes) must be reported with its kind, the MPI call
// that owns the buffer and the faulting line; the clean programs (ring, halo, persistent,
// collectives, one-sided, red-black SOR) must give no finding and unchanged output; the Valgrind
// engine must hand the checks to Valgrind.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, execaSync } from 'execa';
import { FLAVORS, OMPI_TCP_LOOPBACK, ROOT, TEST_ENV, fortranProgram, launcherArgs, mpii, outDir, program, type Flavor } from './helpers.js';
import { readProfile } from '../src/profile-file/read.js';
import { memcheckRuns, type MemcheckFinding, type MemcheckRun } from '../preload/tools/memcheck/report.js';

/** The line of a marker comment in a test program: "memcheck_e5_pending_write.c:21". */
function marked(name: string, marker: string, nth = 0): string {
  const src = readFileSync(join(ROOT, 'test', 'programs', `${name}.c`), 'utf8').split('\n');
  const hits = src.map((l, i) => (l.includes(`/* ${marker} */`) ? i + 1 : 0)).filter(Boolean);
  assert.ok(hits[nth], `${name}.c has no ${marker} #${nth}`);
  return `${name}.c:${hits[nth]}`;
}

/** Test program `name` on 2 ranks without mpii, which must pass: the output memcheck's run is held to. */
async function plainRun(f: Flavor, name: string) {
  const plain = await execa(`mpirun.${f}`, [...launcherArgs(f, 2), program(f, name)], { env: TEST_ENV, reject: false, timeout: 120_000 });
  assert.equal(plain.exitCode, 0, plain.stderr);
  return plain;
}

async function underMemcheck(
  f: Flavor,
  np: number,
  name: string,
  args: string[],
  options = '',
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
  prog = program(f, name),
) {
  const out = outDir(`memcheck-${f}`);
  const tools = options ? `memcheck[${options}]` : 'memcheck';
  const r = await mpii(['run', '--quiet', '--tools', tools, '--out', out, ...extra, ...launcherArgs(f, np), prog, ...args], env);
  const runs = memcheckRuns(readProfile(out));
  assert.equal(runs.length, 1, r.stderr);
  return { ...r, run: runs[0] };
}

/** Every finding of a run, errors then hints. */
const every = (run: MemcheckRun) => [...run.errors, ...run.hints];

const show = (fs: MemcheckFinding[]) =>
  JSON.stringify(fs.map((f) => ({ kind: f.kind, class: f.class, count: f.count, call: f.call.at?.line, access: f.access?.at.line })));

// program, args, options, the one finding expected: kind, its class (blocks.yaml), rank, bytes (or
// undefined), has an access line (extra: further hints at the same call site, by kind and bytes)
const ERRORS: Array<{
  name: string;
  args?: string[];
  options?: string;
  kind: string;
  class?: 'hint';
  rank: number;
  bytes?: number;
  access: boolean;
  marker?: string;
  extra?: Array<{ kind: string; bytes: number }>;
}> = [
  { name: 'memcheck_e1_send_overrun', kind: 'send buffer overrun', rank: 0, bytes: 1, access: false },
  { name: 'memcheck_e2_recv_overrun', kind: 'receive buffer overrun', rank: 1, bytes: 4, access: false },
  { name: 'memcheck_e5_pending_write', args: ['isend'], kind: 'write to a pending send buffer', rank: 0, access: true },
  { name: 'memcheck_e5_pending_write', args: ['irecv'], kind: 'write to a pending receive buffer', rank: 1, access: true, marker: 'irecv' },
  { name: 'memcheck_e5_pending_write', args: ['persistent'], kind: 'write to a pending send buffer', rank: 0, access: true, marker: 'persistent' },
  { name: 'memcheck_e6_pending_read', options: 'strict=true', kind: 'read of a pending send buffer (strict)', rank: 0, access: true },
  { name: 'memcheck_e7_wbr', kind: 'write before read of received data', class: 'hint', rank: 1, bytes: 1, access: true },
  { name: 'memcheck_e8_accumulate', kind: 'write to a pending RMA origin buffer', rank: 0, access: true },
  { name: 'memcheck_e9_get', kind: 'access to a pending RMA result buffer', rank: 0, access: true },
  // b[0] of messages 1-9 is overwritten by the next receive, the 10th is freed unread
  {
    name: 'memcheck_e10_unread',
    kind: 'received data never read, overwritten by a later receive',
    class: 'hint',
    rank: 1,
    bytes: 9,
    access: false,
    extra: [{ kind: 'received data never read', bytes: 1 }],
  },
  { name: 'memcheck_free_pending', args: ['free'], kind: 'free of memory MPI still owns', rank: 1, access: false },
  { name: 'memcheck_free_pending', args: ['syscall'], kind: 'system call on memory MPI still owns', rank: 1, access: false },
];

/** Which MEMCHECK-CALL / MEMCHECK-ACCESS marker of the file belongs to the case. */
function markerIndex(name: string, which: string | undefined, marker: string): number {
  if (name !== 'memcheck_e5_pending_write') return 0;
  return marker === 'MEMCHECK-CALL' ? ({ irecv: 1, persistent: -1 }[which ?? ''] ?? 0) : ({ irecv: 1, persistent: 2 }[which ?? ''] ?? 0);
}

for (const f of FLAVORS) {
  describe(`${f}: memcheck reports every error class where it happened`, () => {
    for (const c of ERRORS) {
      it(`${c.name} ${(c.args ?? []).join(' ')} ${c.options ?? ''}: ${c.kind} (${c.class ?? 'error'})`, async () => {
        const { code, stderr, run } = await underMemcheck(f, 2, c.name, c.args ?? [], c.options);
        assert.equal(code, 0, stderr);
        assert.equal(run.engine, 'pages');
        // errors and hints apart: the kind's class decides the list, the counts follow it
        const cls = c.class ?? 'error';
        assert.equal((cls === 'error' ? run.hints : run.errors).length, 0, show(every(run)));
        assert.deepEqual(
          run.counts,
          cls === 'error'
            ? { errors: every(run).reduce((n, x) => n + x.count, 0), hints: 0 }
            : { errors: 0, hints: every(run).reduce((n, x) => n + x.count, 0) },
        );
        assert.equal(every(run).length, 1 + (c.extra?.length ?? 0), show(every(run)));
        const found = every(run).find((x) => x.kind === c.kind)!;
        assert.ok(found, show(every(run)));
        for (const e of c.extra ?? []) {
          const other = every(run).find((x) => x.kind === e.kind);
          assert.equal(other?.bytes, e.bytes, show(every(run)));
          assert.deepEqual(other?.ranks, [c.rank]);
          assert.equal(other?.call.at?.line, marked(c.name, 'MEMCHECK-CALL'));
        }
        assert.equal(found.kind, c.kind);
        assert.equal(found.class, cls);
        assert.deepEqual(found.ranks, [c.rank]);
        if (c.bytes !== undefined) assert.equal(found.bytes, c.bytes);
        const callIdx = markerIndex(c.name, c.marker, 'MEMCHECK-CALL');
        if (callIdx >= 0) assert.equal(found.call.at?.line, marked(c.name, 'MEMCHECK-CALL', callIdx), show(every(run)));
        else assert.equal(found.call.fn, 'MPI_Send_init');
        if (c.access) assert.equal(found.access?.at.line, marked(c.name, 'MEMCHECK-ACCESS', markerIndex(c.name, c.marker, 'MEMCHECK-ACCESS')));
        assert.ok(found.backtrace.length >= 2 && found.backtrace[0].fn === 'main', show(every(run)));
        // printed as it happened: rank, host:pid, the kind, the owning call
        assert.match(stderr, new RegExp(`\\[[^:\\]]+:${found.first.pid}\\] memcheck: rank ${c.rank}: ${cls}: ${c.kind.replace(/[()]/g, '\\$&')}`));
      });
    }

    it("a write inside the stripped C library is named by its distribution's debug package (libc6-dbg, by build-id)", async () => {
      // scripts/setup.sh installs libc6-dbg: its files sit under /usr/lib/debug/.build-id, where
      // every Debian -dbgsym package puts them, and nothing tells mpii where they are
      const libc = execaSync('sh', ['-c', 'ldconfig -p | grep -m1 "libc.so.6 (libc6,"'], { reject: false }).stdout.split(' => ')[1];
      assert.ok(libc, 'libc.so.6 in ldconfig -p');
      assert.doesNotMatch(execaSync('readelf', ['-S', '-W', libc]).stdout, /\.symtab/, 'the system libc is stripped');
      const id = /Build ID: ([0-9a-f]+)/.exec(execaSync('readelf', ['-n', libc]).stdout)?.[1];
      assert.ok(id && existsSync(`/usr/lib/debug/.build-id/${id.slice(0, 2)}/${id.slice(2)}.debug`), 'libc6-dbg is installed (scripts/setup.sh)');
      const { code, stderr, run } = await underMemcheck(f, 2, 'memcheck_libc_write', []);
      assert.equal(code, 0, stderr);
      const found = run.errors.find((x) => x.kind === 'write to a pending receive buffer');
      assert.ok(found && run.errors.length === 1, show(every(run)));
      assert.equal(found.call.at?.line, marked('memcheck_libc_write', 'MEMCHECK-CALL'));
      // the faulting instruction is libc's own (memset's assembly source, named with its line);
      // the frame below it is the program's memset call
      assert.match(found.access?.at.fn ?? '', /memset/, show([found]));
      assert.match(found.access?.at.line ?? '', /^memset[\w-]*\.S:\d+$/, show([found]));
      assert.equal(found.backtrace[1]?.line, marked('memcheck_libc_write', 'MEMCHECK-ACCESS'), show([found]));
    });

    it('an RMA epoch of many operations: guards held across 64 calls are given up, a write right after a call is still found', async () => {
      // MPICH's rma/manyrma2 (16,384 Accumulate calls per epoch) ran 200x plain's time when every
      // guard was lifted and lowered around every later call until the fence
      const n = 500;
      const r = await underMemcheck(f, 2, 'memcheck_rma_epoch', [String(n)], 'pending=all');
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`after epoch 1: ${n} ${2 * n}`));
      // epoch 1: operation i is lifted around calls i+1..n and the fence: n - 64 give up their guard
      assert.equal(r.run.stats['RMA guards given up (held across 64 MPI calls in one epoch)'], n - 64, JSON.stringify(r.run.stats));
      // the write changes the origin of all three pending Accumulates of epoch 2: one finding each
      assert.deepEqual(
        every(r.run).map((x) => [x.kind, x.class, x.count]),
        [['write to a pending RMA origin buffer', 'error', 3]],
        show(every(r.run)),
      );
      assert.equal(r.run.errors[0].access?.at.line, marked('memcheck_rma_epoch', 'MEMCHECK-ACCESS'));
      assert.equal(r.run.errors[0].call.at?.line, marked('memcheck_rma_epoch', 'MEMCHECK-CALL'));
    });

    it('strict mode: reads of pending send and RMA origin buffers too; relaxed mode allows them (MPI-2.2)', async () => {
      const relaxed = await underMemcheck(f, 2, 'memcheck_e6_pending_read', []);
      assert.equal(every(relaxed.run).length, 0, show(every(relaxed.run)));
      const e8 = await underMemcheck(f, 2, 'memcheck_e8_accumulate', [], 'strict=true');
      const kinds = every(e8.run)
        .map((x) => x.kind)
        .sort();
      assert.deepEqual(kinds, ['read of a pending RMA origin buffer (strict)'], show(every(e8.run)));
      assert.equal(every(e8.run)[0].access?.at.line, marked('memcheck_e8_accumulate', 'MEMCHECK-READ'));
      // MPI_ERROR after a single completion is undefined: strict mode makes a use visible
      const e4 = await underMemcheck(f, 2, 'memcheck_e4_status', [], 'strict=true');
      assert.match(e4.stdout, /MPI_ERROR reads -19779/);
      const e4relaxed = await underMemcheck(f, 2, 'memcheck_e4_status', []);
      assert.doesNotMatch(e4relaxed.stdout, /-19779/);
    });

    it('clean programs: no findings, same output as without mpii (relaxed and strict)', async () => {
      const np = f === 'mpich' ? 2 : 3;
      const plain = await execa(f === 'openmpi' ? 'mpirun.openmpi' : 'mpiexec.mpich', [...launcherArgs(f, np), program(f, 'memcheck_clean')], {
        env: TEST_ENV,
        reject: false,
        timeout: 120_000,
      });
      assert.equal(plain.exitCode, 0, plain.stderr);
      for (const options of ['', 'strict=true;unread=all']) {
        const r = await underMemcheck(f, np, 'memcheck_clean', [], options);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(every(r.run).length, 0, `${options}: ${show(every(r.run))}`);
        assert.equal(r.stdout.match(/checksum \S+/)?.[0], plain.stdout.match(/checksum \S+/)?.[0]);
        assert.ok(r.run.stats['buffers checked'] > 50, JSON.stringify(r.run.stats));
        assert.ok(r.run.stats['steps over shared pages'] > 0, 'halo rows share pages with the interior');
        assert.ok(r.run.stats['receives tracked after completion'] > 0, JSON.stringify(r.run.stats));
      }
      for (const variant of ['isend', 'sendrecv']) {
        const r = await underMemcheck(f, 2, 'sor', [variant, '512', '10']);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(every(r.run).length, 0, `${variant}: ${show(every(r.run))}`);
      }
    });

    it('a halo exchange whose received ghosts share pages with the sent interior: no finding, no failed single-copy transfer', async () => {
      const plain = await execa(`mpirun.${f}`, [...launcherArgs(f, 2), program(f, 'memcheck_halo')], { env: TEST_ENV, reject: false, timeout: 120_000 });
      assert.equal(plain.exitCode, 0, plain.stderr);
      for (const options of ['pending=all', 'pending=all;strict=true']) {
        const r = await underMemcheck(f, 2, 'memcheck_halo', [], options);
        assert.equal(r.code, 0, r.stderr);
        assert.doesNotMatch(r.stderr, /Read -1|errno = 14|process_vm_readv/, options);
        assert.equal(every(r.run).length, 0, `${options}: ${show(every(r.run))}`);
        assert.deepEqual(r.stdout.match(/rank \d sum \S+/g)?.sort(), plain.stdout.match(/rank \d sum \S+/g)?.sort());
        if (!options.includes('strict')) assert.ok(r.run.stats['receive guards read-only (page shared with a pending send)'] > 0, JSON.stringify(r.run.stats));
      }
    });

    it("a receive into a pending send buffer (MPICH's pt2pt/sendrecv3): an error at the receive, and the peer's single-copy read of the pending send never fails", async () => {
      const name = 'memcheck_recv_pending_send';
      const plain = await plainRun(f, name);
      const r = await underMemcheck(f, 2, name, []);
      // before: UCX aborted the job (MPICH, exit 6: "process_vm_readv … Bad address"), Open MPI
      // printed "Read -1, expected 40000, errno = 14" for every round
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /Read -1|errno = 14|Bad address|process_vm_readv/);
      assert.deepEqual(r.stdout.match(/rank \d sum \S+/g)?.sort(), plain.stdout.match(/rank \d sum \S+/g)?.sort());
      assert.equal(every(r.run).length, 1, show(every(r.run)));
      const found = every(r.run)[0];
      assert.equal(found.kind, 'receive into memory MPI still owns');
      assert.equal(found.class, 'error');
      assert.equal(found.count, 16); // every round (a site's first 16 operations are checked)
      assert.deepEqual(found.ranks, [0]);
      assert.equal(found.call.fn, 'MPI_Isend');
      assert.equal(found.call.at?.line, marked(name, 'MEMCHECK-CALL'));
      assert.equal(found.backtrace[0]?.line, marked(name, 'MEMCHECK-ACCESS'), show(every(r.run)));
      assert.equal(r.run.stats['receives not watched (pages shared with a pending send)'], 16, JSON.stringify(r.run.stats));
    });

    it("small MPI_Alloc_mem elements attached to a dynamic window keep their layout (MPICH's rma/linked_list; Open MPI's osc/rdma attaches at most 32 regions)", async () => {
      const name = 'memcheck_dynamic_window';
      const plain = await plainRun(f, name);
      const r = await underMemcheck(f, 2, name, []);
      // before: a page per element, MPI_Win_attach failed at the 33rd (MPI_ERR_RMA_ATTACH) on Open MPI
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /MPI_Win_attach of element/);
      const lines = (s: string) => s.match(/rank \d read .*/g)?.sort();
      assert.deepEqual(lines(r.stdout), lines(plain.stdout));
      assert.match(r.stdout, /rank 1 read 100 elements from rank 0, sum 4950, 0 wrong/);
      assert.equal(every(r.run).length, 0, show(every(r.run)));
    });

    it('the library overwriting received data never read is a hint at that receive, never a write by the program (CP2K: a repeated MPI_Irecv)', async () => {
      const name = 'memcheck_irecv_unread';
      for (const [mode, count, bytes] of [
        ['repeat', 15, 15 * 65536],
        ['bottom', 8, 8 * 2048],
        ['pmpi', 8, 8 * 2048], // the library's code outside any wrapped call (a Fortran binding's PMPI_ calls)
      ] as const) {
        const plain = await execa(`mpirun.${f}`, [...launcherArgs(f, 2), program(f, name), mode], { env: TEST_ENV, reject: false, timeout: 120_000 });
        assert.equal(plain.exitCode, 0, plain.stderr);
        const r = await underMemcheck(f, 2, name, [mode]);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout.match(/sum \S+/)?.[0], plain.stdout.match(/sum \S+/)?.[0]);
        // before (bottom): "write before read of received data", the writer in the MPI library
        assert.equal(every(r.run).length, 1, `${mode}: ${show(every(r.run))}`);
        const found = every(r.run)[0];
        assert.equal(found.kind, 'received data never read, overwritten by a later receive');
        assert.deepEqual([r.run.errors.length, r.run.hints.length, r.run.counts], [0, 1, { errors: 0, hints: count }]);
        assert.equal(found.count, count, mode);
        assert.equal(found.bytes, bytes, mode);
        assert.deepEqual(found.ranks, [1]);
        assert.equal(found.call.fn, 'MPI_Irecv');
        assert.equal(found.call.at?.line, marked(name, 'MEMCHECK-CALL'));
        assert.equal(found.access, null);
        if (mode !== 'repeat')
          assert.ok(r.run.stats["the library's accesses to watched memory (in MPI calls, or its own code outside them)"] >= 8, JSON.stringify(r.run.stats));
      }
    });

    it("the library's progress outside a wrapped call (PMPI_Barrier) or on its own progress thread writes a pending receive: its right, no finding", async () => {
      const name = 'memcheck_irecv_unread';
      // Open MPI: btl/tcp's progress thread (over loopback); MPICH: its async progress thread
      const threaded: NodeJS.ProcessEnv =
        f === 'openmpi' ? { OMPI_MCA_btl: 'tcp,self', OMPI_MCA_btl_tcp_progress_thread: '1', ...OMPI_TCP_LOOPBACK } : { MPIR_CVAR_ASYNC_PROGRESS: '1' };
      for (const [mode, env] of [
        ['progress', {}],
        ['thread', threaded],
      ] as const) {
        const plain = await execa(`mpirun.${f}`, [...launcherArgs(f, 2), program(f, name), mode], {
          env: { ...TEST_ENV, ...env },
          reject: false,
          timeout: 120_000,
        });
        assert.equal(plain.exitCode, 0, plain.stderr);
        const r = await underMemcheck(f, 2, name, [mode], 'pending=all', [], env);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout.match(/sum \S+/)?.[0], plain.stdout.match(/sum \S+/)?.[0], mode);
        // before: "write to a pending receive buffer", the writer the library (opal_convertor_unpack, MPICH's copy)
        assert.deepEqual(every(r.run), [], `${mode}: ${show(every(r.run))}`);
        assert.equal(r.run.stats['buffers checked'], 16, JSON.stringify(r.run.stats));
      }
    });

    it('Fortran MPI_Alloc_mem (mpif.h, mpi_alloc_mem_cptr, mpi_f08), MPI_Win_attach and MPI_Win_allocate keep the library layout: 100 small elements attach', async () => {
      for (const iface of ['MPIFH', 'MPI', 'F08'] as const) {
        const prog = fortranProgram(f, 'memcheck_alloc_mem', iface);
        const plain = await execa(`mpirun.${f}`, [...launcherArgs(f, 2), prog], { env: TEST_ENV, reject: false, timeout: 120_000 });
        assert.equal(plain.exitCode, 0, plain.stderr);
        const r = await underMemcheck(f, 2, 'memcheck_alloc_mem', [], '', [], {}, prog);
        // before (Open MPI, whose Fortran binding calls PMPI_Alloc_mem and PMPI_Win_attach): a page
        // per element, "MPI_Win_attach of element 65 failed"
        assert.equal(r.code, 0, `${iface}: ${r.stdout}${r.stderr}`);
        const lines = (x: string) => x.match(/memcheck_alloc_mem rank \d: .*/g)?.sort();
        assert.deepEqual(lines(r.stdout), lines(plain.stdout), iface);
        assert.deepEqual(lines(r.stdout), ['memcheck_alloc_mem rank 0: attached 100 elements', 'memcheck_alloc_mem rank 1: attached 100 elements'], iface);
        assert.deepEqual(every(r.run), [], `${iface}: ${show(every(r.run))}`);
      }
    });

    it("derived datatypes made and freed per call (ARMCI's strided accumulate, Get_accumulate with a result type, BLACS' combine Sendrecv): no false overrun; a real one still found", async () => {
      const name = 'memcheck_derived';
      const plain = await plainRun(f, name);
      const lines = (s: string) => s.match(/memcheck_derived rank \d: .*/g)?.sort();
      // before (a freed handle's extent kept in the datatype cache, given to the next type made):
      // "send buffer overrun" on MPI_Accumulate, "receive buffer overrun" on MPI_Get_accumulate
      // and on MPI_Sendrecv, on MPICH (which hands the last freed handle out first)
      const r = await underMemcheck(f, 2, name, [], 'pending=all');
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(lines(r.stdout), lines(plain.stdout));
      assert.deepEqual(every(r.run), [], show(every(r.run)));
      assert.ok(r.run.stats['buffers checked'] >= 2 * 12, JSON.stringify(r.run.stats)); // every one-sided call was checked
      const o = await underMemcheck(f, 2, name, ['overrun'], 'pending=all');
      assert.equal(o.code, 0, o.stderr);
      assert.deepEqual(
        every(o.run).map((x) => [x.kind, x.class, x.count, x.bytes, x.ranks, x.call.fn, x.call.at?.line]),
        [['send buffer overrun', 'error', 1, 8, [0], 'MPI_Send', marked(name, 'MEMCHECK-OVERRUN')]],
      );
    });

    it("sampling: a site's first 16 operations are checked, then, on a clock that stands still, none; pending=all checks every one", async () => {
      const ops = 2 * 2 * 20000; // two ranks, a send and a receive each per round trip
      // sampling's clock stands still (MPII_CLOCK=frozen): the spacing by time, which a loaded
      // machine stretches (every operation checked once each takes 128 checks' time), never
      // decides; the counts do. The spacing by time, with a made-up clock: memcheck-sample.unit.test.ts
      const sampled = await underMemcheck(f, 2, 'memcheck_many', [], '', [], { MPII_CLOCK: 'frozen' });
      assert.equal(sampled.code, 0, sampled.stderr);
      assert.equal(every(sampled.run).length, 0, show(every(sampled.run)));
      const s = sampled.run.stats;
      assert.equal(s['buffers checked'], 4 * 16, JSON.stringify(s)); // 4 call sites (2 per rank)
      assert.equal(s['pending operations not checked (sampling)'], ops - 4 * 16, JSON.stringify(s));
      const all = await underMemcheck(f, 2, 'memcheck_many', ['2000'], 'pending=all');
      assert.equal(all.code, 0, all.stderr);
      assert.equal(all.run.stats['buffers checked'], 2 * 2 * 2000, JSON.stringify(all.run.stats));
      assert.equal(all.stdout.match(/sum=\d+/)?.[0], `sum=${(2000 * 1999) / 2}`);
    });

    it('errors apart from hints: hints are one group per call site and kind, errors first; --memcheck-fatal stops on errors only', async () => {
      const name = 'memcheck_hints';
      const B = marked(name, 'MEMCHECK-CALL', 0),
        R = marked(name, 'MEMCHECK-CALL', 1);
      const writers = [marked(name, 'MEMCHECK-ACCESS', 0), marked(name, 'MEMCHECK-ACCESS', 1)];
      const hintsOf = (run: MemcheckRun) => run.hints.map((h) => [h.kind, h.count, h.bytes, h.ranks, h.call.fn, h.call.at?.line]);
      // rank 1's hints at the MPI_Bcast (two writing lines: one group) and the MPI_Recv
      const loop = [
        ['write before read of received data', 8, 64, [1], 'MPI_Bcast', B],
        ['received data never read, overwritten by a later receive', 7, 84, [1], 'MPI_Recv', R],
      ];
      const atEnd = ['received data never read', 1, 12, [1], 'MPI_Recv', R];
      for (const fatal of [[], ['--memcheck-fatal']]) {
        // only hints: a correct program; under --memcheck-fatal too it runs to the end, hints reported
        const r = await underMemcheck(f, 2, name, [], '', fatal);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /rank 1 sum /);
        assert.deepEqual(r.run.errors, [], show(every(r.run)));
        assert.deepEqual(hintsOf(r.run), [...loop, atEnd], show(every(r.run)));
        assert.deepEqual(r.run.counts, { errors: 0, hints: 16 });
        assert.ok(writers.includes(r.run.hints[0].access?.at.line ?? ''), show(r.run.hints)); // a sample writer
        assert.doesNotMatch(r.stderr, /stopping the job/);
        // printed once per call site and kind as they happen, marked as hints
        assert.equal(r.stderr.match(/memcheck: rank 1: hint: write before read of received data/g)?.length, 1, r.stderr);
        assert.doesNotMatch(r.stderr, /memcheck: rank \d: error:/);
      }
      // the text report: the head line counts them apart; one line per hint group
      const out = outDir(`memcheck-${f}`);
      await mpii(['run', '--quiet', '--tools', 'memcheck', '--out', out, ...launcherArgs(f, 2), program(f, name), 'error']);
      const text = (await mpii(['report', out])).stdout;
      assert.match(text, /^memcheck \(tool 1, pages\): 1 error at 1 place; 16 hints at 2 call sites$/m);
      const lines = text.split('\n');
      const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
      assert.ok(at(/^ errors /) < at(/^ hints /), text); // errors first
      assert.match(text, /^ {2}write to a pending send buffer: 1× \(rank 0\)$/m);
      assert.equal(lines.filter((l) => /^ {2}write before read of received data: 8×, 64 B \(rank 1\), MPI_Bcast/.test(l)).length, 1, text);
      const json = JSON.parse((await mpii(['report', '--json', out])).stdout) as { memcheck: MemcheckRun[] };
      assert.deepEqual(json.memcheck[0].counts, { errors: 1, hints: 16 });
      assert.deepEqual(
        json.memcheck[0].errors.map((e) => [e.kind, e.class, e.count, e.ranks, e.call.fn, e.access?.at.line]),
        [['write to a pending send buffer', 'error', 1, [0], 'MPI_Isend', marked(name, 'MEMCHECK-ACCESS', 2)]],
      );
      assert.deepEqual(
        json.memcheck[0].hints.map((h) => h.class),
        ['hint', 'hint', 'hint'],
      );
      // with an error, --memcheck-fatal stops the job there; the hints seen before stay in the profile
      const stopped = await underMemcheck(f, 2, name, ['error'], '', ['--memcheck-fatal']);
      assert.notEqual(stopped.code, 0);
      assert.match(stopped.stderr, /stopping the job at the first error/);
      assert.doesNotMatch(stopped.stdout, /rank 1 sum /);
      assert.deepEqual(
        stopped.run.errors.map((e) => [e.kind, e.count, e.ranks]),
        [['write to a pending send buffer', 1, [0]]],
      );
      assert.deepEqual(hintsOf(stopped.run), loop, show(stopped.run.hints));
    });

    it('--memcheck-fatal stops the job at the first error, and the error is kept', async () => {
      const { code, stderr, run } = await underMemcheck(f, 2, 'memcheck_e5_pending_write', ['isend'], '', ['--memcheck-fatal']);
      assert.notEqual(code, 0);
      assert.match(stderr, /stopping the job at the first error/);
      assert.equal(run.errors[0]?.kind, 'write to a pending send buffer');
    });

    it('a genuine segfault still crashes normally', async () => {
      const out = outDir(`memcheck-${f}`);
      const r = await mpii(['run', '--quiet', '--tools', 'memcheck', '--out', out, ...launcherArgs(f, 2), program(f, 'overlap_segv'), 'crash']);
      assert.notEqual(r.code, 0);
      assert.doesNotMatch(r.stderr, /tool bug/);
    });

    it('under Valgrind: the checks become client requests (E3 undefined send data, E5 pending receive)', async () => {
      const out = outDir(`memcheck-${f}`);
      // the program is valgrind: mpii is told which MPI the real program uses
      const underValgrind = (dir: string, name: string, ...args: string[]) =>
        mpii([
          'run',
          '--quiet',
          '--mpi',
          f,
          '--tools',
          'memcheck',
          '--out',
          dir,
          ...launcherArgs(f, 2),
          'valgrind',
          '-q',
          '--error-exitcode=0',
          program(f, name),
          ...args,
        ]);
      const e3 = await underValgrind(out, 'memcheck_e3_uninit');
      assert.equal(e3.code, 0, e3.stderr);
      assert.match(e3.stderr, /Uninitialised byte\(s\) found during client check request/);
      assert.match(e3.stderr, new RegExp(`main \\(${marked('memcheck_e3_uninit', 'MEMCHECK-CALL')}\\)`));
      assert.equal(memcheckRuns(readProfile(out))[0].engine, 'valgrind');
      const out2 = outDir(`memcheck-${f}`);
      const e5 = await underValgrind(out2, 'memcheck_e5_pending_write', 'irecv');
      assert.match(e5.stderr, /Invalid write of size 4/);
      assert.match(e5.stderr, new RegExp(`main \\(${marked('memcheck_e5_pending_write', 'MEMCHECK-ACCESS', 1)}\\)`));
    });
  });
}

it('memcheck below overlap, or --memcheck-fatal without memcheck: one clear line, no job', async () => {
  const below = await mpii(['run', '--tools', 'overlap,memcheck', '-np', '2', program('openmpi', 'ring')]);
  assert.notEqual(below.code, 0);
  assert.match(below.stderr, /memcheck comes after overlap.*put memcheck first/);
  const fatal = await mpii(['run', '--memcheck-fatal', '--tools', 'monitor', '-np', '2', program('openmpi', 'ring')]);
  assert.notEqual(fatal.code, 0);
  assert.match(fatal.stderr, /--memcheck-fatal but memcheck is not in the tool stack/);
});

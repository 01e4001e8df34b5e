// The semantics MPICH's test suite has caught under a tool, as the project's own programs, run
// plain and under every tool and stack on both MPIs: each must print what it prints plain
// (docs/conformance.md, "What the suite caught", maps each past failure to its program here).
// Every stack runs chained (the QMPI chain); request_status.c, whose statuses the core itself
// completes (preload/core/status.h), also runs each stack compiled in.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { FLAVORS, TEST_ENV, fortranProgram, launcherArgs, mpii, outDir, program, type Flavor } from './helpers.js';

const LAUNCHER: Record<Flavor, string> = { openmpi: 'mpirun.openmpi', mpich: 'mpiexec.mpich' };

/** The stacks of bench/conformance.mjs: every built-in tool, overlap in each mode, a stack of two. */
const STACKS = ['noop', 'trace-count', 'monitor', 'profile', 'memcheck', 'overlap[mode=paging]', 'overlap[mode=chaining]', 'overlap', 'monitor,profile'];
/** memcheck picks its hooks at run time: it has no compiled-in form. */
const COMPILED = STACKS.filter((s) => s !== 'memcheck');

interface Case {
  /** what the suite caught, and where */
  caught: string;
  build: (f: Flavor) => string;
  /** the program's own result lines (tools' messages and launcher noise are not compared) */
  result: RegExp;
  /** how many result lines a passing run prints with 2 ranks */
  lines: number;
  /** also every stack compiled in (the core's own path) */
  compiledToo?: boolean;
  /** what the library itself gets wrong plain (stderr lines), and the result line mpii must give instead */
  library?: { wrong: RegExp; fixed: (line: string) => string };
}

/** Open MPI 4.1 and MPICH 4.0 leave an empty status's MPI_ERROR as it was (Open MPI's Fortran
 * binding copies it from a C temporary nobody set), MPICH 4.0's MPI_Testany writes no status at
 * all when no request is active, and its mpif.h MPI_WAITANY turns the index MPI_UNDEFINED into
 * MPI_UNDEFINED + 1 (1-based): plain, the status programs print those fields wrong, and only
 * those; under mpii, none (the chain bottoms complete them: preload/core/status.h). */
const CORE_COMPLETES = {
  wrong: /^request_status(_f)? rank \d+: (\w+\([^)]*\)(\[\d\] \w+)?: MPI_ERROR is -?\d+, expected 0|(Testany|Waitany)\([^)]*\): \w+ is -?\d+, expected -?\d+)$/,
  fixed: (line: string) => line.replace(/\d+ wrong$/, '0 wrong'),
};

const CASES: Case[] = [
  {
    caught: "null and inactive requests' statuses (pt2pt/rqstatus)",
    build: (f) => program(f, 'request_status'),
    result: /^request_status rank \d+: \d+ checks, \d+ wrong$/gm,
    lines: 2,
    compiledToo: true,
    library: CORE_COMPLETES,
  },
  ...(['MPIFH', 'MPI', 'F08'] as const).map((iface) => ({
    caught: `null and inactive requests' statuses from Fortran (${iface === 'MPIFH' ? 'mpif.h' : iface === 'MPI' ? 'use mpi' : 'use mpi_f08'})`,
    build: (f: Flavor) => fortranProgram(f, 'request_status_f', iface),
    result: /^request_status_f rank \d+: \d+ checks, \d+ wrong$/gm,
    lines: 2,
    library: CORE_COMPLETES,
  })),
  {
    caught:
      'MPI_BOTTOM with struct datatypes of absolute addresses, and a datatype freed and re-created with the same handle while a converted request is pending (pt2pt/bottom, datatype/sendrecvt4, pt2pt/sendrecv2)',
    build: (f) => program(f, 'overlap_datatypes'),
    result: /^overlap_datatypes rank \d+: OK \S+$/gm,
    lines: 2,
  },
  {
    caught: 'a status copied, reused or read while its receive is in flight',
    build: (f) => program(f, 'overlap_status'),
    result: /^overlap_status rank \d+: OK \S+$/gm,
    lines: 2,
  },
  {
    caught: "repeated receives into one unread buffer, written by the library's single copy (pt2pt/sendrecv3)",
    build: (f) => program(f, 'recv_unread_repeat'),
    result: /^recv_unread_repeat ok .*$/gm,
    lines: 1,
  },
  {
    caught: 'a dynamic window with many small attached elements (rma/linked_list)',
    build: (f) => program(f, 'memcheck_dynamic_window'),
    result: /^rank \d read .*$/gm,
    lines: 2,
  },
  {
    caught: "Fortran statuses: the program's own status, a short message's count (Quantum ESPRESSO)",
    build: (f) => fortranProgram(f, 'fortran_halo', 'MPI'),
    result: /^fortran_halo ok .*$/gm,
    lines: 1,
  },
];

const resultLines = (c: Case, s: string) => (s.match(c.result) ?? []).sort();

for (const f of FLAVORS) {
  for (const c of CASES) {
    describe(`${f}: ${c.caught}`, () => {
      let reference: string[] = [];
      let prog = '';
      it('plain: the reference result (for the status programs: only the known deviations of the library)', async () => {
        prog = c.build(f);
        const r = await execa(LAUNCHER[f], [...launcherArgs(f, 2), prog], { env: TEST_ENV, reject: false, timeout: 120_000 });
        reference = resultLines(c, r.stdout);
        assert.equal(reference.length, c.lines, r.stdout);
        if (c.library) {
          // plain, only the library's own known deviations; under mpii, none
          const wrong = r.stderr.split('\n').filter((l) => /^request_status(_f)? rank/.test(l));
          reference = reference.map(c.library.fixed);
          for (const l of wrong) assert.match(l, c.library.wrong);
          return;
        }
        assert.equal(r.exitCode, 0, r.stderr);
      });
      for (const compiled of c.compiledToo ? [false, true] : [false]) {
        for (const stack of compiled ? COMPILED : STACKS) {
          it(`under ${stack} ${compiled ? 'compiled in' : 'chained'}: the plain run's result`, async () => {
            assert.equal(reference.length, c.lines, 'the plain run passed');
            const env = compiled ? { MPII_SPECIALISE: '1', MPII_BUILD: 'wait' } : {};
            const out = outDir(`sem-${f}-${stack.replace(/\W+/g, '_')}`);
            const r = await mpii(['run', '--quiet', '--tools', stack, '--out', out, ...launcherArgs(f, 2), prog], env);
            assert.equal(r.code, 0, r.stderr);
            assert.deepEqual(resultLines(c, r.stdout), reference, r.stderr);
          });
        }
      }
    });
  }
}

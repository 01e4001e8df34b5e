// External QMPI tools (written only against MPICH's API), legacy PMPI preloads, INJ_* toggles,
// and a crashing job that must still leave its profile.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLAVORS, launcherArgs, library, mpii, outDir, program, shimInfo } from './helpers.js';
import { readProfile } from '../src/profile-file/read.js';
import { traceCountTables } from '../preload/tools/trace-count/report.js';

for (const f of FLAVORS) {
  describe(`${f}: QMPI tools and toggles`, () => {
    let counter = '';
    let legacy = '';
    before(async () => {
      const shim = await shimInfo(f);
      counter = library(f, 'qmpi_counter_tool', shim.includeDir);
      legacy = library(f, 'legacy_pmpi', shim.includeDir);
    });

    it('an external tool stacked twice with a built-in gets two instances; a legacy PMPI preload below still sees its calls', async () => {
      const out = outDir(`${f}-ext`);
      const r = await mpii(['run', '--tools', `${counter},trace-count,${counter}`, '--out', out, ...launcherArgs(f, 2), program(f, 'ring')], {
        LD_PRELOAD: legacy,
      });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /ring ok size=2 token=6/);
      for (const rank of [0, 1]) {
        // tool ids 1 and 3: two instances with their own storage, each counting the ring's 3 sends
        assert.match(r.stderr, new RegExp(`qmpi_counter\\[1\\] rank=${rank} sends=3 recvs=3 barriers=0`));
        assert.match(r.stderr, new RegExp(`qmpi_counter\\[3\\] rank=${rank} sends=3 recvs=3 barriers=0`));
        assert.match(r.stderr, new RegExp(`legacy_pmpi rank=${rank} sends=3`));
      }
      assert.doesNotMatch(r.stderr, /no calling address|failed/);
      const p = readProfile(out);
      assert.deepEqual(
        [...p.ranks[0].tools.entries()],
        [
          [1, 'qmpi_counter'],
          [2, 'trace-count'],
          [3, 'qmpi_counter'],
        ],
      );
      // the first instance asks for MPI_Comm_rank through the chain below it: trace-count sees it
      const rows = traceCountTables(p)[0].rows;
      assert.equal(rows.find((x) => x.fn === 'MPI_Comm_rank')?.total, 4n);
      // the summary names the tools
      assert.match(r.stderr, /tools: 1:qmpi_counter 2:trace-count 3:qmpi_counter/);
    });

    it('TOOLS from the environment is used when --tools is absent', async () => {
      const out = outDir(`${f}-env`);
      const r = await mpii(['run', '--quiet', '--out', out, ...launcherArgs(f, 2), program(f, 'ring')], { TOOLS: `trace-count:${counter}` });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /qmpi_counter\[2\] rank=0 sends=3/);
    });

    it('INJ_IGNORE=1 turns every tool off (pure pass-through)', async () => {
      const out = outDir(`${f}-ignore`);
      const r = await mpii(['run', '--tools', `${counter},trace-count`, '--out', out, ...launcherArgs(f, 2), program(f, 'ring')], {
        INJ_IGNORE: '1',
        LD_PRELOAD: legacy,
      });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /ring ok size=2/);
      assert.doesNotMatch(r.stderr, /qmpi_counter\[/);
      assert.match(r.stderr, /legacy_pmpi rank=0 sends=3/); // the layers below are untouched
      assert.match(r.stderr, /no profile: INJ_IGNORE=1 switched the tools off on purpose/);
    });

    it('INJ_DEBUG=-2 prints the banner on every rank, INJ_DEBUG=1 only on rank 1', async () => {
      const all = await mpii(['run', '--quiet', '--tools', 'noop', '--out', outDir(`${f}-dbg`), ...launcherArgs(f, 3), program(f, 'ring')], {
        INJ_DEBUG: '-2',
      });
      assert.equal(all.code, 0, all.stderr);
      for (const rank of [0, 1, 2]) assert.match(all.stderr, new RegExp(`MPII Init \\(debug -2, ignore 0\\) rank ${rank}`));
      assert.match(all.stderr, /^MPII 1: /m);
      const one = await mpii(['run', '--quiet', '--tools', 'noop', '--out', outDir(`${f}-dbg1`), ...launcherArgs(f, 3), program(f, 'ring')], {
        INJ_DEBUG: '1',
      });
      assert.equal(one.code, 0, one.stderr);
      assert.match(one.stderr, /MPII Init \(debug 1, ignore 0\) rank 1/);
      assert.doesNotMatch(one.stderr, /rank [02]\b|^MPII [02]:/m);
    });

    // MPICH's own QMPI tool list (MPIR_CVAR_QMPI_TOOL_LIST): under mpii's stack the shim runs the
    // listed tools first, with the library's ids 1..N, on every MPI, and the library is not given
    // the list
    // (preload/core/library_tools.c, docs/qmpi.md)
    it("the tools of the library's QMPI tool list run in mpii's stack, first as tools 1 to N, and only there", async () => {
      const out = outDir(`${f}-listed`);
      // MPICH's order of its three names: MPIR_CVAR_ wins over MPICH_
      const r = await mpii(['run', '--tools', `trace-count,${counter}`, '--out', out, ...launcherArgs(f, 2), program(f, 'ring')], {
        MPIR_CVAR_QMPI_TOOL_LIST: 'qmpi_counter',
        MPICH_QMPI_TOOL_LIST: 'not_this_one',
        INJ_DEBUG: '-2',
      });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /ring ok size=2 token=6/);
      assert.match(r.stderr, /tools: qmpi_counter \(MPIR_CVAR_QMPI_TOOL_LIST\) → trace-count → \S*qmpi_counter_tool\S*,/);
      for (const rank of [0, 1]) {
        // the listed instance (1) and the one of --tools (3), each once, each counting the 3 sends
        assert.equal(r.stderr.match(new RegExp(`qmpi_counter\\[1\\] rank=${rank} sends=3 recvs=3`, 'g'))?.length, 1, r.stderr);
        assert.equal(r.stderr.match(new RegExp(`qmpi_counter\\[3\\] rank=${rank} sends=3 recvs=3`, 'g'))?.length, 1, r.stderr);
        assert.match(
          r.stderr,
          new RegExp(
            `MPII ${rank}: MPIR_CVAR_QMPI_TOOL_LIST=qmpi_counter: mpii's stack runs these tools, first, as tools 1 to N; the MPI library is not given the list`,
          ),
        );
      }
      const p = readProfile(out);
      assert.deepEqual([...p.ranks[1].tools.values()], ['qmpi_counter', 'trace-count', 'qmpi_counter']);
      // trace-count, between the two, sees the ring's sends once each
      assert.equal(traceCountTables(p)[0].rows.find((x) => x.fn === 'MPI_Send')?.total, 6n);
    });

    it('under a list on top, the tools of --tools keep their own options', async () => {
      // monitor is tool 2 here, and reads the options of the first tool of --tools
      const prof = join(tmpdir(), `mpii-listed-${f}-${process.pid}`);
      const r = await mpii(
        ['run', '--quiet', '--tools', `monitor[prof=${prof}],${counter}`, '--out', outDir(`${f}-listed-opts`), ...launcherArgs(f, 2), program(f, 'ring')],
        {
          MPIR_CVAR_QMPI_TOOL_LIST: 'qmpi_counter',
        },
      );
      assert.equal(r.code, 0, r.stderr);
      for (const rank of [0, 1]) {
        assert.ok(existsSync(`${prof}.${rank}.prof`), `monitor's option prof reached it on rank ${rank}`);
        assert.match(r.stderr, new RegExp(`qmpi_counter\\[1\\] rank=${rank} sends=3`));
        assert.match(r.stderr, new RegExp(`qmpi_counter\\[3\\] rank=${rank} sends=3`));
      }
    });

    it("a name in the library's tool list that no library registered: one line that says so, exit 2", async () => {
      const r = await mpii(['run', '--quiet', '--tools', 'noop', '--out', outDir(`${f}-listed-bad`), ...launcherArgs(f, 2), program(f, 'ring')], {
        MPIR_CVAR_QMPI_TOOL_LIST: 'no_such_tool',
      });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /MPIR_CVAR_QMPI_TOOL_LIST names 'no_such_tool', but no library in this process registered a QMPI tool of that name/);
      assert.match(r.stderr, /fix the tool stack \(TOOLS=noop, MPIR_CVAR_QMPI_TOOL_LIST=no_such_tool\)/);
      assert.doesNotMatch(r.stdout, /ring ok/);
    });

    it("with INJ_IGNORE=1 the library's tool list is the library's: mpii runs none of it", async () => {
      const r = await mpii(['run', '--tools', counter, '--out', outDir(`${f}-listed-ignore`), ...launcherArgs(f, 2), program(f, 'ring')], {
        MPIR_CVAR_QMPI_TOOL_LIST: 'qmpi_counter',
        INJ_IGNORE: '1',
        INJ_DEBUG: '0',
      });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /ring ok size=2 token=6/);
      assert.doesNotMatch(r.stderr, /qmpi_counter\[/);
      // Debian's MPICH has the six QMPI functions (without dispatch): the registrations go there;
      // Open MPI has none
      const where = f === 'mpich' ? "the tools' registrations go to the MPI library" : 'the MPI library has no QMPI functions, so no tool runs';
      assert.match(r.stderr, new RegExp(`MPII 0: MPIR_CVAR_QMPI_TOOL_LIST=qmpi_counter with INJ_IGNORE set: ${where}`));
    });

    if (f === 'mpich')
      it("MPICH's way: the tool preloaded by the user and named in the list runs once, as tool 1", async () => {
        const r = await mpii(['run', '--quiet', '--tools', 'trace-count', '--out', outDir(`${f}-listed-preload`), ...launcherArgs(f, 2), program(f, 'ring')], {
          MPIR_CVAR_QMPI_TOOL_LIST: 'qmpi_counter',
          LD_PRELOAD: counter,
        });
        assert.equal(r.code, 0, r.stderr);
        for (const rank of [0, 1]) assert.equal(r.stderr.match(new RegExp(`qmpi_counter\\[1\\] rank=${rank} sends=3 recvs=3`, 'g'))?.length, 1, r.stderr);
        assert.doesNotMatch(r.stderr, /qmpi_counter\[[23]\]/);
      });

    it('a job that crashes still leaves per-rank profiles, reported as incomplete', async () => {
      const out = outDir(`${f}-crash`);
      const r = await mpii(['run', '--tools', 'trace-count', '--out', out, ...launcherArgs(f, 2), program(f, 'crash')]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /INCOMPLETE/);
      const p = readProfile(out);
      assert.equal(p.complete, false);
      assert.ok(p.ranks.length >= 1, 'at least the crashing rank left its data');
      const rows = traceCountTables(p)[0].rows;
      assert.ok((rows.find((x) => x.fn === 'MPI_Init')?.total ?? 0n) >= 1n);
      assert.ok(
        rows.some((x) => x.fn === 'MPI_Send' && x.total > 0n),
        'sends counted before the crash',
      );
      const report = await mpii(['report', out]);
      assert.equal(report.code, 0, report.stderr);
      assert.match(report.stdout, /INCOMPLETE/);
    });
  });
}

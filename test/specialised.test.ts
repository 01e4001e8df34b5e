// A stack of built-in tools compiled into one wrapper per MPI function (the specialised shim,
// src/gen/specialised-c.ts) against the same tools through the QMPI chain (`mpii run --chained`):
// the same programs give the same profiles, field by field, everything but times; the shim runs
// its compiled path only for the stack it was compiled for, and the chain otherwise.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { FLAVORS, TEST_ENV, launcherArgs, mpii, oneLineError, outDir, program, type Flavor, useSpecialised } from './helpers.js';
import { readProfile } from '../src/profile-file/read.js';
import { profileRuns } from '../preload/tools/profile/report/data.js';
import { overlapRuns, overlapTotals } from '../preload/tools/overlap/report.js';

useSpecialised(); // the tools as users run them: compiled into one wrapper per function

const STACK = 'trace-count,monitor,profile';
const COMPILED_IN = /specialised stack trace-count\+monitor\+profile: compiled in, no chain/;
// point-to-point, collectives, persistent requests, communicators, MPI_Pcontrol, calls MPI refuses
const PROGRAMS: [string, number][] = [
  ['profile_sites', 3],
  ['monitor_p2p', 3],
  ['monitor_coll', 3],
  ['collectives', 3],
  ['profile_pcontrol', 2],
  ['errors_return', 2],
];
// (not nonblocking.c: how often its MPI_Test loop spins depends on timing, in any two runs)

// What differs between two runs of one program whatever the stack's form: times and what is
// derived from them (shares, means, imbalance), which calls the profile's sampling timed (random
// gaps), the run's own identity (directory, pids, hosts, dates, sizes of the files), and the
// program offset shown for a line with several call sites (the report merges them by line and
// shows one of them, in the order of tables hashed by address, which ASLR moves every run).
const RUN_DEPENDENT =
  /^(offset|time|tmin|tmax|mean|cov|timed|app|recorded|mpi|pcontrol|appPercent|mpiPercent|imbalance|totals|seconds|pid|host|dir|run|size|timeline|spawned|memory)$/;

/** The report's JSON without run-dependent fields; rows in a fixed order (the report sorts by time). */
function exact(v: unknown): unknown {
  if (Array.isArray(v)) {
    const rows = v.map(exact);
    // a call site: its function and frames (two sites can share a line, so not the location alone)
    const key = (r: unknown) =>
      r && typeof r === 'object' && 'call' in r ? JSON.stringify([(r as { call: string }).call, (r as { frames?: unknown }).frames]) : undefined;
    if (rows.every((r) => key(r) !== undefined)) rows.sort((a, b) => (key(a)! < key(b)! ? -1 : 1));
    return rows;
  }
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !RUN_DEPENDENT.test(k))
        .map(([k, x]) => [k, exact(x)])
        .filter(([k, x]) => k !== 'id' || typeof x !== 'number'),
    );
  }
  return v;
}

async function report(f: Flavor, name: string, np: number, chained: boolean): Promise<{ json: Record<string, unknown>; stderr: string }> {
  const out = outDir(`${f}-spec-${name}-${chained ? 'chained' : 'specialised'}`);
  const r = await mpii(['run', '--quiet', '--tools', STACK, ...(chained ? ['--chained'] : []), '--out', out, ...launcherArgs(f, np), program(f, name)], {
    INJ_DEBUG: '1',
  });
  assert.equal(r.code, 0, r.stderr);
  const rep = await mpii(['report', '--json', '--top', '0', out]);
  assert.equal(rep.code, 0, rep.stderr);
  return { json: JSON.parse(rep.stdout), stderr: r.stderr };
}

for (const f of FLAVORS) {
  describe(`specialised stack on ${f}`, () => {
    for (const [name, np] of PROGRAMS) {
      it(`${name}: ${STACK} compiled in gives the profile the chain gives, field by field but times`, async () => {
        const spec = await report(f, name, np, false);
        const chain = await report(f, name, np, true);
        assert.match(spec.stderr, COMPILED_IN, 'the specialised shim ran its compiled path');
        assert.doesNotMatch(chain.stderr, COMPILED_IN, '--chained ran the chain');
        // the comparison has something to compare: every tool recorded calls
        const calls = (j: Record<string, unknown>) => (j.traceCount as { rows: { total: number }[] }[])[0].rows.reduce((s, r) => s + r.total, 0);
        assert.ok(calls(spec.json) > 0 && (spec.json.profile as unknown[]).length === 1 && (spec.json.monitor as unknown[]).length === 1);
        assert.deepEqual(exact(spec.json), exact(chain.json));
      });
    }

    it('overlap compiled in converts the same calls as through the chain, with the same results', async () => {
      const run = async (chained: boolean, name: string, args: string[]) => {
        const out = outDir(`${f}-spec-overlap-${name}-${chained}`);
        const r = await mpii(
          [
            'run',
            '--quiet',
            '--tools',
            'overlap[mode=paging]',
            ...(chained ? ['--chained'] : []),
            '--out',
            out,
            ...launcherArgs(f, 2),
            program(f, name),
            ...args,
          ],
          { INJ_DEBUG: '1' },
        );
        assert.equal(r.code, 0, r.stderr);
        assert.equal(/specialised stack overlap: compiled in/.test(r.stderr), !chained);
        const t = overlapTotals(overlapRuns(readProfile(out))[0]);
        const lines = r.stdout
          .split('\n')
          .filter((l) => / OK /.test(l))
          .sort();
        return { lines, counts: ['sends converted', 'receives converted', 'faults'].map((k) => t[k] ?? 0) };
      };
      // paging converts every eligible call whatever the timings: the counts must be equal
      // (overlap_loop: every buffer on the page-exclusive heap; in overlap_sendrecv one receive
      // buffer is eligible in about 1 run of 20, either form, so only its results are compared)
      for (const [name, args, counted] of [
        ['overlap_loop', ['100'], true],
        ['overlap_sendrecv', [], false],
      ] as const) {
        const spec = await run(false, name, [...args]);
        const chain = await run(true, name, [...args]);
        assert.equal(spec.lines.length, 2, `${name}: both ranks checked their data`);
        assert.deepEqual(spec.lines, chain.lines, name);
        assert.ok(spec.counts[0] + spec.counts[1] > 0, `${name}: ${JSON.stringify(spec.counts)}`);
        if (counted) assert.deepEqual(spec.counts, chain.counts, name);
      }
    });

    it('the specialised shim given another stack runs the chain it built, with the same results', async () => {
      const dry = await mpii(['run', '--dry-run', '--tools', STACK, ...launcherArgs(f, 2), program(f, 'profile_sites')]);
      assert.equal(dry.code, 0, dry.stderr);
      const library = /^LD_PRELOAD=(\S+)$/m.exec(dry.stdout)?.[1];
      assert.match(library ?? '', /spec-trace-count\+monitor\+profile\/libmpii\.so$/);
      assert.match(dry.stdout, /specialised: compiled into one wrapper per function/);
      // the same library preloaded by hand with TOOLS=profile: not the stack compiled in
      const out = outDir(`${f}-spec-other`);
      const vars = { LD_PRELOAD: library!, TOOLS: 'profile', MPII_OUT: out, INJ_DEBUG: '1' };
      const pass = f === 'openmpi' ? Object.keys(vars).flatMap((k) => ['-x', k]) : ['-envlist', Object.keys(vars).join(',')];
      const r = await execa(`mpirun.${f}`, [...pass, ...launcherArgs(f, 3), program(f, 'profile_sites')], { env: { ...TEST_ENV, ...vars }, reject: false });
      assert.equal(r.exitCode, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /compiled in, no chain/);
      assert.match(r.stderr, /stack of 1 tool built/);
      const runs = profileRuns(readProfile(out));
      assert.equal(runs.length, 1);
      assert.equal(runs[0].ranks.length, 3);
    });

    it("mpii build --tools makes a stack's specialised shim ahead of its first run, or says why it cannot", async () => {
      const r = await mpii(['build', '--mpi', f, '--tools', 'monitor,profile', '--json', '--quiet']);
      assert.equal(r.code, 0, r.stderr);
      const [built] = JSON.parse(r.stdout) as { library: string }[];
      assert.match(built.library, /spec-monitor\+profile\/libmpii\.so$/);
      oneLineError(
        await mpii(['build', '--mpi', f, '--tools', 'memcheck', '--quiet']),
        /the stack 'memcheck' cannot be specialised: 'memcheck' has no specialised form/,
      );
    });

    it('stacks that cannot be specialised stay chained, and say why', async () => {
      for (const [tools, why] of [
        ['profile,profile', /'profile' is in the stack twice/],
        ['memcheck', /'memcheck' has no specialised form/],
      ] as const) {
        const dry = await mpii(['run', '--dry-run', '--tools', tools, ...launcherArgs(f, 2), program(f, 'ring')]);
        assert.equal(dry.code, 0, dry.stderr);
        assert.match(dry.stdout, why);
        assert.doesNotMatch(/^LD_PRELOAD=(\S+)$/m.exec(dry.stdout)?.[1] ?? '', /spec-/);
      }
    });
  });
}

// mpiP parity of the report (issue 25) on real runs: the header and the CLI on each MPI, the other
// tools' reports within 80 columns. The synthetic jobs (exact numbers) are in report-mpip.unit.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_INFO_FILE } from '../src/report/run-info.js';
import { launcherArgs, mpii, outDir, program } from './helpers.js';

describe('the header (mpiP: command, times, hosts and ranks, MPI version, tools and options)', () => {
  it("the other tools' reports fit 80 columns too (memcheck and overlap, a real run on Open MPI)", async () => {
    const out = outDir('mpip-width');
    const r = await mpii([
      'run',
      '--quiet',
      '--tools',
      'memcheck,overlap,trace-count',
      '--out',
      out,
      ...launcherArgs('openmpi', 2),
      program('openmpi', 'memcheck_e1_send_overrun'),
    ]);
    assert.ok(r.code === 0, r.stderr);
    const rep = await mpii(['report', out]);
    assert.equal(rep.code, 0, rep.stderr);
    assert.match(rep.stdout, /send buffer overrun/);
    assert.match(rep.stdout, /\n {4}backtrace: main at memcheck_e1_send_overrun\.c:\d+/);
    assert.match(rep.stdout, /overlap \(tool 2\): 2 ranks/);
    // the one exception: the program's path, longer than the line here, is printed whole
    assert.deepEqual(
      rep.stdout.split('\n').filter((l) => [...l].length > 80 && !l.includes('memcheck_e1_send_overrun')),
      [],
    );
  });

  for (const f of ['openmpi', 'mpich'] as const) {
    it(`a real run (${f}): the header, --json run, --ranks/--sites from the command line, CSV files`, async () => {
      const out = outDir(`mpip-${f}`);
      const prog = program(f, 'profile_sites');
      const r = await mpii(['run', '--tools', 'profile[depth=1],monitor', '--out', out, ...launcherArgs(f, 2), prog]);
      assert.equal(r.code, 0, r.stderr);
      // a command longer than the line goes on the next one, indented (a long TMPDIR)
      assert.match(r.stderr, new RegExp(`\\n {2}command(?: +| *\\n {4})${prog.replace(/[.+]/g, '\\$&')}\\n`));
      assert.match(r.stderr, f === 'openmpi' ? /\n {2}MPI +Open MPI \d/ : /\n {2}MPI +MPICH \d/);
      assert.match(r.stderr, /\n {2}host +\S+: 2 ranks \(0-1\)\n/);
      assert.match(r.stderr, /\n {2}tool options +1:profile depth=1 (\w+=\S+ )*sample=64.*\n +2:monitor .*matrix=true( \S+)*\n/);
      assert.match(r.stderr, /\ntools: 1:profile 2:monitor\n/);
      const info = JSON.parse(readFileSync(join(out, RUN_INFO_FILE), 'utf8'));
      assert.equal(info.program.path, prog);
      assert.match(info.program.sha256, /^[0-9a-f]{64}$/);

      const j = await mpii(['report', out, '--json', '--ranks', '1', '--sites', 'MPI_Barrier,MPI_Send']);
      assert.equal(j.code, 0, j.stderr);
      const js = JSON.parse(j.stdout);
      assert.deepEqual(js.run.command, [prog]);
      assert.deepEqual(
        js.run.hosts.map((h: { ranks: number[] }) => h.ranks),
        [[0, 1]],
      );
      const sites = js.profile[0].sites;
      assert.deepEqual([...new Set(sites.map((s: { call: string }) => s.call))].sort(), ['MPI_Barrier', 'MPI_Send']);
      assert.equal(sites.filter((s: { call: string }) => s.call === 'MPI_Send').length, 2, 'two send lines');
      for (const s of sites) {
        assert.deepEqual(
          s.ranks.map((x: { rank: number }) => x.rank),
          s.call === 'MPI_Barrier' ? [1] : s.ranks.length ? [1] : [],
        );
        assert.equal(typeof s.total.sentPercent, 'number');
        assert.ok(s.total.tmin <= s.total.mean && s.total.mean <= s.total.tmax);
      }
      // profile_sites: rank 0 sends 10 × 400 B from each of its two send lines
      assert.deepEqual(
        sites.filter((s: { call: string }) => s.call === 'MPI_Send').map((s: { total: { sent: number; count: number } }) => [s.total.count, s.total.sent]),
        [
          [10, 4000],
          [10, 4000],
        ].slice(0, 2),
      );
      const t = await mpii(['report', out, '--ranks', '--sites', 'MPI_Barrier', '--csv', join(out, 'csv')]);
      assert.equal(t.code, 0, t.stderr);
      assert.match(t.stdout, /per rank, each call site \(mpiP: Callsite Time statistics\):\n {4}site 1 {2}MPI_Barrier {2}profile_sites\.c:\d+ main\n/);
      assert.deepEqual(
        t.stdout.split('\n').filter((l) => [...l].length > 80 && !l.endsWith(prog)),
        [],
        'at most 80 columns, but for the whole program path',
      );
      const csv = readFileSync(join(out, 'csv', 'profile_site_ranks.csv'), 'utf8')
        .trim()
        .split('\n');
      assert.equal(csv[0], 'site,call,rank,calls,max_s,mean_s,min_s,app_percent,mpi_percent,sent_bytes,recv_bytes');
      assert.deepEqual(
        csv.slice(1).map((l) => l.split(',').slice(1, 4).join(',')),
        ['MPI_Barrier,0,1', 'MPI_Barrier,1,1'],
      );
      const bad = await mpii(['report', out, '--ranks', 'x']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr.trim(), /^mpii: --ranks: 'x' is not a rank or a range of ranks — /);
      const none = await mpii(['report', out, '--sites', 'MPI_Alltoallw']);
      assert.equal(none.code, 1);
      assert.match(none.stderr.trim(), /^mpii: --sites MPI_Alltoallw: no call site matches — /);
    });
  }
});

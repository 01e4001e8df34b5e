// Real mpirun jobs on both MPIs through stacks of 0, 1, 3 and 1000 layers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FLAVORS, launcherArgs, mpii, outDir, program } from './helpers.js';
import { readProfile } from '../src/profile-file/read.js';
import { traceCountTables } from '../preload/tools/trace-count/report.js';

const PROGRAMS: [string, RegExp][] = [
  ['ring', /ring ok size=3 token=9/],
  ['collectives', /collectives ok size=3/],
  ['nonblocking', /nonblocking ok size=3/],
  ['split', /split ok size=3/],
  ['init_thread', /init_thread ok provided=\d/],
];

function calls(dir: string, fn: string, tool?: number): bigint[] {
  const p = readProfile(dir);
  const table = traceCountTables(p).find((t) => tool === undefined || t.tool === tool);
  assert.ok(table, `no trace-count table in ${dir}`);
  const row = table.rows.find((r) => r.fn === fn);
  return row ? [row.total, row.min, row.max] : [0n, 0n, 0n];
}

describe('mpich: MPI-4 sessions', () => {
  it('MPI_Session_init starts the stack; per-rank profiles are complete', async () => {
    const out = outDir('mpich-session');
    const r = await mpii(['run', '--quiet', '--tools', 'noop,trace-count', '--out', out, ...launcherArgs('mpich', 2), program('mpich', 'session')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /session ok size=2 sum=1/);
    const p = readProfile(out);
    assert.equal(p.complete, true);
    assert.deepEqual(
      p.ranks.map((x) => x.rank),
      [0, 1],
    );
    assert.deepEqual(calls(out, 'MPI_Session_init'), [2n, 1n, 1n]);
    assert.deepEqual(calls(out, 'MPI_Allreduce'), [2n, 1n, 1n]);
    assert.deepEqual(calls(out, 'MPI_Session_finalize'), [2n, 1n, 1n]);
  });
});

for (const f of FLAVORS) {
  describe(`${f}: programs under a 3-layer stack`, () => {
    for (const [name, ok] of PROGRAMS) {
      it(`${name} runs correctly and is counted`, async () => {
        const out = outDir(`${f}-${name}`);
        const r = await mpii(['run', '--quiet', '--tools', 'noop,trace-count,noop', '--out', out, ...launcherArgs(f, 3), program(f, name)]);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, ok);
        const p = readProfile(out);
        assert.equal(p.complete, true);
        assert.equal(p.ranks.length, 3);
        assert.deepEqual([...p.ranks[0].tools.values()], ['noop', 'trace-count', 'noop']);
        const init = name === 'init_thread' ? 'MPI_Init_thread' : 'MPI_Init';
        assert.deepEqual(calls(out, init), [3n, 1n, 1n]);
        assert.deepEqual(calls(out, 'MPI_Finalize'), [3n, 1n, 1n]);
      });
    }
  });

  describe(`${f}: stack depth`, () => {
    it('ring: exact Send/Recv counts per rank with 1 layer', async () => {
      const out = outDir(`${f}-ring1`);
      const r = await mpii(['run', '--quiet', '--tools', 'trace-count', '--out', out, ...launcherArgs(f, 3), program(f, 'ring'), '4']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /ring ok size=3 token=12/);
      // every rank sends the token on 4 times and receives it 4 times
      assert.deepEqual(calls(out, 'MPI_Send'), [12n, 4n, 4n]);
      assert.deepEqual(calls(out, 'MPI_Recv'), [12n, 4n, 4n]);
    });

    it('ring with an empty stack still runs and writes a profile with no tools', async () => {
      const out = outDir(`${f}-ring0`);
      const r = await mpii(['run', '--quiet', '--tools', '', '--out', out, ...launcherArgs(f, 2), program(f, 'ring')]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /ring ok size=2/);
      const p = readProfile(out);
      assert.equal(p.complete, true);
      assert.equal(p.ranks[0].tools.size, 0);
    });

    it('collectives through 1000 noop layers around trace-count', async () => {
      const out = outDir(`${f}-deep`);
      const tools = [...Array(500).fill('noop'), 'trace-count', ...Array(500).fill('noop')].join(',');
      const r = await mpii(['run', '--quiet', '--tools', tools, '--out', out, ...launcherArgs(f, 2), program(f, 'collectives')]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /collectives ok size=2/);
      const p = readProfile(out);
      assert.equal(p.ranks[0].tools.size, 1001);
      assert.equal(p.ranks[0].tools.get(501), 'trace-count');
      assert.deepEqual(calls(out, 'MPI_Alltoall'), [2n, 1n, 1n]);
    });
  });
}

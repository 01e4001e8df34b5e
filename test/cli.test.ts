// The small commands: tools, doctor, report --json, help.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { launcherArgs, mpii, outDir, program } from './helpers.js';

describe('mpii tools / doctor / report', () => {
  it('tools lists the built-ins and the stacks with the default marked', async () => {
    const r = await mpii(['tools']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}noop\s+builtin/m);
    assert.match(r.stdout, /^ {2}trace-count\s+builtin.*\n.*options: top \(int/m);
    assert.match(r.stdout, /^ {2}none\s+\[\] \(default\)/m);
    assert.match(r.stdout, /^ {2}count\s+\[trace-count\]/m);
  });

  it('doctor finds both MPIs and passes on this machine', async () => {
    const r = await mpii(['doctor']);
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.stdout, /ok\s+Open MPI: compiler \S+mpicc\.openmpi, launcher \S+mpirun\.openmpi/);
    assert.match(r.stdout, /ok\s+MPICH: compiler \S+mpicc\.mpich, launcher \S+(mpirun\.mpich|mpiexec\.hydra)/);
    assert.match(r.stdout, /all good/);
  });

  it('doctor reports an LD_PRELOAD naming a missing library', async () => {
    const r = await mpii(['doctor'], { LD_PRELOAD: '/nonexistent/libx.so' });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /FAIL\s+LD_PRELOAD names missing libraries: \/nonexistent\/libx\.so/);
  });

  it('report --json re-reads a finished run', async () => {
    const out = outDir('json');
    const run = await mpii(['run', '--quiet', '--tools', 'trace-count', '--out', out, ...launcherArgs('mpich', 2), program('mpich', 'ring')]);
    assert.equal(run.code, 0, run.stderr);
    const r = await mpii(['report', '--json', out]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.complete, true);
    assert.equal(j.ranks.length, 2);
    assert.equal(j.ranks[1].state, 'finalized');
    const send = j.traceCount[0].rows.find((x: { fn: string }) => x.fn === 'MPI_Send');
    assert.deepEqual(send, { fn: 'MPI_Send', total: 6, min: 3, max: 3 });
  });

  it('run --help documents the options', async () => {
    const r = await mpii(['run', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /--tools a,b/);
    assert.match(r.stdout, /--dry-run/);
  });
});

// The launch decisions that the job tests (shim.test.ts --dry-run, cli.test.ts signals and
// --timeout) check through real launchers: the launcher command each MPI gets, and the exit code
// mpii gives for a job's end.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADAPTERS, mpirunLauncher, spawnSeesLauncherEnv } from '../src/launch/adapters.js';
import { TIMEOUT_EXIT, bySignal, exitCodeOf } from '../src/launch/supervise.js';

describe('launcher commands', () => {
  const vars = { LD_PRELOAD: '/c/libmpii.so:/usr/lib/libfoo.so', TOOLS: 'trace-count', MPII_OPT_1: 'top=3' };
  it("Open MPI: -x NAME=value per variable, before the user's options, the program last", () => {
    const plan = mpirunLauncher('openmpi', '/usr/bin/mpirun.openmpi', ['-np', '2', '--oversubscribe'], { PATH: '/bin' })(vars, ['./ring', '5']);
    assert.equal(plan.command, '/usr/bin/mpirun.openmpi');
    assert.deepEqual(plan.args, [
      '-x',
      'LD_PRELOAD=/c/libmpii.so:/usr/lib/libfoo.so',
      '-x',
      'TOOLS=trace-count',
      '-x',
      'MPII_OPT_1=top=3',
      '-np',
      '2',
      '--oversubscribe',
      './ring',
      '5',
    ]);
    assert.deepEqual(plan.env, { PATH: '/bin' }, "the launcher's own environment is left as it was");
  });
  it('MPICH: -genv NAME value per variable (a value with = or spaces stays one argument)', () => {
    assert.deepEqual(ADAPTERS.mpich.envArgs({ A: 'x=y z', B: '' }), ['-genv', 'A', 'x=y z', '-genv', 'B', '']);
    const plan = mpirunLauncher('mpich', '/usr/bin/mpiexec.hydra', ['-np', '2'], {})(vars, ['./ring']);
    assert.deepEqual(plan.args.slice(0, 3), ['-genv', 'LD_PRELOAD', vars.LD_PRELOAD]);
    assert.deepEqual(plan.args.slice(-3), ['-np', '2', './ring']);
  });
  it("Open MPI 5 and later (PRRTE): the variables in mpirun's own environment too, for MPI_Comm_spawn's jobs", () => {
    assert.equal(spawnSeesLauncherEnv('openmpi', 'Open MPI 4.1.4'), false);
    assert.equal(spawnSeesLauncherEnv('openmpi', 'Open MPI 5.0.7'), true);
    assert.equal(spawnSeesLauncherEnv('openmpi', 'Open MPI 6.0.0rc2'), true);
    assert.equal(spawnSeesLauncherEnv('openmpi', 'Open MPI 10.0.0'), true);
    assert.equal(spawnSeesLauncherEnv('mpich', 'MPICH 5.0.2'), false);
    assert.equal(spawnSeesLauncherEnv('openmpi', undefined), false, 'no development files: as Open MPI 4');
    const plan = mpirunLauncher('openmpi', '/usr/bin/mpirun.openmpi', ['-np', '2'], { PATH: '/bin' }, true)(vars, ['./spawner']);
    assert.deepEqual(plan.env, { PATH: '/bin', ...vars });
    assert.deepEqual(plan.args.slice(0, 2), ['-x', `LD_PRELOAD=${vars.LD_PRELOAD}`], 'and still as flags: the ranks on other hosts');
  });
});

describe('exit codes', () => {
  it("a signal mpii received gives 128+signal whatever the launcher made of it; --timeout 124; else the launcher's", () => {
    assert.equal(bySignal('SIGINT'), 130);
    assert.equal(bySignal('SIGTERM'), 143);
    assert.equal(exitCodeOf({ exitCode: 1, signal: null, received: 'SIGINT', timedOut: false }), 130);
    assert.equal(exitCodeOf({ exitCode: 0, signal: null, received: 'SIGTERM', timedOut: false }), 143);
    assert.equal(exitCodeOf({ exitCode: 143, signal: null, received: 'SIGTERM', timedOut: true }), TIMEOUT_EXIT);
    assert.equal(TIMEOUT_EXIT, 124);
    assert.equal(exitCodeOf({ exitCode: 3, signal: null, timedOut: false }), 3);
    assert.equal(exitCodeOf({ exitCode: 0, signal: null, timedOut: false }), 0);
    assert.equal(exitCodeOf({ exitCode: null, signal: 'SIGKILL', timedOut: false }), 137, 'a launcher killed by a signal');
    assert.equal(exitCodeOf({ exitCode: null, signal: null, timedOut: false }), 1);
  });
});

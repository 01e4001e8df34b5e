// `mpii run --launcher srun` against a real single-node Slurm (test/slurm-cluster.ts starts
// munged, slurmctld and slurmd and stops them at the end): a ring under trace-count + monitor on
// both MPIs, in a job srun allocates itself and inside salloc, --copy-shim (the shim and an
// external tool copied to the node's /tmp with sbcast, loaded from there, removed after), mpirun
// inside an allocation, and the MPI/plugin combinations that cannot work.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { FLAVORS, MPII, TEST_ENV, library, mpii, outDir, program, ranksGone, ranksOf, shimInfo, type Flavor, type Run } from './helpers.js';
import { startSlurm, type SlurmCluster } from './slurm-cluster.js';
import { readProfile } from '../src/profile-file/read.js';

/** The ring's counts: 2 ranks, 4 rounds → each rank sends and receives 4 times. */
async function assertRing(r: Run, out: string, node: string): Promise<void> {
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /ring ok size=2 token=8/);
  const p = readProfile(out);
  assert.equal(p.complete, true);
  assert.deepEqual(
    p.ranks.map((x) => [x.rank, x.state, x.host]),
    [
      [0, 'finalized', node],
      [1, 'finalized', node],
    ],
  );
  const rep = JSON.parse((await mpii(['report', out, '--json', '--ranks'])).stdout);
  const sends = rep.traceCount[0].rows.find((x: { fn: string }) => x.fn === 'MPI_Send');
  assert.deepEqual(sends, { fn: 'MPI_Send', total: 8, min: 4, max: 4 });
  for (const [rank, peer] of [
    [0, 1],
    [1, 0],
  ]) {
    const row = rep.monitor[0].ranks.find((x: { rank: number }) => x.rank === rank);
    assert.deepEqual(row.peers.find((x: { peer: number }) => x.peer === peer).p2p, { count: 4, bytes: 16 });
  }
}

describe('Slurm: mpii run --launcher srun on a real single-node cluster', () => {
  let slurm: SlurmCluster;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    slurm = await startSlurm();
    env = { SLURM_CONF: slurm.env.SLURM_CONF };
  });
  after(async () => {
    await slurm?.stop();
  });

  /** `mpii …` inside `salloc -n 2`, on this host (salloc runs its command where it was called). */
  async function inAllocation(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<Run> {
    const r = await execa('salloc', ['-n', '2', 'node', MPII, ...args], { env: { ...TEST_ENV, ...env, ...extra }, reject: false, timeout: 300_000 });
    return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
  }

  for (const f of FLAVORS) {
    it(`${f}: srun allocates and starts a 2-rank ring under trace-count + monitor (-np 2 becomes -n 2)`, async () => {
      const out = outDir(`slurm-${f}`);
      const r = await mpii(['run', '--launcher', 'srun', '--tools', 'trace-count,monitor', '--out', out, '-np', '2', program(f, 'ring'), '4'], env);
      await assertRing(r, out, slurm.node);
      assert.match(r.stderr, /trace-count \(tool 1\): MPI calls over 2 ranks/); // the report mpii printed
      // (a new --out: the one above holds a profile now, which a run refuses to replace without --force)
      const dry = await mpii(['run', '--dry-run', '--launcher', 'srun', '--out', outDir(`slurm-dry-${f}`), '-np', '2', program(f, 'ring')], env);
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, new RegExp(`srun --mpi=${f === 'openmpi' ? 'pmix' : 'pmi2'} --export=ALL,LD_PRELOAD=\\S+libmpii\\.so -n 2 \\S+ring$`, 'm'));
    });

    it(`${f}: inside salloc, MPII_LAUNCHER=srun --copy-shim runs the shim and an external tool from the node's /tmp`, async () => {
      const counter = library(f, 'qmpi_counter_tool', (await shimInfo(f)).includeDir);
      const out = outDir(`slurm-copy-${f}`);
      // bash shows the shim it has mapped (LD_PRELOAD names only the copy) and the stack the tasks
      // were given (the tool is loaded from the path in TOOLS at MPI_Init), then becomes the ring
      const show = `grep -o '/tmp/mpii-[^ ]*' /proc/$$/maps | sort -u | sed 's/^/mapped /'; echo "stack $TOOLS"; exec ${program(f, 'ring')} 4`;
      const r = await inAllocation(
        ['run', '--copy-shim', '--mpi', f, '--tools', `trace-count,${counter},monitor`, '--out', out, '-np', '2', 'bash', '-c', show],
        { MPII_LAUNCHER: 'srun' },
      );
      await assertRing(r, out, slurm.node);
      const mapped = [...new Set([...r.stdout.matchAll(/^mapped (\S+)$/gm)].map((m) => m[1]))];
      assert.equal(mapped.length, 1, r.stdout);
      assert.match(mapped[0], /^\/tmp\/mpii-\d+-\d+-0-libmpii\.so$/);
      const stacks = [...new Set([...r.stdout.matchAll(/^stack (\S+)$/gm)].map((m) => m[1]))];
      assert.equal(stacks.length, 1, r.stdout);
      assert.match(stacks[0], /^trace-count:\/tmp\/mpii-\d+-\d+-1-libqmpi_counter_tool\.so:monitor$/);
      for (const rank of [0, 1]) assert.match(r.stderr, new RegExp(`qmpi_counter\\[2\\] rank=${rank} sends=4 recvs=4`));
      for (const copy of [mapped[0], stacks[0].split(':')[1]]) assert.equal(existsSync(copy), false, `${copy} removed after the job`);
    });
  }

  it('SIGTERM to mpii reaches srun, which cancels the step: no task left, the profile marked incomplete', async () => {
    for (const f of FLAVORS) {
      const sleeper = program(f, 'sleeper');
      const out = outDir(`slurm-term-${f}`);
      const child = execa('node', [MPII, 'run', '--launcher', 'srun', '--tools', 'noop', '--out', out, '-np', '2', sleeper], {
        env: { ...TEST_ENV, ...env },
        reject: false,
        timeout: 120_000,
      });
      await new Promise<void>((ready) => child.stdout!.on('data', (d: Buffer) => d.toString().includes('sleeper ready') && ready()));
      assert.equal((await ranksOf(sleeper)).length, 2, 'both tasks run before the signal');
      child.kill('SIGTERM');
      const r = await child;
      assert.notEqual(r.exitCode, 0);
      assert.match(r.stderr, /INCOMPLETE — 2 of 2 ranks left data/);
      assert.deepEqual(await ranksGone(sleeper), [], 'no task left running');
    }
  });

  it('without --launcher, mpii run inside salloc uses mpirun, which starts the ranks through the allocation', async () => {
    for (const f of FLAVORS) {
      const out = outDir(`slurm-mpirun-${f}`);
      await assertRing(await inAllocation(['run', '--tools', 'trace-count,monitor', '--out', out, '-np', '2', program(f, 'ring'), '4']), out, slurm.node);
    }
  });

  // What was found by running each MPI under each plugin here (docs/multihost.md, "Slurm").
  const wrong: [Flavor, string, RegExp][] = [
    ['openmpi', 'pmi2', /srun --mpi=pmi2 cannot start Open MPI programs \(MPI_Init fails.*— use --mpi=pmix/],
    ['mpich', 'pmix', /srun --mpi=pmix cannot start MPICH programs \(every task would start as a separate 1-rank job.*— use --mpi=pmi2/],
    ['mpich', 'none', /srun --mpi=none cannot start MPICH programs/],
  ];
  for (const [f, plugin, message] of wrong) {
    it(`${f} with --mpi=${plugin}: one-line error, nothing runs`, async () => {
      const r = await mpii(['run', '--launcher', 'srun', `--mpi=${plugin}`, '-np', '2', program(f, 'ring')], env);
      assert.equal(r.code, 2);
      assert.match(r.stderr.trim(), new RegExp(`^mpii: ${message.source}`));
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    });
  }

  it("the plugin the user names is kept when it works (--mpi pmix_vN for Open MPI, this Slurm's own)", async () => {
    // the versioned PMIx plugin this Slurm was built with: pmix_v4 in Debian 12's Slurm 22.05,
    // pmix_v5 in Debian 13's 24.11
    const list = await execa('srun', ['--mpi=list'], { env: { ...TEST_ENV, ...env }, reject: false });
    const plugin = `${list.stdout}\n${list.stderr}`.match(/\bpmix_v\d+\b/)?.[0];
    assert.ok(plugin, `srun --mpi=list names no pmix_vN plugin: ${list.stdout}${list.stderr}`);
    const out = outDir('slurm-pmix-vN');
    const r = await mpii(
      ['run', '--launcher', 'srun', '--mpi', plugin, '--tools', 'trace-count,monitor', '--out', out, '-n', '2', program('openmpi', 'ring'), '4'],
      env,
    );
    await assertRing(r, out, slurm.node);
  });

  it('doctor lists the plugins and which one each MPI gets', async () => {
    const r = await mpii(['doctor'], env);
    assert.match(r.stdout, /ok\s+Slurm: \S+srun, MPI plugins .*pmix.*\(Open MPI via --mpi=pmix, MPICH via --mpi=pmi2\)/);
  });

  it('--copy-shim outside an allocation: one-line error', async () => {
    const r = await mpii(['run', '--launcher', 'srun', '--copy-shim', '-np', '2', program('mpich', 'ring')], env);
    assert.equal(r.code, 2);
    assert.match(r.stderr.trim(), /^mpii: --copy-shim needs a Slurm allocation.* — run mpii inside salloc or an sbatch script$/);
  });
});

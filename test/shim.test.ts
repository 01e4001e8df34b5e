// The shim as a library: loads anywhere without libmpi, a warm cache, --dry-run, signals (concurrent
// cold builds: shim-cache.test.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { FLAVORS, MPII, TEST_ENV, launcherArgs, mpii, outDir, program, ranksGone, ranksOf, shimInfo } from './helpers.js';

for (const f of FLAVORS) {
  describe(`${f}: shim library`, () => {
    it('does not link libmpi and stays inert in non-MPI processes (even with LD_BIND_NOW)', async () => {
      const { library } = await shimInfo(f);
      const dyn = await execa('readelf', ['-d', library]);
      assert.doesNotMatch(dyn.stdout, /NEEDED.*\[libmpi(ch)?\.so/);
      assert.match(dyn.stdout, /NEEDED.*\[libc\.so/);
      const r = await execa('sh', ['-c', 'echo inert; python3 -c "print(1)"'], { env: { ...TEST_ENV, LD_PRELOAD: library, LD_BIND_NOW: '1' } });
      assert.equal(r.stdout, 'inert\n1');
      assert.equal(r.stderr, '');
    });

    it('a warm run builds nothing', async () => {
      const a = await execa('node', [MPII, 'build', '--mpi', f], { env: TEST_ENV });
      assert.match(a.stdout, /\(cached\)/);
    });

    it("--dry-run prints the launcher command with the flavour's env flags", async () => {
      const r = await mpii(['run', '--dry-run', '--tools', 'trace-count[top=3]', '--out', '/tmp/x', ...launcherArgs(f, 2), program(f, 'ring'), '5']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^TOOLS=trace-count$/m);
      assert.match(r.stdout, /^MPII_OPT_1='?top=3'?$/m);
      const cmd = r.stdout.trim().split('\n').pop()!;
      if (f === 'openmpi') assert.match(cmd, /mpirun\.openmpi -x LD_PRELOAD=\S+libmpii\.so -x TOOLS=trace-count .*-np 2 --oversubscribe \S+ring 5$/);
      else assert.match(cmd, /(mpirun\.mpich|mpiexec\.hydra) -genv LD_PRELOAD \S+libmpii\.so -genv TOOLS trace-count .*-np 2 \S+ring 5$/);
    });

    it('a user LD_PRELOAD is kept for the ranks, after the shim', async () => {
      const r = await mpii(['run', '--dry-run', ...launcherArgs(f, 2), program(f, 'ring')], { LD_PRELOAD: '/usr/lib/libfoo.so' });
      assert.match(r.stdout, /^LD_PRELOAD=\S+libmpii\.so:\/usr\/lib\/libfoo\.so$/m);
    });

    it('SIGTERM to mpii tears the whole job down', async () => {
      const sleeper = program(f, 'sleeper');
      const child = execa('node', [MPII, 'run', '--quiet', '--tools', 'noop', '--out', outDir(`${f}-term`), ...launcherArgs(f, 2), sleeper], {
        env: TEST_ENV,
        reject: false,
      });
      await new Promise<void>((resolve) => child.stdout!.on('data', (d: Buffer) => d.toString().includes('sleeper ready') && resolve()));
      assert.equal((await ranksOf(sleeper)).length, 2, 'both ranks run before the signal');
      child.kill('SIGTERM');
      const r = await child;
      assert.notEqual(r.exitCode, 0);
      assert.deepEqual(await ranksGone(sleeper), [], 'no rank left running');
    });
  });
}

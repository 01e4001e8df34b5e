// Applications nobody here wrote, from the distribution: LAMMPS (Debian's lammps, built for Open
// MPI) runs a Lennard-Jones liquid (test/apps/in.lj, an input written here) the same under the
// tools as plain. Under memcheck, Open MPI's single-copy transfers (process_vm_readv into and out
// of guarded pages) must not fail: they used to print "Read -1, expected N, errno = 14" when a
// message landed on the last page of an earlier one that was not read yet.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { ROOT, TEST_ENV, launcherArgs, mpii, outDir } from './helpers.js';

const INPUT = join(ROOT, 'test', 'apps', 'in.lj');
/** The thermodynamic output lines (step, temperature, energies, pressure): the results. */
const thermo = (out: string) => out.split('\n').filter((l) => /^\s+\d+\s+[-\d.e]+\s+[-\d.e]+\s+[-\d.e]+\s+[-\d.e]+\s+[-\d.e]+\s*$/.test(l));

describe('openmpi: LAMMPS (Debian) under the tools', () => {
  it('memcheck, monitor and profile leave its results as they are, with no failed transfer', async () => {
    assert.ok(existsSync('/usr/bin/lmp'), 'lmp is installed by scripts/setup.sh (apt-get install lammps)');
    const plain = await execa('mpirun.openmpi', [...launcherArgs('openmpi', 2), 'lmp', '-in', INPUT, '-log', 'none'], { env: TEST_ENV, reject: false });
    assert.equal(plain.exitCode, 0, plain.stderr);
    const reference = thermo(plain.stdout);
    assert.equal(reference.length, 3, plain.stdout); // steps 0, 50, 100
    for (const stack of ['memcheck', 'monitor,profile']) {
      const r = await mpii(['run', '--tools', stack, '--out', outDir(`lammps-${stack}`), ...launcherArgs('openmpi', 2), 'lmp', '-in', INPUT, '-log', 'none']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(thermo(r.stdout), reference, stack);
      assert.doesNotMatch(r.stderr, /Read -1, expected|errno = 14/, stack);
    }
  });
});

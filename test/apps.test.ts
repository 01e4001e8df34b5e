// Applications nobody here wrote, from the distribution: LAMMPS (Debian's lammps, built for Open
// MPI) runs a Lennard-Jones liquid (test/apps/in.lj, an input written here) the same under the
// tools as plain. Under memcheck, Open MPI's single-copy transfers (process_vm_readv into and out
// of guarded pages) must not fail: they used to print "Read -1, expected N, errno = 14" when a
// message landed on the last page of an earlier one that was not read yet.
// NWChem (Debian's nwchem-openmpi and nwchem-mpich) runs a benzene DFT gradient
// (test/apps/c6h6-b3lyp.nw) under memcheck on both MPIs: Global Arrays' MPI_Accumulate and
// MPI_Get_accumulate with subarray types and ScaLAPACK's BLACS are the patterns that gave 147
// wrong overruns on MPICH in issue 31. A correct production code: no error, the same energy.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { memcheckRuns } from '../preload/tools/memcheck/report.js';
import { readProfile } from '../src/profile-file/read.js';
import { FLAVORS, ROOT, TEST_ENV, launcherArgs, mpii, outDir } from './helpers.js';

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

const NWCHEM_INPUT = join(ROOT, 'test', 'apps', 'c6h6-b3lyp.nw');
/** The total DFT energy in hartree. Its last digits vary from run to run plain (Global Arrays'
 * dynamic load balancing sums in another order: 6e-12 seen), so results agree to 1e-8. */
const dftEnergy = (out: string) => Number(/Total DFT energy =\s+(-?\d+\.\d+)/.exec(out)?.[1]);

for (const f of FLAVORS) {
  describe(`${f}: NWChem (Debian) under memcheck`, () => {
    it('reports no error on a correct code and leaves its energy as plain', async () => {
      const bin = `/usr/bin/nwchem.${f}`;
      assert.ok(existsSync(bin), `${bin} is installed by scripts/setup.sh (apt-get install nwchem-${f})`);
      // Debian's MPICH build needs ARMCI's windows on the program's memory (MPI_Win_create) to run at all.
      const env = { ...TEST_ENV, ARMCI_USE_WIN_ALLOCATE: '0', OMP_NUM_THREADS: '1' };
      const dir = outDir(`nwchem-${f}`);
      mkdirSync(dir, { recursive: true }); // NWChem writes its scratch files where it runs
      const plain = await execa(`mpirun.${f}`, [...launcherArgs(f, 2), bin, NWCHEM_INPUT], { env, cwd: dir, reject: false });
      assert.equal(plain.exitCode, 0, plain.stdout.slice(-2000) + plain.stderr);
      const reference = dftEnergy(plain.stdout);
      assert.ok(reference < -232, plain.stdout.slice(-2000));
      const out = join(dir, 'memcheck');
      const r = await mpii(['run', '--tools', 'memcheck', '--out', out, ...launcherArgs(f, 2), bin, NWCHEM_INPUT], env, dir);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /DFT ENERGY GRADIENTS/);
      assert.ok(Math.abs(dftEnergy(r.stdout) - reference) < 1e-8, `${dftEnergy(r.stdout)} against ${reference}`);
      const [run] = memcheckRuns(readProfile(out));
      assert.ok(run, 'no memcheck run in the profile');
      assert.deepEqual(run.errors, [], JSON.stringify(run.errors).slice(0, 2000));
      // hints may appear (a broadcast rank 1 never reads, ScaLAPACK's dlaset_ over received data:
      // docs/tools/memcheck.md), and every one of them is a hint
      for (const h of run.hints) assert.equal(h.class, 'hint', h.kind);
    });
  });
}

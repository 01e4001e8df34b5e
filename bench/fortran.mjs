// bench/fortran.mjs - what the shim's Fortran entry points cost: an 8-byte Fortran ping-pong
// (bench/pingpong_f.F90, -np 2, shared memory) through `use mpi_f08` and `mpif.h`, plain against
// `mpii run` with an empty stack (the shim's Fortran entry point converts the arguments and calls
// the C library directly, instead of the MPI's own Fortran binding) and with one noop layer.
// Interleaved rounds, medians of the half round trip, ratios printed side by side.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MPII, ROOT, installedFlavors, log, lpad, median, pad, run, shuffle } from './common.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const ITERS = process.env.ITERS ?? '50000';
const work = mkdtempSync(join(tmpdir(), 'mpii-bench-f-'));
try {
  for (const fl of installedFlavors()) {
    const fc = fl.cc.replace('mpicc', 'mpif90');
    const configs = [];
    for (const iface of ['F08', 'MPIFH']) {
      const exe = join(work, `pp-${fl.name}-${iface}`);
      run([fc, '-O2', '-cpp', ...(iface === 'F08' ? ['-DUSE_F08'] : ['-fallow-argument-mismatch']), '-o', exe, join(ROOT, 'bench', 'pingpong_f.F90')]);
      const launch = ['-np', '2', ...fl.extra];
      configs.push({ name: `${iface} plain`, argv: [fl.run, ...launch, exe, ITERS] });
      configs.push({
        name: `${iface} mpii empty stack`,
        argv: ['node', MPII, 'run', '--quiet', '--tools', '', '--out', join(work, 'o'), '--force', ...launch, exe, ITERS],
      });
      configs.push({
        name: `${iface} mpii noop`,
        argv: ['node', MPII, 'run', '--quiet', '--tools', 'noop', '--out', join(work, 'o'), '--force', ...launch, exe, ITERS],
      });
    }
    const t = new Map(configs.map((c) => [c.name, []]));
    for (let r = 1; r <= ROUNDS; r++) {
      log(`${fl.label}: round ${r}/${ROUNDS}`);
      for (const c of shuffle(configs)) t.get(c.name).push(Number(/half_rtt_ns=([\d.]+)/.exec(run(c.argv).stdout)[1]));
    }
    console.log(`${fl.label}: Fortran 8-byte ping-pong, half round trip, median of ${ROUNDS} interleaved rounds`);
    for (const c of configs) {
      const base = median(t.get(`${c.name.split(' ')[0]} plain`));
      console.log(`  ${pad(c.name, 24)} ${lpad(median(t.get(c.name)).toFixed(1), 8)} ns  ${(median(t.get(c.name)) / base).toFixed(3)}×`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

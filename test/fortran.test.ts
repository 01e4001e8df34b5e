// Fortran programs through the shim, both MPIs, all three bindings (mpif.h, use mpi, use mpi_f08):
// test/programs/fortran_halo.F90 (a token ring and a 1-D halo exchange) must print what it prints
// without mpii, every call must reach the tools (exact trace-count and monitor numbers; among the
// sends two sections with gaps, which mpi_f08 passes as descriptors on MPICH and Open MPI 6), overlap
// must really convert the Fortran receives (and MPI_GET_COUNT still see a short message's count:
// the status is the program's own, not a copy), and INJ_IGNORE=1 must switch everything off.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { FLAVORS, TEST_ENV, fortranProgram, launcherArgs, mpii, outDir, type Flavor } from './helpers.js';
import { readProfile } from '../src/profile-file/read.js';
import { overlapRuns, overlapTotals } from '../preload/tools/overlap/report.js';

const LAUNCHER: Record<Flavor, string> = { openmpi: 'mpirun.openmpi', mpich: 'mpiexec.mpich' };
const IFACES = ['MPIFH', 'MPI', 'F08'] as const;
const ITERS = 5; // fortran_halo.F90's `iters`
const N = 512; // its column length (doubles)

const okLine = (s: string) => s.split('\n').find((l) => l.startsWith('fortran_halo '));

async function plain(f: Flavor, np: number, prog: string): Promise<string> {
  const r = await execa(LAUNCHER[f], [...launcherArgs(f, np), prog], { env: TEST_ENV, reject: false, timeout: 120_000 });
  assert.equal(r.exitCode, 0, r.stderr);
  const line = okLine(r.stdout);
  assert.match(line ?? '', /^fortran_halo ok size=/);
  return line!;
}

/** Point-to-point messages and bytes rank r sends to each peer in fortran_halo with np ranks. */
function expectedP2p(np: number, r: number): Map<number, { count: number; bytes: number }> {
  const m = new Map<number, { count: number; bytes: number }>();
  const add = (peer: number, count: number, bytes: number) => {
    if (peer === r) return; // a one-rank ring talks to itself: not counted
    const e = m.get(peer) ?? { count: 0, bytes: 0 };
    m.set(peer, { count: e.count + count, bytes: e.bytes + bytes });
  };
  add((r + 1) % np, ITERS, ITERS * 4); // the ring token
  if (r + 1 < np) add(r + 1, 2 * ITERS, 2 * ITERS * N * 8); // halo to the right: Sendrecv + Isend
  if (r > 0) add(r - 1, 2 * ITERS, 2 * ITERS * N * 8); // and to the left
  if (r === 0) add(1, 3, 2 * (N / 2) * 8 + (N / 4) * 8); // the two sections with gaps, the short message
  return m;
}

for (const f of FLAVORS) {
  const np = f === 'mpich' ? 2 : 3; // MPICH busy-polls: 2 ranks on 2 cores
  for (const iface of IFACES) {
    describe(`${f}: Fortran ${iface === 'MPIFH' ? 'mpif.h' : iface === 'MPI' ? 'use mpi' : 'use mpi_f08'}`, () => {
      it(`ring + halo under trace-count and monitor: same output, every call counted (np ${np})`, async () => {
        const prog = fortranProgram(f, 'fortran_halo', iface);
        const want = await plain(f, np, prog);
        const out = outDir(`fortran-${f}-${iface}`);
        const r = await mpii(['run', '--quiet', '--tools', 'trace-count,monitor', '--out', out, ...launcherArgs(f, np), prog]);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(okLine(r.stdout), want);
        const rep = await mpii(['report', out, '--json', '--ranks']);
        assert.equal(rep.code, 0, rep.stderr);
        const json = JSON.parse(rep.stdout);
        const rows = new Map<string, { total: number; min: number; max: number }>(
          json.traceCount[0].rows.map((x: { fn: string; total: number; min: number; max: number }) => [x.fn, x]),
        );
        const count = (fn: string) => rows.get(fn)?.total ?? 0;
        assert.equal(count('MPI_Init'), np);
        assert.equal(count('MPI_Finalize'), np);
        assert.equal(count('MPI_Send'), np * ITERS + 3); // + the two sections with gaps, the short message
        assert.equal(count('MPI_Recv'), np * ITERS + 3);
        assert.equal(count('MPI_Get_count'), ITERS + 1); // rank 0's ring, rank 1's short message
        assert.equal(count('MPI_Sendrecv'), 2 * np * ITERS);
        assert.equal(count('MPI_Isend'), 2 * np * ITERS);
        assert.equal(count('MPI_Irecv'), 2 * np * ITERS);
        assert.equal(count('MPI_Waitall'), np * ITERS);
        assert.equal(count('MPI_Allreduce'), np * (ITERS + 1));
        for (const fn of ['MPI_Cart_create', 'MPI_Cart_shift', 'MPI_Comm_free', 'MPI_Comm_rank', 'MPI_Comm_size']) {
          assert.equal(count(fn), np, fn);
        }
        const ranks = json.monitor[0].ranks as Array<{ rank: number; peers: Array<{ peer: number; p2p: { count: number; bytes: number } }> }>;
        assert.equal(ranks.length, np);
        for (const rk of ranks) {
          const got = new Map(rk.peers.filter((p) => p.p2p.count > 0).map((p) => [p.peer, p.p2p]));
          assert.deepEqual(got, expectedP2p(np, rk.rank), `rank ${rk.rank}`);
        }
      });

      it('under overlap (paging, adaptive): same output, Fortran receives converted; INJ_IGNORE=1 records nothing', async () => {
        const prog = fortranProgram(f, 'fortran_halo', iface);
        const want = await plain(f, np, prog);
        for (const mode of ['paging', 'adaptive']) {
          const out = outDir(`fortran-ov-${f}-${iface}`);
          const r = await mpii(['run', '--quiet', '--tools', `overlap[mode=${mode}]`, '--out', out, ...launcherArgs(f, np), prog]);
          assert.equal(r.code, 0, r.stderr);
          assert.equal(okLine(r.stdout), want, mode);
          const t = overlapTotals(overlapRuns(readProfile(out))[0]);
          assert.ok((t['receives converted'] ?? 0) > 0, `${mode}: ${JSON.stringify(t)}`);
          assert.ok((t['sendrecvs converted'] ?? 0) > 0, `${mode}: ${JSON.stringify(t)}`);
          assert.ok((t['sends converted'] ?? 0) > 0, `${mode}: ${JSON.stringify(t)}`);
        }
        const out = outDir(`fortran-ign-${f}-${iface}`);
        const r = await mpii(['run', '--quiet', '--tools', 'overlap,trace-count', '--out', out, ...launcherArgs(f, np), prog], { INJ_IGNORE: '1' });
        assert.equal(r.code, 0, r.stderr);
        assert.equal(okLine(r.stdout), want);
        assert.throws(() => readProfile(out), /holds no mpii profile/);
      });
    });
  }
}

// The profile's file while the job runs, on real jobs of both MPIs: 4 ranks on one host keep their
// images in one file, <out>/node-<host>.live (preload/core/node_file.c), not one per rank; what
// they counted survives a rank killed with SIGKILL and a rank that aborts, every rank of it; a job
// that finishes leaves profile.mpii and no .live file; a file size limit costs no rank its counts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { FLAVORS, MPII, TEST_ENV, launcherArgs, mpii, outDir, program, ranksGone, ranksOf, type Flavor } from './helpers.js';
import { readProfile, type Profile } from '../src/profile-file/read.js';
import { liveImages } from '../src/profile-file/live.js';

const NP = 4;
const NODE_FILE = `node-${hostname()}.live`;

const liveFiles = (out: string) => readdirSync(out).filter((f) => f.endsWith('.live'));

/** trace-count's count of `fn` on each rank, in rank order. */
function counts(p: Profile, fn: string): number[] {
  return p.ranks.map((r) => {
    const calls = r.counters.find((c) => c.name === 'calls' && r.tools.get(c.tool) === 'trace-count');
    assert.ok(calls, `rank ${r.rank} has its calls`);
    return Number(calls.nonzero.get(calls.labels.indexOf(fn)) ?? 0n);
  });
}

/** A private copy of the sleeper (runs until killed), so pgrep finds this test's ranks only. */
function sleeperCopy(f: Flavor): string {
  const p = join(mkdtempSync(join(tmpdir(), 'mpii-sleep-')), `sleeper-${f}-${process.pid}`);
  copyFileSync(program(f, 'sleeper'), p);
  return p;
}

async function until(what: string, ok: () => boolean, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!ok()) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${limitMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

for (const f of FLAVORS) {
  describe(`one profile file per host (${f}, ${NP} ranks)`, () => {
    it('while the job runs: one node file holding the 4 images; a rank killed with SIGKILL: the same file, every rank in the report', async () => {
      const sleeper = sleeperCopy(f);
      const out = outDir(`${f}-node-kill`);
      const child = execa('node', [MPII, 'run', '--quiet', '--tools', 'trace-count', '--out', out, ...launcherArgs(f, NP), sleeper], {
        env: TEST_ENV,
        reject: false,
        timeout: 120_000,
      });
      await new Promise<void>((ready) => child.stdout!.on('data', (d: Buffer) => d.toString().includes('sleeper ready') && ready()));
      // every rank has its slot from the shim's start, before MPI_Init returns
      await until('4 images in the node file', () => liveImages(join(out, NODE_FILE)).length === NP);
      assert.deepEqual(liveFiles(out), [NODE_FILE]);
      // each rank has been through a barrier (the sleeper loops on them): then one dies
      await until('a barrier on every rank', () => {
        try {
          return counts(readProfile(out), 'MPI_Barrier').every((n) => n > 0);
        } catch {
          return false;
        }
      });
      const pids = await ranksOf(sleeper);
      assert.equal(pids.length, NP, 'every rank runs');
      process.kill(Number(pids[2]), 'SIGKILL');
      const r = await child;
      assert.notEqual(r.exitCode, 0, r.stderr);
      assert.deepEqual(await ranksGone(sleeper), [], 'no rank left running');
      assert.deepEqual(liveFiles(out), [NODE_FILE], 'the node file stays, and is the only one');
      const p = readProfile(out);
      assert.equal(p.complete, false);
      assert.deepEqual(
        p.ranks.map((x) => x.rank),
        [0, 1, 2, 3],
      );
      assert.deepEqual(counts(p, 'MPI_Init'), [1, 1, 1, 1]);
      assert.ok(
        counts(p, 'MPI_Barrier').every((n) => n > 0),
        String(counts(p, 'MPI_Barrier')),
      );
    });

    it('a rank that aborts: one node file, and the report of the crashed run has all 4 ranks with every call they made', async () => {
      const out = outDir(`${f}-node-crash`);
      const r = await mpii(['run', '--tools', 'trace-count', '--out', out, ...launcherArgs(f, NP), program(f, 'crash')]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /mpii profile: INCOMPLETE — 4 of 4 ranks left data/);
      assert.deepEqual(liveFiles(out), [NODE_FILE]);
      const p = readProfile(out);
      assert.deepEqual(
        p.ranks.map((x) => x.rank),
        [0, 1, 2, 3],
      );
      // crash.c: 100 rounds of a send, a receive and a barrier on every rank, then rank 1 aborts
      assert.deepEqual(counts(p, 'MPI_Send'), [100, 100, 100, 100]);
      assert.deepEqual(counts(p, 'MPI_Recv'), [100, 100, 100, 100]);
      assert.ok(
        counts(p, 'MPI_Barrier').every((n) => n >= 100),
        String(counts(p, 'MPI_Barrier')),
      );
    });

    it('a job that finishes: profile.mpii, the node file removed by the last rank out', async () => {
      const out = outDir(`${f}-node-ok`);
      const r = await mpii(['run', '--quiet', '--tools', 'trace-count', '--out', out, ...launcherArgs(f, NP), program(f, 'ring')]);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(existsSync(join(out, 'profile.mpii')));
      assert.deepEqual(liveFiles(out), []);
      const p = readProfile(out);
      assert.equal(p.complete, true);
      assert.deepEqual(counts(p, 'MPI_Init'), [1, 1, 1, 1]);
    });

    it("a launcher that loses the exit code (exits 0 whatever the ranks did): the crashed ranks' images give exit 1 and one line; a clean run stays 0", async () => {
      // the MPI's own launcher, run by a stand-in of the same name first on PATH that always exits 0,
      // as MPICH 4.1-4.2.1's hydra sometimes does (pmodels/mpich#7057)
      const launcher = `mpirun.${f}`;
      const bin = mkdtempSync(join(tmpdir(), 'mpii-lossy-launcher-'));
      const real = (await execa('sh', ['-c', `command -v ${launcher}`])).stdout.trim();
      writeFileSync(join(bin, launcher), `#!/bin/sh\n${real} "$@"\nexit 0\n`, { mode: 0o755 });
      const env = { PATH: `${bin}:${TEST_ENV.PATH}` };
      const r = await mpii(['run', '--tools', 'trace-count', '--out', outDir(`${f}-node-lossy`), ...launcherArgs(f, NP), program(f, 'crash')], env);
      assert.equal(r.code, 1, r.stderr);
      assert.match(
        r.stderr,
        /^mpii: rank [\d, ]+ ended without MPI_Finalize \(the ranks' profile files say so\) but \S*mpirun\.\w+ exited 0 .*: mpii exits 1$/m,
      );
      const ok = await mpii(
        ['run', '--quiet', '--tools', 'trace-count', '--out', outDir(`${f}-node-lossy-ok`), ...launcherArgs(f, NP), program(f, 'ring')],
        env,
      );
      assert.equal(ok.code, 0, ok.stderr);
      assert.doesNotMatch(ok.stderr, /ended without MPI_Finalize/);
    });

    it('under a file size limit (ulimit -f): past it, a file of its own; below one slot, images in memory, still gathered', async () => {
      const run = (kib: number, out: string) =>
        execa(
          'bash',
          [
            '-c',
            `ulimit -f ${kib} && exec "$@"`,
            'bash',
            'node',
            MPII,
            'run',
            '--quiet',
            '--tools',
            'trace-count',
            '--out',
            out,
            ...launcherArgs(f, NP),
            program(f, 'ring'),
          ],
          {
            env: TEST_ENV,
            reject: false,
            timeout: 120_000,
          },
        );
      // one slot's length: the host file's first slot fits, the others are past the limit, so
      // their processes take node-<host>-<pid>.live (a slot 0 of their own); nothing is said
      const slot = (65536 + 64 * 1024 * 1024) / 1024;
      const fits = outDir(`${f}-node-fsize-fits`);
      const a = await run(slot, fits);
      assert.equal(a.exitCode, 0, a.stderr);
      assert.doesNotMatch(a.stderr, /cannot write the profile/);
      const pa = readProfile(fits);
      assert.equal(pa.complete, true);
      assert.deepEqual(counts(pa, 'MPI_Init'), [1, 1, 1, 1]);
      assert.deepEqual(liveFiles(fits), []);
      // a KiB less: no slot fits anywhere; each rank says so once (no SIGXFSZ), keeps its image in
      // memory, and the gather still writes every rank's counts
      const none = outDir(`${f}-node-fsize-none`);
      const b = await run(slot - 1, none);
      assert.equal(b.exitCode, 0, b.stderr);
      assert.equal(b.stderr.match(/cannot write the profile in .* \(File too large\): results are kept in memory only/g)?.length, NP, b.stderr);
      const pb = readProfile(none);
      assert.equal(pb.complete, true);
      assert.deepEqual(counts(pb, 'MPI_Init'), [1, 1, 1, 1]);
      assert.deepEqual(liveFiles(none), []);
    });
  });
}

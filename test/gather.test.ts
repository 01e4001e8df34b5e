// The end of the job on real jobs, both MPIs: every rank's image reaches profile.mpii whole and
// in rank order through the group leaders of preload/core/gather.c (groups of ⌈√N⌉ ranks), with
// the writer rank 0 and leading its own group, and with the writer a rank in the middle (the
// first that sees mpii's mark file), leading a group whose lowest rank is not itself.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, openSync, readSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { FLAVORS, TEST_ENV, launcherArgs, mpii, outDir, program, type Flavor } from './helpers.js';
import { readProfile } from '../src/profile-file/read.js';
import { readImageHeader, readProfileHeader, STRUCTS } from '../src/profile-file/format.gen.js';
import { monitorRuns } from '../preload/tools/monitor/report/data.js';

/** The ranks of profile.mpii's images in the order they are in the file. */
function imageOrder(out: string): number[] {
  const fd = openSync(join(out, 'profile.mpii'), 'r');
  try {
    const head = Buffer.alloc(STRUCTS.profile_header.size);
    readSync(fd, head, 0, head.length, 0);
    const n = readProfileHeader(head).nranks;
    const img = Buffer.alloc(STRUCTS.image_header.size);
    const ranks: number[] = [];
    for (let i = 0, at = head.length; i < n; i++) {
      readSync(fd, img, 0, img.length, at);
      const h = readImageHeader(img);
      ranks.push(h.rank);
      at += (h.used + 7) & ~7;
    }
    return ranks;
  } finally {
    closeSync(fd);
  }
}

/** What gather_ring did, read back: rank r sent r + 1 messages of 8 bytes to r + 1. */
function checkRing(out: string, np: number): void {
  assert.deepEqual(
    imageOrder(out),
    Array.from({ length: np }, (_, r) => r),
  );
  const p = readProfile(out);
  assert.equal(p.complete, true);
  const [run] = monitorRuns(p);
  assert.equal(run.ranks.length, np);
  for (const r of run.ranks) {
    const next = (r.rank + 1) % np;
    assert.deepEqual(r.peers.get(next)?.p2p, { count: r.rank + 1, bytes: 8 * (r.rank + 1) }, `rank ${r.rank} to ${next}`);
  }
  assert.deepEqual(
    readdirSync(out).filter((f) => f.endsWith('.live')),
    [],
    'the node files are removed once the profile is written',
  );
}

/** The ranks' environment `mpii run --dry-run` plans (NAME=value lines, shell-quoted values). */
async function plannedEnv(f: Flavor, out: string, np: number): Promise<Record<string, string>> {
  const r = await mpii(['run', '--dry-run', '--tools', 'monitor', '--out', out, ...launcherArgs(f, np), program(f, 'gather_ring')]);
  assert.equal(r.code, 0, r.stderr);
  const env: Record<string, string> = {};
  for (const line of r.stdout.split('\n')) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) env[m[1]] = m[2].replace(/^'(.*)'$/, '$1');
  }
  assert.ok(env.LD_PRELOAD && env.MPII_OUT, r.stdout);
  return env;
}

for (const f of FLAVORS) {
  describe(`the end of the job on ${f}`, () => {
    it('7 ranks (groups 0-2 led by the writer, 3-5, and 6 alone): every image whole, in rank order', async () => {
      const out = outDir(`${f}-gather7`);
      const r = await mpii(['run', '--quiet', '--tools', 'monitor', '--out', out, ...launcherArgs(f, 7), program(f, 'gather_ring')]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /gather_ring ok size=7/);
      checkRing(out, 7);
    });

    it('9 ranks, the writer rank 5 (ranks 0-4 do not see the mark): it leads ranks 3-5, 0 and 6 lead theirs', async () => {
      const out = outDir(`${f}-gather9`);
      const env = await plannedEnv(f, out, 9);
      mkdirSync(out, { recursive: true });
      const mark = join(out, '.mark');
      writeFileSync(mark, '');
      delete env.MPII_RUN_MARK;
      const prog = program(f, 'gather_ring');
      const vars = (extra: Record<string, string>) =>
        Object.entries({ ...env, ...extra }).flatMap(([k, v]) => (f === 'openmpi' ? ['-x', `${k}=${v}`] : ['-env', k, v]));
      const [launcher, np] = f === 'openmpi' ? ['mpirun.openmpi', '-np'] : ['mpiexec.mpich', '-n'];
      const args = [
        ...(f === 'openmpi' ? ['--oversubscribe'] : []),
        np,
        '5',
        ...vars({ MPII_RUN_MARK: join(out, 'no-such-mark') }),
        prog,
        ':',
        np,
        '4',
        ...vars({ MPII_RUN_MARK: mark }),
        prog,
      ];
      const r = await execa(launcher, args, { env: TEST_ENV, reject: false, timeout: 240_000 });
      assert.equal(r.exitCode, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /shares the output directory/, 'rank 5 sees the mark: it writes, silently');
      checkRing(out, 9);
    });
  });
}

// The node files a running (or crashed) job keeps its images in, <out>/node-<host>.live (a header
// page, then a slot per process: preload/core/node_file.c): the slots claimed, moved and released
// by processes at once (test/programs/node_file_unit.c, compiled with cc and linked with
// node_file.c), and the reader on synthetic files: every claimed slot that holds an image, none
// released or never written, a torn file, the one-image files of mpii before node files beside
// them, and the output directory's check. No MPI job.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { profileBytes, profileDir, readProfile, readProfileAsync, stoppedRanks } from '../src/profile-file/read.js';
import { liveImages } from '../src/profile-file/live.js';
import { NODE_FILE } from '../src/profile-file/format.gen.js';
import { nodeFileBytes, rankImage, synthRank, writeNodeFile, type SynthRank } from '../src/profile-file/synthetic.js';
import { prepareOutDir } from '../src/run/output-dir.js';
import { MPII, ROOT } from './helpers.js';
import { runCUnit } from './c-unit.js';

const fresh = (tag: string) => mkdtempSync(join(tmpdir(), `mpii-node-${tag}-`));

/** Rank r of a crashed job of `size`, as its slot holds it: running, its calls counted. */
const running = (r: number, size = 4, state: SynthRank['state'] = 'running'): Buffer =>
  rankImage({
    rank: r,
    size,
    state,
    host: 'vm',
    tools: { 1: 'trace-count' },
    counters: [{ tool: 1, name: 'calls', length: 3, labels: 'MPI_Init\nMPI_Send\nMPI_Recv', entries: [0, 1, 1, 10 * (r + 1), 2, 20 * (r + 1)] }],
  });

/** Each rank's MPI_Send count, by rank. */
const sends = (dir: string) => readProfile(dir).ranks.map((r) => [r.rank, Number(r.counters.find((c) => c.name === 'calls')!.nonzero.get(1))]);

describe('node files: the slots (node_file.c)', () => {
  it('processes claiming at once get distinct slots; a move keeps the image at its address; the last release removes the file; a host file that cannot be used gives a file of its own; no descriptor is kept; ulimit -f is an error, not SIGXFSZ', () => {
    const dir = fresh('slots-c');
    // 8 processes: 3 and 7 move to a/sub, 0 and 6 crash in a, the others release; then 50 claims
    // and releases each in b, all at once
    const got = runCUnit(dir, 'node_file_unit', ['core/node_file.c'], [dir, '8', '50']);
    // and in c, d and e each claim takes a file of its own; f's program file is left as it was; g's
    // claims under a file size limit take a file of their own, or fail without killing the process
    assert.deepEqual(got, {
      distinct: 1,
      claimed: 8,
      live: 8,
      moved_ok: 2,
      crashed: 2,
      stayed: 2,
      churn_failures: 0,
      b_files: 0,
      bad: 0,
      own_files: 3,
      user_file_ok: 1,
      f_files: 0,
      fsize: 1,
    });
    // what the crashed and the moved processes left is read back, each in its directory
    const fill = (p: ReturnType<typeof readProfile>) => p.ranks.map((x) => [x.rank, x.texts.find((t) => t.name === 'fill')?.text.length]);
    assert.deepEqual(fill(readProfile(join(dir, 'a'))), [
      [0, 8192],
      [6, 8192],
    ]);
    assert.deepEqual(fill(readProfile(join(dir, 'a', 'sub'))), [
      [3, 8192],
      [7, 8192],
    ]);
    assert.deepEqual(
      readdirSync(join(dir, 'a')).filter((f) => f.endsWith('.live')),
      [`node-${hostname()}.live`],
    );
  });
});

describe('node files: the reader', () => {
  it('every claimed slot holding an image is a rank, in rank order whatever the slots; a released slot is skipped', () => {
    const dir = fresh('slots');
    // slots in the order the processes claimed them; slot 2 released (a spawned child that moved on)
    writeNodeFile(join(dir, 'node-vm.live'), [running(2), running(0), null, running(3), running(1)]);
    const p = readProfile(dir);
    assert.deepEqual(
      p.ranks.map((r) => r.rank),
      [0, 1, 2, 3],
    );
    assert.deepEqual(sends(dir), [
      [0, 10],
      [1, 20],
      [2, 30],
      [3, 40],
    ]);
    assert.equal(p.complete, false);
    assert.equal(p.size, 4);
    assert.equal(p.source, '4 image(s) in 1 .live file(s)');
    // sparse: 5 slots of 64 MiB, a few KiB allocated
    const st = statSync(join(dir, 'node-vm.live'));
    assert.equal(st.size, NODE_FILE.headerBytes + 5 * NODE_FILE.slotBytes);
    assert.ok(profileBytes(dir) < 1 << 20, `${profileBytes(dir)} bytes allocated`);
    assert.ok(profileBytes(dir) > 0);
  });

  it('a job on two hosts: one file each, read together; every rank finalized and present is complete', () => {
    const dir = fresh('hosts');
    const done = (r: number) => running(r, 4, 'finalized');
    writeNodeFile(join(dir, 'node-a.live'), [done(1), done(0)]);
    writeNodeFile(join(dir, 'node-b.live'), [done(3), null, done(2)]);
    const p = readProfile(dir);
    assert.deepEqual(
      p.ranks.map((r) => r.rank),
      [0, 1, 2, 3],
    );
    assert.equal(p.complete, true);
    assert.equal(p.source, '4 image(s) in 2 .live file(s)');
  });

  it('a torn file: a slot claimed past the end, a slot never written, a header never written, a slot cut short; a file removed since the listing', () => {
    const dir = fresh('torn');
    const path = join(dir, 'node-vm.live');
    // its last process removed it between the directory's listing and the read: nothing, no error
    assert.deepEqual(liveImages(join(dir, 'node-gone.live')), []);
    // 3 claimed: the third process died between its claim and growing the file
    writeNodeFile(path, [running(0), running(1)], { claimed: 3, live: 3 });
    assert.deepEqual(
      readProfile(dir).ranks.map((r) => r.rank),
      [0, 1],
    );
    // the second died before its image's magic went in: its slot is zeros
    writeNodeFile(path, [running(0), null], { live: 2 });
    assert.deepEqual(
      readProfile(dir).ranks.map((r) => r.rank),
      [0],
    );
    // a file made but its header never written (or nothing at all): no image, one line
    for (const bytes of [Buffer.alloc(0), Buffer.alloc(NODE_FILE.headerBytes)]) {
      writeFileSync(path, bytes);
      assert.deepEqual(liveImages(path), []);
      assert.throws(
        () => readProfile(dir),
        (e: Error & { fix?: string }) =>
          /holds no mpii profile \(no profile\.mpii, no image in its \.live files\)/.test(e.message) && /--out/.test(e.fix ?? ''),
      );
    }
    // cut inside an image: the image check names the slot
    writeNodeFile(path, [running(0), running(1)]);
    truncateSync(path, NODE_FILE.headerBytes + NODE_FILE.slotBytes + 200);
    assert.throws(() => readProfile(dir), /node-vm\.live \(slot 1\) is truncated \(200 of \d+ bytes\)/);
  });

  it("another file's magic, a newer node file, a corrupt header: one line naming the file and the fix", () => {
    const dir = fresh('bad');
    const path = join(dir, 'node-vm.live');
    writeFileSync(path, Buffer.concat([Buffer.from('NOTMPII!'), Buffer.alloc(100)]));
    assert.throws(() => readProfile(dir), /node-vm\.live is not an mpii node file \(bad magic\)/);
    writeNodeFile(path, [running(0)], { version: NODE_FILE.version + 1 });
    assert.throws(
      () => readProfile(dir),
      (e: Error & { fix?: string }) => {
        assert.match(e.message, new RegExp(`written by a newer mpii \\(node file format ${NODE_FILE.version + 1}, this one reads ${NODE_FILE.version}\\)`));
        assert.equal(e.fix, 'upgrade mpii to read it');
        return true;
      },
    );
    writeFileSync(path, nodeFileBytes([running(0)], { slotBytes: 8 }));
    assert.throws(() => readProfile(dir), /has a corrupt header \(slots of 8 bytes from byte 64\)/);
  });

  it('a crashed run of mpii before node files (rank-*.live, pid-*.live) still reads, beside a node file too', () => {
    const dir = fresh('old');
    for (const v of ['v1-crash', 'v2-crash']) {
      const from = join(ROOT, 'test', 'fixtures', 'profile-file', v);
      const into = join(dir, v);
      mkdirSync(into);
      const files = readdirSync(from).filter((f) => f.endsWith('.live'));
      assert.ok(files.some((f) => f.startsWith('rank-')));
      for (const f of files) copyFileSync(join(from, f), join(into, f));
      const p = readProfile(into);
      assert.deepEqual(
        p.ranks.map((r) => r.rank),
        [0, 1],
      );
      assert.equal(p.complete, false);
    }
    const mixed = fresh('mixed');
    writeFileSync(join(mixed, 'rank-0.live'), running(0));
    writeFileSync(join(mixed, 'pid-vm-77.live'), running(1));
    writeNodeFile(join(mixed, 'node-vm.live'), [running(3), running(2)]);
    assert.deepEqual(sends(mixed), [
      [0, 10],
      [1, 20],
      [2, 30],
      [3, 40],
    ]);
  });

  it('readProfileAsync reads node files as readProfile does', async () => {
    const dir = fresh('async');
    writeNodeFile(join(dir, 'node-vm.live'), [running(1), null, running(0)]);
    let calls = 0;
    const p = await readProfileAsync(dir, () => calls++);
    assert.deepEqual(
      p.ranks.map((r) => r.rank),
      [0, 1],
    );
    assert.equal(calls, 1, 'one report of progress per file');
  });

  it('stoppedRanks reads the slots: the aborted ranks, not the released slots, nothing of a file not mpii’s', () => {
    const dir = fresh('stopped');
    writeNodeFile(join(dir, 'node-vm.live'), [running(0), running(2, 4, 'aborted'), null, running(1, 4, 'aborted')]);
    writeNodeFile(join(dir, 'node-other.live'), [running(3, 4, 'aborted')], { version: NODE_FILE.version + 1 }); // a newer writer: passed over
    writeFileSync(join(dir, 'node-empty.live'), '');
    writeFileSync(join(dir, 'rank-5.live'), rankImage({ ...synthRank(6, 5), state: 'aborted' }));
    assert.deepEqual(stoppedRanks(dir), [1, 2, 5]);
  });

  it('profileDir takes a node file for its directory; mpii report of one reads the whole directory', async () => {
    const dir = fresh('dir');
    const path = writeNodeFile(join(dir, 'node-vm.live'), [running(0), running(1)]);
    assert.equal(profileDir(path), dir);
    const r = await execa('node', [MPII, 'report', '--json', path], { reject: false });
    assert.equal(r.exitCode, 0, r.stderr);
    const j = JSON.parse(r.stdout) as { complete: boolean; ranks: unknown[] };
    assert.equal(j.complete, false);
    assert.equal(j.ranks.length, 2);
  });

  it("mpii run's output directory: a node file is another run's profile, refused without --force, removed with it", () => {
    const dir = fresh('out');
    writeNodeFile(join(dir, 'node-vm.live'), [running(0)]);
    assert.throws(() => prepareOutDir(dir, false, false, []), /already holds a profile \(node-vm\.live\)/);
    prepareOutDir(dir, true, false, []);
    assert.deepEqual(readdirSync(dir), []);
  });
});

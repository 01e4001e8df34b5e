// Bad input that needs no MPI job: a damaged profile given to mpii report gives one clear line
// naming the problem and the fix, a non-zero exit, no stack trace, no HTML written. The bad input
// of mpii run and the other report errors are in bad-input.test.ts; the fuzzing in fuzz.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mpii, oneLineError } from './helpers.js';
import { writeGathered, writeSyntheticJob } from '../src/profile-file/synthetic.js';

describe('bad input to mpii report', () => {
  describe('mpii report on a damaged profile: one line, exit ≠ 0, no HTML written', () => {
    /** A fresh synthetic 4-rank job with monitor and profile data; returns its profile.mpii. */
    const job = (): { dir: string; file: string; bytes: Buffer } => {
      const dir = mkdtempSync(join(tmpdir(), 'mpii-bad-'));
      const file = writeSyntheticJob(dir, 4);
      return { dir, file, bytes: readFileSync(file) };
    };
    const both = async (dir: string, pattern: RegExp) => {
      oneLineError(await mpii(['report', dir]), pattern);
      const html = join(dir, 'report.html');
      oneLineError(await mpii(['report', dir, '--html', html]), pattern);
      assert.equal(existsSync(html), false);
      oneLineError(await mpii(['report', dir, '--json']), pattern);
    };

    it('truncated', async () => {
      const { dir, file, bytes } = job();
      writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
      await both(dir, /profile\.mpii.*truncated.*re-run the job/);
    });

    it('cut inside the file header', async () => {
      const { dir, file, bytes } = job();
      writeFileSync(file, bytes.subarray(0, 10));
      await both(dir, /not an mpii profile/);
    });

    it('a corrupt record', async () => {
      const { dir, file, bytes } = job();
      const b = Buffer.from(bytes);
      b.writeUInt32LE(77, 16 + 144); // rank 0's first record: an unknown kind
      writeFileSync(file, b);
      await both(dir, /corrupt|unknown record kind 77/);
      b.writeUInt32LE(3, 16 + 144);
      b.writeUInt32LE(0x7fffffff, 16 + 144 + 16); // a name longer than the image
      writeFileSync(file, b);
      await both(dir, /corrupt record/);
    });

    it('garbage over the data', async () => {
      const { dir, file, bytes } = job();
      const b = Buffer.from(bytes);
      for (let i = 200; i < b.length - 100; i += 7) b[i] = (i * 131) & 0xff;
      writeFileSync(file, b);
      const r = await mpii(['report', dir]);
      oneLineError(r, /^mpii: /);
    });

    it('a broken JSON block of a tool', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mpii-bad-json-'));
      writeGathered(dir, 1, (r) => ({
        rank: r,
        size: 1,
        tools: { 1: 'monitor' },
        texts: [{ tool: 1, name: 'memory', text: '{"table_bytes": 8' }],
        counters: [{ tool: 1, name: 'peers', length: 74, entries: [] }],
      }));
      await both(dir, /monitor's 'memory' block is corrupt/);
    });

    it('a profile from a newer mpii', async () => {
      const { dir, file, bytes } = job();
      const b = Buffer.from(bytes);
      b.writeUInt32LE(99, 8);
      writeFileSync(file, b);
      await both(dir, /written by a newer mpii \(format 99, this one reads \d+\).*upgrade mpii/);
    });

    it('a rank image from a newer mpii', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mpii-bad-newer-'));
      writeGathered(dir, 2, (r) => ({ rank: r, size: 2, tools: { 1: 'noop' } }));
      const file = join(dir, 'profile.mpii');
      const b = readFileSync(file);
      b.writeUInt32LE(7, 16 + 8); // rank 0's image header
      writeFileSync(file, b);
      await both(dir, /rank 0\) was written by a newer mpii \(format 7/);
    });

    it('an empty directory', async () => {
      await both(mkdtempSync(join(tmpdir(), 'mpii-empty-')), /holds no mpii profile/);
    });

    it('--html into a directory that does not exist', async () => {
      const { dir } = job();
      oneLineError(await mpii(['report', dir, '--html', join(dir, 'no', 'such', 'dir', 'r.html')]), /cannot write .*r\.html \(ENOENT\)/);
    });
  });
});

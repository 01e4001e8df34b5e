// The reader takes every format version mpii has written: real files of each (test/fixtures/
// profile-file, written by the writers of those versions) read as the reader before the
// generated contract read them; versions outside the range get one line naming the version and
// the fix. No MPI job runs here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { readProfile } from '../src/profile-file/read.js';
import { FORMAT_VERSION, OLDEST_VERSION } from '../src/profile-file/format.gen.js';
import { dumpProfile } from './profile-file-dump.js';
import { MPII, ROOT } from './helpers.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'profile-file');
const fixtures = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

/** The format version a fixture's files carry (the gathered header's, else the first image's). */
function versionOf(dir: string): number {
  const files = readdirSync(dir).filter((f) => f === 'profile.mpii' || f.endsWith('.live'));
  return readFileSync(join(dir, files[0])).readUInt32LE(8);
}

test('a fixture of every format version from the oldest read to the one written', () => {
  const have = new Set(fixtures.map((f) => versionOf(join(FIXTURES, f))));
  for (let v = OLDEST_VERSION; v <= FORMAT_VERSION; v++) assert.ok(have.has(v), `no fixture of format ${v} in ${FIXTURES}`);
  for (const f of fixtures) assert.equal(`v${versionOf(join(FIXTURES, f))}`, f.split('-')[0], `${f}: named after its version`);
});

for (const name of fixtures) {
  test(`format fixture ${name}: read as before, every block and every tool's numbers`, () => {
    const dir = join(FIXTURES, name);
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as unknown;
    const p = readProfile(dir);
    assert.ok(p.ranks.length > 0);
    assert.deepEqual(JSON.parse(JSON.stringify(dumpProfile(p))), expected);
  });
}

/** A copy of the v2 fixture whose gathered header (or one rank's image header) says `version`. */
function withVersion(version: number, where: 'file' | 'image'): string {
  const dir = mkdtempSync(join(tmpdir(), 'mpii-format-'));
  const buf = readFileSync(join(FIXTURES, 'v2-all', 'profile.mpii'));
  buf.writeUInt32LE(version, where === 'file' ? 8 : 16 + 8); // the first image starts after the 16-byte header
  writeFileSync(join(dir, 'profile.mpii'), buf);
  return dir;
}

test('a newer format: one line naming its version and the fix', () => {
  for (const where of ['file', 'image'] as const) {
    assert.throws(
      () => readProfile(withVersion(FORMAT_VERSION + 1, where)),
      (e: Error & { fix?: string }) => {
        assert.match(e.message, new RegExp(`written by a newer mpii \\(format ${FORMAT_VERSION + 1}, this one reads ${FORMAT_VERSION}\\)`));
        assert.equal(e.fix, 'upgrade mpii to read it');
        return true;
      },
    );
  }
});

test('a format older than the oldest read: one line naming its version and the fix', () => {
  assert.throws(
    () => readProfile(withVersion(OLDEST_VERSION - 1, 'file')),
    (e: Error & { fix?: string }) => {
      assert.match(e.message, new RegExp(`is in format ${OLDEST_VERSION - 1}, older than this mpii reads \\(${OLDEST_VERSION} to ${FORMAT_VERSION}\\)`));
      assert.match(e.fix ?? '', /read it with an mpii from before \w+, or re-run the job/);
      return true;
    },
  );
});

test('mpii report of a newer format: one line on stderr, exit 2, nothing else', async () => {
  const dir = withVersion(FORMAT_VERSION + 1, 'file');
  const r = await execa('node', [MPII, 'report', dir], { reject: false });
  assert.equal(r.exitCode, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`^mpii: .*profile\\.mpii was written by a newer mpii \\(format ${FORMAT_VERSION + 1}, .* — upgrade mpii to read it$`));
});

test('format 1 per-rank files of a crashed run read as incomplete', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mpii-format-'));
  for (const f of readdirSync(join(FIXTURES, 'v1-crash'))) if (f.endsWith('.live')) copyFileSync(join(FIXTURES, 'v1-crash', f), join(dir, f));
  const p = readProfile(dir);
  assert.equal(p.complete, false);
  assert.deepEqual(
    p.ranks.map((r) => r.rank),
    [0, 1],
  );
  assert.ok(p.ranks.some((r) => r.state !== 'finalized'));
});

test('stoppedRanks, unfinishedRanks: what the .live files say of how ranks ended, nothing once the profile is gathered', async () => {
  const { rankImage } = await import('../src/profile-file/synthetic.js');
  const { stoppedRanks, unfinishedRanks } = await import('../src/profile-file/read.js');
  const dir = mkdtempSync(join(tmpdir(), 'mpii-stopped-'));
  assert.deepEqual(stoppedRanks(join(dir, 'absent')), []);
  assert.deepEqual(unfinishedRanks(join(dir, 'absent')), []);
  writeFileSync(join(dir, 'rank-0.live'), rankImage({ rank: 0, size: 4, state: 'running', tools: {} }));
  writeFileSync(join(dir, 'rank-2.live'), rankImage({ rank: 2, size: 4, state: 'aborted', tools: {} }));
  writeFileSync(join(dir, 'rank-1.live'), rankImage({ rank: 1, size: 4, state: 'aborted', tools: {} }));
  writeFileSync(join(dir, 'rank-3.live'), rankImage({ rank: 3, size: 4, state: 'finalized', tools: {} }));
  // a process that never passed MPI_Init (size -1: MPI sessions only, or not there yet)
  writeFileSync(join(dir, 'pid-x-2.live'), rankImage({ rank: 5, size: -1, state: 'running', tools: {} }));
  writeFileSync(join(dir, 'pid-x-1.live'), 'not an image');
  assert.deepEqual(stoppedRanks(dir), [1, 2]);
  assert.deepEqual(unfinishedRanks(dir), [0]);
  writeFileSync(join(dir, 'profile.mpii'), '');
  assert.deepEqual(stoppedRanks(dir), []);
  assert.deepEqual(unfinishedRanks(dir), []);
});

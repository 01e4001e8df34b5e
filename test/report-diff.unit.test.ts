// `mpii report A B` (issue 25) on synthetic jobs of 8 and 12 ranks (exact numbers: call sites
// matched by call and location, a site that moved appears and vanishes, ranks only in B, the
// communication matrix's pairs), the errors and notes. Real runs and the page in Chromium are in
// report-diff.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProfile } from '../src/profile-file/read.js';
import { SYNTH_SITES, synthMessageBytes, synthMessages, synthRank, synthSiteCalls, writeGathered, writeSyntheticJob } from '../src/profile-file/synthetic.js';
import { diffRuns, toolChange, type RunDiff } from '../src/report/diff.js';
import type { ProfileDiff } from '../preload/tools/profile/report/diff.js';
import type { MonitorDiff } from '../preload/tools/monitor/report/diff.js';
import { formatDiff } from '../src/report/diff-text.js';
import { diffHtml } from '../src/report/diff-html.js';
import { profileRuns, runTotals, siteTotals } from '../preload/tools/profile/report/data.js';
import { writeRunInfo, type RunInfo } from '../src/report/run-info.js';
import { mpii } from './helpers.js';

/** The profile's and the monitor's comparisons (both runs of these tests have both). */
const profileOf = (d: RunDiff) => toolChange<ProfileDiff>(d, 'profile')!;
const monitorOf = (d: RunDiff) => toolChange<MonitorDiff>(d, 'monitor')!;

const tmp = () => mkdtempSync(join(tmpdir(), 'mpii-diff-'));
function job(n: number, tools?: string[]): string {
  const dir = tmp();
  writeSyntheticJob(dir, n, tools ? { tools } : {});
  return dir;
}
/** A job whose MPI_Comm_rank call moved to another address (another line of the program). */
function moved(n: number): string {
  const dir = tmp();
  writeGathered(dir, n, (r) => {
    const rank = synthRank(n, r);
    const sites = rank.counters!.find((c) => c.name === 'sites')!;
    const e = Array.from(sites.entries);
    for (let k = 1; k < e.length; k += 2) if (e[k] === 0x401400) e[k] = 0x401480;
    sites.entries = e;
    return rank;
  });
  return dir;
}
const info = (sha: string, args: string[] = []): RunInfo => ({
  mpii: '0.1.0',
  command: ['./app', ...args],
  launcher: 'mpirun.openmpi',
  launcherArgs: [],
  cwd: '/',
  mpi: 'Open MPI 4.1.4',
  flavor: 'openmpi',
  tools: [],
  program: { path: '/w/app', size: 100, mtime: '2024-01-01T00:00:00.000Z', sha256: sha.repeat(64) },
  started: '',
});

describe('mpii report A B (synthetic jobs)', () => {
  const A = job(8);
  const B = job(12);
  const pa = readProfile(A);
  const pb = readProfile(B);
  const d = diffRuns(pa, pb);

  it('totals, imbalance and ranks: B has 4 more ranks, listed with no A value', () => {
    const ta = runTotals(profileRuns(pa)[0]);
    const tb = runTotals(profileRuns(pb)[0]);
    assert.equal(profileOf(d).totals.a!.mpi, ta.mpi);
    assert.equal(profileOf(d).totals.b!.mpi, tb.mpi);
    assert.equal(profileOf(d).ranks.length, 12);
    const only = profileOf(d)
      .ranks.filter((r) => r.a === null)
      .map((r) => r.rank)
      .sort((x, y) => x - y);
    assert.deepEqual(only, [8, 9, 10, 11]);
    // ranks 0-7 did the same in both: no change
    for (const r of profileOf(d).ranks) if (r.rank < 8) assert.equal(r.change, 0, `rank ${r.rank}`);
    const changes = profileOf(d).ranks.map((r) => Math.abs(r.change));
    assert.deepEqual(
      changes,
      [...changes].sort((x, y) => y - x),
      'largest change first',
    );
    assert.match(d.notes.join('\n'), /A has 8 ranks, B 12/);
  });

  it("call sites matched by call and location; counts change by the new ranks' calls; sorted by change of time", () => {
    assert.equal(profileOf(d).sites.length, SYNTH_SITES.length);
    assert.ok(profileOf(d).sites.every((s) => s.status === 'both'));
    for (const s of profileOf(d).sites) {
      const i = SYNTH_SITES.findIndex((x) => s.location === `app+0x${x.addr.toString(16)}`);
      assert.ok(i >= 0, s.location);
      let extra = 0;
      for (let r = 8; r < 12; r++) extra += synthSiteCalls(r, i);
      assert.equal(s.count, extra, `${s.call} ${s.location}`);
    }
    const t = profileOf(d).sites.map((s) => Math.abs(s.time));
    assert.deepEqual(
      t,
      [...t].sort((x, y) => y - x),
    );
  });

  it('a call site that moved: the old one vanished, the new one appeared, both listed', () => {
    const m = diffRuns(pa, readProfile(moved(8)));
    const gone = profileOf(m).sites.filter((s) => s.status === 'vanished');
    const came = profileOf(m).sites.filter((s) => s.status === 'appeared');
    assert.deepEqual(
      gone.map((s) => [s.call, s.location]),
      [['MPI_Comm_rank', 'app+0x401400']],
    );
    assert.deepEqual(
      came.map((s) => [s.call, s.location]),
      [['MPI_Comm_rank', 'app+0x401480']],
    );
    assert.equal(came[0].a, null);
    assert.equal(came[0].b!.count, siteTotals(profileRuns(pa)[0]).find((t) => t.site.fn === 'MPI_Comm_rank')!.count);
    assert.equal(profileOf(m).sites.filter((s) => s.status === 'both' && (s.count !== 0 || s.time !== 0)).length, 0, 'nothing else changed');
    const text = formatDiff(m);
    assert.match(text, /call sites only in B \(appeared\) \(1\):\n {4}MPI_Comm_rank {2}app\+0x401480\n/);
    assert.match(text, /call sites only in A \(vanished\) \(1\):\n {4}MPI_Comm_rank {2}app\+0x401400\n/);
    assert.match(text, /new\/\d+/);
    assert.match(text, /\d+\/gone/);
  });

  it('communication matrix difference: the pairs of the new ranks, exact bytes and messages', () => {
    const pairs = monitorOf(d).pairs;
    // in A every rank sends to every other of 8; in B of 12: every pair changed (the bytes of
    // a pair depend on the ranks only, so pairs within 0-7 are the same and are left out)
    const expect = 12 * 11 - 0;
    const same = 8 * 7;
    assert.equal(monitorOf(d).pairsChanged, expect - same);
    for (const x of pairs) {
      assert.ok(x.from >= 8 || x.to >= 8, `${x.from}→${x.to}`);
      assert.equal(x.a.count, 0);
      assert.equal(x.b.count, synthMessages(x.from, x.to));
      assert.equal(x.b.bytes, synthMessages(x.from, x.to) * synthMessageBytes(x.from, x.to));
    }
    const b = pairs.map((x) => Math.abs(x.bytes));
    assert.deepEqual(
      b,
      [...b].sort((x, y) => y - x),
    );
  });

  it('text fits 80 columns; --top cuts every table', () => {
    const text = formatDiff(d, { top: 3 });
    assert.deepEqual(
      text.split('\n').filter((l) => [...l].length > 80),
      [],
    );
    assert.match(text, /MPI time per rank, largest change first \(3 of 12\):/);
    const pairs = text
      .split('pairs that changed')[1]
      .split('\n')
      .filter((l) => /^ {4}\d+ → \d+ /.test(l));
    assert.equal(pairs.length, 3);
    assert.match(text, /… 73 more pairs/);
  });

  it('HTML: the same rows', () => {
    const html = diffHtml(d, { top: 5 });
    const rows = (id: string) => html.split(`id="${id}"`)[1].split('</table>')[0].split('<tr>').length - 2;
    assert.equal(rows('diff-sites'), 5);
    assert.equal(rows('diff-pairs'), 5);
    assert.equal(rows('diff-ranks'), 4); // as the text: the ranks whose MPI time changed (the 4 new ones)
    assert.match(html, /<p class="warn note">Note: A has 8 ranks, B 12/);
    assert.doesNotMatch(html, /<(script|img|link)[^>]+src=/);
  });

  it('not comparable (different tools): one line, exit 2; a different program binary: a note', async () => {
    const C = job(8, ['profile']);
    const r = await mpii(['report', A, C]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(
      r.stderr,
      /^mpii: cannot compare .* \(tools: monitor,profile\) with .* \(tools: profile\): they ran different tools — compare two runs made with the same --tools/,
    );
    const X = job(8);
    const Y = job(8);
    writeRunInfo(X, info('a'));
    writeRunInfo(Y, info('b', ['--big']));
    const n = diffRuns(readProfile(X), readProfile(Y)).notes.join('\n');
    assert.match(n, /the program binary differs: A \/w\/app \(100 bytes, sha256 aaaaaaaaaaaa…\), B \/w\/app \(100 bytes, sha256 bbbbbbbbbbbb…\)/);
    assert.match(n, /the program's arguments differ: A \(none\), B --big/);
    writeRunInfo(Y, info('a'));
    assert.deepEqual(diffRuns(readProfile(X), readProfile(Y)).notes, [], 'same binary, same ranks: no note');
  });
});

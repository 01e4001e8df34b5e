// The report options a run was given are in its profile (the core's block "report-options"):
// `mpii report DIR` of the run prints what `mpii run` printed, and options given to it win.
// First on synthetic profiles (no MPI), then through real jobs on Open MPI and MPICH.
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProfile } from '../src/profile-file/read.js';
import { writeGathered, synthRank } from '../src/profile-file/synthetic.js';
import { recordedReportOptions } from '../src/profile-file/report-options.js';
import { formatSummary } from '../src/report/summary.js';
import { FLAVORS, launcherArgs, mpii, outDir, program } from './helpers.js';

const RECORDED = { 'trace-count': { top: 2 }, monitor: { top: 1, matrix: false }, profile: { top: 3 } };

/** A synthetic job of 6 ranks (trace-count, monitor, profile) whose ranks recorded `options` (raw text). */
function job(options?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'mpii-report-options-'));
  writeGathered(dir, 6, (r) => {
    const rank = synthRank(6, r, { tools: ['monitor', 'profile'] });
    if (options !== undefined) rank.texts!.push({ tool: 0, name: 'report-options', text: options });
    return rank;
  });
  return dir;
}

test('the recorded options are read back; unknown keys, wrong types and damaged text add nothing', () => {
  assert.deepEqual(recordedReportOptions(readProfile(job(JSON.stringify(RECORDED)))), RECORDED);
  assert.deepEqual(recordedReportOptions(readProfile(job(JSON.stringify({ top: 2, monitor: [1], profile: { top: 4, x: { y: 1 } } })))), {
    profile: { top: 4 },
  });
  assert.deepEqual(recordedReportOptions(readProfile(job('{"top": 2'))), {});
  assert.deepEqual(recordedReportOptions(readProfile(job())), {});
});

test("mpii report DIR starts from the recorded options; --top and the monitor's own --matrix and --no-matrix (its manifest's report flags) win", async () => {
  const dir = job(JSON.stringify(RECORDED));
  const p = readProfile(dir);
  const asRun = formatSummary(p, { toolOptions: RECORDED, color: false, filter: { top: RECORDED.profile.top } });
  const plain = await mpii(['report', dir]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(plain.stdout, asRun);
  assert.doesNotMatch(plain.stdout, /sender ↓/, 'matrix=false was recorded');
  assert.match(plain.stdout, /busiest/);
  // explicit options win: every table's rows from --top, the matrix with --matrix
  const top = await mpii(['report', dir, '--top', '5', '--matrix']);
  assert.equal(
    top.stdout,
    formatSummary(p, { top: 5, color: false, filter: { top: 5 }, toolOptions: { 'trace-count': {}, monitor: { matrix: true }, profile: {} } }),
  );
  assert.match(top.stdout, /sender ↓/);
  assert.notEqual(top.stdout, plain.stdout);
  // and a profile that recorded nothing reports as before
  const none = job();
  assert.equal((await mpii(['report', none])).stdout, formatSummary(readProfile(none), { color: false, filter: {} }));
  // the last of --matrix and --no-matrix wins
  assert.match((await mpii(['report', dir, '--no-matrix', '--matrix'])).stdout, /sender ↓/);
  assert.doesNotMatch((await mpii(['report', dir, '--matrix', '--no-matrix'])).stdout, /sender ↓/);
  assert.equal(
    (await mpii(['report', dir, '--no-matrix', '--top', '2'])).stdout,
    formatSummary(p, { top: 2, color: false, filter: { top: 2 }, toolOptions: { 'trace-count': {}, monitor: { matrix: false }, profile: {} } }),
  );
});

test('--json takes the recorded call-site rows unless --top is given', async () => {
  const dir = job(JSON.stringify({ profile: { top: 3 } }));
  const sites = (out: string) => (JSON.parse(out) as { profile: { sites: unknown[] }[] }).profile[0].sites.length;
  assert.equal(sites((await mpii(['report', dir, '--json'])).stdout), 3);
  assert.equal(sites((await mpii(['report', dir, '--json', '--top', '5'])).stdout), 5);
});

for (const f of FLAVORS) {
  describe(`report options through a real run (${f})`, () => {
    it('are recorded in the profile, and mpii report DIR prints what mpii run printed', async () => {
      const out = outDir(`report-options-${f}`);
      const tools = 'trace-count[top=2],monitor[top=1;matrix=false],profile[top=1]';
      const run = await mpii(['run', '--tools', tools, '--out', out, ...launcherArgs(f, 3), program(f, 'ring'), '4']);
      assert.equal(run.code, 0, run.stderr);
      const p = readProfile(out);
      const recorded = recordedReportOptions(p);
      assert.deepEqual([recorded['trace-count'].top, recorded.monitor.top, recorded.monitor.matrix, recorded.profile.top], [2, 1, false, 1]);
      assert.ok(
        p.ranks.every((r) => r.texts.some((t) => t.tool === 0 && t.name === 'report-options')),
        'every rank records them',
      );
      const again = await mpii(['report', out]);
      assert.equal(again.code, 0, again.stderr);
      assert.ok(run.stderr.includes(again.stdout), `mpii report printed:\n${again.stdout}\nmpii run printed:\n${run.stderr}`);
      assert.match(again.stdout, /… \d+ more functions/, 'trace-count top=2 kept');
      const wider = await mpii(['report', out, '--top', '20']);
      assert.doesNotMatch(wider.stdout, /more functions/);
    });
  });
}

// Progress of long work other than the shim build (`mpii report` reading a big profile, writing
// the HTML page of many ranks): when it is shown, and that it stays bounded. The decision is
// tested with stand-in streams, nothing here depends on how long anything takes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { BIG_PROFILE_BYTES, MANY_RANKS_HTML, progressMode, progressWorthIt, startProgress, type ProgressOutput } from '../src/cli/progress.js';
import { profileBytes, readProfile, readProfileAsync } from '../src/profile-file/read.js';
import { writeSyntheticJob } from '../src/profile-file/synthetic.js';
import { MPII, mpii, TEST_ENV } from './helpers.js';

/** A stream that keeps what is written: a terminal of `columns` when isTTY. */
function fakeStream(isTTY: boolean, columns?: number): ProgressOutput & { out: string } {
  const s = {
    isTTY, columns, out: '',
    write(chunk: string | Uint8Array) { s.out += chunk.toString(); return true; },
    cursorTo() { return true; }, moveCursor() { return true; }, clearLine() { return true; },
    on() { return s; }, once() { return s; }, emit() { return false; }, removeListener() { return s; },
  };
  return s as unknown as ProgressOutput & { out: string };
}

describe('progress: when, and how', () => {
  it('a spinner only on a terminal of known width (the shim build\'s rule), lines elsewhere, nothing when quiet', () => {
    assert.equal(progressMode(fakeStream(true, 80), {}), 'spinner');
    assert.equal(progressMode(fakeStream(true, 0), {}), 'lines');
    assert.equal(progressMode(fakeStream(true), {}), 'lines');
    assert.equal(progressMode(fakeStream(false, 80), {}), 'lines');
    assert.equal(progressMode(fakeStream(true, 80), { TERM: 'dumb' }), 'lines');
    assert.equal(progressMode(fakeStream(true, 80), { CI: '1' }), 'lines');
    assert.equal(progressMode(fakeStream(true, 80), {}, { quiet: true }), 'off');
    // --json: the spinner on a terminal, never lines in a script's log
    assert.equal(progressMode(fakeStream(true, 80), {}, { lines: false }), 'spinner');
    assert.equal(progressMode(fakeStream(false), {}, { lines: false }), 'off');
    assert.equal(progressMode(fakeStream(true, 0), {}, { lines: false }), 'off');
  });

  it('only for long work: a profile of more than 64 MiB, the page of 1024 ranks or more', () => {
    assert.equal(BIG_PROFILE_BYTES, 64 * 1024 * 1024);
    assert.equal(progressWorthIt({ profileBytes: BIG_PROFILE_BYTES }), false);
    assert.equal(progressWorthIt({ profileBytes: BIG_PROFILE_BYTES + 1 }), true);
    assert.equal(progressWorthIt({ htmlRanks: MANY_RANKS_HTML - 1 }), false);
    assert.equal(progressWorthIt({ htmlRanks: MANY_RANKS_HTML }), true);
    assert.equal(progressWorthIt({}), false);
  });

  it('lines: one when it starts, one when it ends, however many updates', async () => {
    const s = fakeStream(false);
    const p = await startProgress('mpii: reading', 'lines', s, {});
    for (let i = 0; i < 1000; i++) {
      p.update(`mpii: reading: ${i / 10}%`);
      p.show();
    }
    p.succeed('mpii: read');
    assert.deepEqual(s.out.split('\n'), ['- mpii: reading', '✔ mpii: read', '']);
  });

  it('spinner: drawn on the terminal, cut to its width, the cursor given back, a last line', async () => {
    const s = fakeStream(true, 30);
    const p = await startProgress(`mpii: reading ${'x'.repeat(100)}`, 'spinner', s, {});
    p.update('mpii: reading: 50%');
    p.show();
    p.succeed('mpii: read');
    assert.ok(s.out.startsWith('\x1b[?25l'), JSON.stringify(s.out.slice(0, 20)));
    assert.ok(s.out.includes(`mpii: reading ${'x'.repeat(12)}…`), 'the first text, cut to 27 columns');
    assert.ok(s.out.includes('mpii: reading: 50%'));
    assert.ok(s.out.endsWith('\x1b[?25h✔ mpii: read\n'), JSON.stringify(s.out.slice(-40)));
    const off = fakeStream(true, 80);
    const q = await startProgress('mpii: reading', 'off', off, {});
    q.show();
    q.succeed('mpii: read');
    assert.equal(off.out, '');
  });
});

describe('mpii report of a big job', () => {
  it('reads a profile of more than 64 MiB and writes the page of 1024 ranks with bounded progress', { timeout: 300_000 }, async () => {
    const base = mkdtempSync(join(tmpdir(), 'mpii-progress-'));
    try {
      const dir = join(base, 'job');
      writeSyntheticJob(dir, MANY_RANKS_HTML);
      const bytes = statSync(join(dir, 'profile.mpii')).size;
      assert.ok(bytes > BIG_PROFILE_BYTES, `${bytes} bytes`);
      assert.equal(profileBytes(dir), bytes);
      assert.equal(profileBytes(join(base, 'nothing')), 0);
      // the chunked read gives the same profile as the plain one, and says how far it got
      const seen: number[] = [];
      const a = await readProfileAsync(dir, (done, total) => { assert.equal(total, bytes); seen.push(done); });
      assert.equal(seen.at(-1), bytes);
      assert.ok(seen.length >= Math.floor(bytes / (4 << 20)), `${seen.length} steps`);
      const b = readProfile(dir);
      assert.equal(a.ranks.length, b.ranks.length);
      assert.deepEqual([...a.ranks[1000].counters[0].nonzero], [...b.ranks[1000].counters[0].nonzero]);

      // a pipe: a line when each piece of long work starts and one when it ends, nothing more
      const page = join(base, 'page.html');
      const r = await mpii(['report', dir, '--top', '3', '--html', page]);
      assert.equal(r.code, 0, r.stderr);
      const mib = `${(bytes / 1048576).toFixed(0)} MiB`;
      assert.deepEqual(r.stderr.trim().split('\n'), [
        `- mpii: reading the profile of ${dir} (${mib})`,
        `✔ mpii: read the profile of ${dir} (${mib}, 1024 ranks)`,
        `- mpii: writing the HTML report of 1024 ranks to ${page}`,
        `✔ wrote ${page} (${(statSync(page).size / 1024).toFixed(0)} KiB)`,
      ]);
      // (--json's choice, no lines into a pipe, is tested above: this job's JSON is longer than
      // a JavaScript string can be)

      if ((await execa('sh', ['-c', 'command -v script'], { reject: false })).exitCode !== 0) return;
      // a pseudo-terminal of 0 columns (as CI runners have): lines, a few hundred bytes
      const log0 = join(base, 'pty0');
      const z = await execa('script', ['-qec', `stty cols 0 rows 0; node ${MPII} report ${dir} --top 3 --html ${page} --force >/dev/null`, log0],
        { env: TEST_ENV, reject: false, stdin: 'ignore' });
      assert.equal(z.exitCode, 0, z.stdout);
      const out0 = readFileSync(log0, 'utf8');
      assert.ok(out0.length < 4096, `${out0.length} bytes of progress output`);
      assert.doesNotMatch(out0, /\x1b\[\?25l/, 'no spinner');
      assert.match(out0, /✔\S* mpii: read the profile/); // coloured: a terminal
      // a terminal of 80 columns: the spinner, and the cursor back at the end
      const log80 = join(base, 'pty80');
      // (as a person's terminal: not under CI=true, which CI runs set and which turns spinners off)
      const person: NodeJS.ProcessEnv = { ...TEST_ENV, TERM: 'xterm' };
      delete person.CI;
      const e = await execa('script', ['-qec', `stty cols 80 rows 24; node ${MPII} report ${dir} --top 3 --html ${page} --force >/dev/null`, log80],
        { env: person, extendEnv: false, reject: false, stdin: 'ignore' });
      assert.equal(e.exitCode, 0, e.stdout);
      const out80 = readFileSync(log80, 'utf8');
      assert.match(out80, /\x1b\[\?25l.*mpii: reading the profile/s);
      assert.match(out80, /\x1b\[\?25h\S*✔\S* wrote /);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('a small job\'s report says nothing more than before', async () => {
    const base = mkdtempSync(join(tmpdir(), 'mpii-progress-small-'));
    try {
      writeSyntheticJob(join(base, 'job'), 8);
      const page = join(base, 'p.html');
      const r = await mpii(['report', join(base, 'job'), '--html', page]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr.trim(), /^wrote \S+p\.html \(\d+ KiB\)$/);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

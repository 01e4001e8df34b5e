// Progress of `mpii report` on a big job: it reads a profile of more than 64 MiB and writes the page
// of 1024 ranks with bounded progress (when progress is shown: progress.unit.test.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { BIG_PROFILE_BYTES, MANY_RANKS_HTML } from '../src/cli/progress.js';
import { CHUNK_BYTES, profileBytes, readProfile, readProfileAsync } from '../src/profile-file/read.js';
import { writeSyntheticJob } from '../src/profile-file/synthetic.js';
import { MPII, mpii, TEST_ENV } from './helpers.js';

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
      const a = await readProfileAsync(dir, (done, total) => {
        assert.equal(total, bytes);
        seen.push(done);
      });
      assert.equal(seen.at(-1), bytes);
      assert.ok(seen.length >= Math.floor(bytes / CHUNK_BYTES), `${seen.length} steps of at most ${CHUNK_BYTES} bytes`);
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

      assert.equal(
        (await execa('sh', ['-c', 'command -v script'], { reject: false })).exitCode,
        0,
        'script (util-linux, from scripts/setup.sh) gives the pseudo-terminal',
      );
      // a pseudo-terminal of 0 columns (as CI runners have): lines, a few hundred bytes
      const log0 = join(base, 'pty0');
      const z = await execa('script', ['-qec', `stty cols 0 rows 0; node ${MPII} report ${dir} --top 3 --html ${page} --force >/dev/null`, log0], {
        env: TEST_ENV,
        reject: false,
        stdin: 'ignore',
      });
      assert.equal(z.exitCode, 0, z.stdout);
      const out0 = readFileSync(log0, 'utf8');
      assert.ok(out0.length < 4096, `${out0.length} bytes of progress output`);
      // eslint-disable-next-line no-control-regex -- the escape sequences of a terminal (ESC [) are what this looks for
      assert.doesNotMatch(out0, /\x1b\[\?25l/, 'no spinner');
      assert.match(out0, /✔\S* mpii: read the profile/); // coloured: a terminal
      // a terminal of 80 columns: the spinner, and the cursor back at the end
      const log80 = join(base, 'pty80');
      // (as a person's terminal: not under CI=true, which CI runs set and which turns spinners off)
      const person: NodeJS.ProcessEnv = { ...TEST_ENV, TERM: 'xterm' };
      delete person.CI;
      const e = await execa('script', ['-qec', `stty cols 80 rows 24; node ${MPII} report ${dir} --top 3 --html ${page} --force >/dev/null`, log80], {
        env: person,
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
      });
      assert.equal(e.exitCode, 0, e.stdout);
      const out80 = readFileSync(log80, 'utf8');
      // eslint-disable-next-line no-control-regex -- the escape sequences of a terminal (ESC [) are what this looks for
      assert.match(out80, /\x1b\[\?25l.*mpii: reading the profile/s);
      // eslint-disable-next-line no-control-regex -- the escape sequences of a terminal (ESC [) are what this looks for
      assert.match(out80, /\x1b\[\?25h\S*✔\S* wrote /);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it("a small job's report says nothing more than before", async () => {
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

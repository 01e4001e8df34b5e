// Progress of long work other than the shim build (`mpii report` reading a big profile, writing
// the HTML page of many ranks): when it is shown, and how. The decision is tested with stand-in
// streams, nothing here depends on how long anything takes. The big job itself: progress.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BIG_PROFILE_BYTES, MANY_RANKS_HTML, progressMode, progressWorthIt, startProgress, type ProgressOutput } from '../src/cli/progress.js';

/** A stream that keeps what is written: a terminal of `columns` when isTTY. */
function fakeStream(isTTY: boolean, columns?: number): ProgressOutput & { out: string } {
  const s = {
    isTTY,
    columns,
    out: '',
    write(chunk: string | Uint8Array) {
      s.out += chunk.toString();
      return true;
    },
    cursorTo() {
      return true;
    },
    moveCursor() {
      return true;
    },
    clearLine() {
      return true;
    },
    on() {
      return s;
    },
    once() {
      return s;
    },
    emit() {
      return false;
    },
    removeListener() {
      return s;
    },
  };
  return s as unknown as ProgressOutput & { out: string };
}

describe('progress: when, and how', () => {
  it("a spinner only on a terminal of known width (the shim build's rule), lines elsewhere, nothing when quiet", () => {
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

  it("lines: the lines ora writes when it does not spin, without ora (symbols, colour, a failure's last text)", async () => {
    const { default: ora } = await import('ora');
    const { default: chalk } = await import('chalk');
    chalk.level = 0; // log-symbols colours its symbols with chalk's shared instance (when first loaded)
    const byOra = fakeStream(false);
    const spin = ora({ text: 'mpii: reading', stream: byOra, isSilent: false, isEnabled: false }).start();
    spin.text = 'mpii: reading: 40%';
    spin.fail();
    spin.succeed('mpii: read');
    const s = fakeStream(false);
    const p = await startProgress('mpii: reading', 'lines', s, { NO_COLOR: '1' });
    p.update('mpii: reading: 40%');
    p.fail();
    p.succeed('mpii: read');
    p.stop();
    assert.equal(s.out, byOra.out);
    assert.equal(s.out, '- mpii: reading\n✖ mpii: reading: 40%\n✔ mpii: read\n');
    const colour = fakeStream(false);
    const q = await startProgress('mpii: reading', 'lines', colour, { FORCE_COLOR: '1' });
    q.succeed('mpii: read');
    assert.equal(colour.out, '- mpii: reading\n\x1b[32m✔\x1b[39m mpii: read\n');
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

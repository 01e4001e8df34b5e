// The CLI's pure decisions: when a spinner is drawn and how its line fits, when output is coloured;
// and how mpii ends when the reader of its output stops early.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fitLine, spinnerWanted } from '../src/cli/progress.js';
import { wantColor } from '../src/color.js';
import { writeSyntheticJob } from '../src/profile-file/synthetic.js';
import { MPII } from './helpers.js';

describe('progress spinner', () => {
  it('only on a terminal of known width, never with TERM=dumb or in CI', () => {
    assert.equal(spinnerWanted({ isTTY: true, columns: 80 }, {}), true);
    assert.equal(spinnerWanted({ isTTY: true, columns: 0 }, {}), false);
    assert.equal(spinnerWanted({ isTTY: true }, {}), false);
    assert.equal(spinnerWanted({ isTTY: true, columns: Number.NaN }, {}), false);
    assert.equal(spinnerWanted({ isTTY: false, columns: 80 }, {}), false);
    assert.equal(spinnerWanted({ columns: 80 }, {}), false);
    assert.equal(spinnerWanted({ isTTY: true, columns: 80 }, { TERM: 'dumb' }), false);
    assert.equal(spinnerWanted({ isTTY: true, columns: 80 }, { CI: 'true' }), false);
    assert.equal(spinnerWanted({ isTTY: true, columns: 80 }, { CI: 'false' }), true);
  });

  it('its line fits the terminal', () => {
    assert.equal(fitLine('abc', 80), 'abc');
    assert.equal(fitLine('x'.repeat(100), 20).length, 17);
    assert.equal(fitLine('x'.repeat(100), 1).length, 1);
    assert.equal(fitLine('x'.repeat(100), 0).length, 77); // unknown width: 80
  });
});

describe('colour: NO_COLOR and FORCE_COLOR', () => {
  it('the rule', () => {
    assert.equal(wantColor({ isTTY: true }, {}), true);
    assert.equal(wantColor({ isTTY: false }, {}), false);
    assert.equal(wantColor({ isTTY: true }, { NO_COLOR: '1' }), false);
    assert.equal(wantColor({ isTTY: true }, { NO_COLOR: '' }), true, 'an empty NO_COLOR is not set');
    assert.equal(wantColor({ isTTY: true }, { TERM: 'dumb' }), false);
    assert.equal(wantColor({ isTTY: false }, { FORCE_COLOR: '1' }), true);
    assert.equal(wantColor({ isTTY: false }, { FORCE_COLOR: '' }), true);
    assert.equal(wantColor({ isTTY: true }, { FORCE_COLOR: '0' }), false);
    assert.equal(wantColor({ isTTY: true }, { FORCE_COLOR: 'false' }), false);
    assert.equal(wantColor({ isTTY: false }, { FORCE_COLOR: '1', NO_COLOR: '1' }), true, 'FORCE_COLOR wins, as in Node');
  });
});

describe('a reader that stops early (mpii … | head)', () => {
  it('mpii stops quietly with exit 0: no EPIPE error, no stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-epipe-'));
    writeSyntheticJob(dir, 64); // its --json is megabytes: far more than a pipe holds, so the pipe breaks
    for (const args of [`report ${dir} --json`, `report ${dir}`, 'report --help', '--help']) {
      const r = spawnSync('bash', ['-c', `node ${MPII} ${args} | head -c 10 >/dev/null; echo "status=\${PIPESTATUS[0]}" >&2`], { encoding: 'utf8' });
      assert.equal(r.stderr, 'status=0\n', args);
    }
  });
});

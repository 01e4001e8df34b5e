// The synthetic profile writer (src/profile-file/synthetic.ts), which many unit tests build on: what it
// writes is read back exactly.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProfile } from '../src/profile-file/read.js';
import { synthRank, writeSyntheticJob } from '../src/profile-file/synthetic.js';
import { monitorRuns } from '../preload/tools/monitor/report/data.js';

describe('synthetic profiles', () => {
  it('read back exactly what was written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-synth-rt-'));
    writeSyntheticJob(dir, 8);
    const p = readProfile(dir);
    assert.equal(p.ranks.length, 8);
    assert.equal(p.complete, true);
    const mon = monitorRuns(p)[0];
    const r3 = synthRank(8, 3);
    assert.equal(mon.ranks[3].peers.size, 7);
    assert.equal(r3.counters![0].entries.length / 2, 7 * 5);
  });
});

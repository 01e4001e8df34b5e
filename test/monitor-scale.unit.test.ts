// The monitor's profile at scale without an MPI job: member lists as ranges and by hash
// (preload/tools/monitor/report/members.ts, the reader of comm_cache.c's labels), collectives
// counted on a communicator's record spread back over its members, and --json's per-rank rows
// only with --ranks (synthetic jobs: src/profile-file/synthetic.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemberLists, membersRef, parseMembers } from '../preload/tools/monitor/report/members.js';
import { monitorRuns, peerRows, totals } from '../preload/tools/monitor/report/data.js';
import { report as monitorReport } from '../preload/tools/monitor/report/index.js';
import { readProfile } from '../src/profile-file/read.js';
import { writeSyntheticJob } from '../src/profile-file/synthetic.js';

describe('monitor member lists', () => {
  it('ranges, strides and singles read as the members in order; a plain list as itself', () => {
    assert.deepEqual([...parseMembers('0-3,9,20-32:4,7').ranks], [0, 1, 2, 3, 9, 20, 24, 28, 32, 7]);
    assert.equal(parseMembers('0-3,9').list, '0,1,2,3,9');
    assert.equal(parseMembers('5,1,3').list, '5,1,3');
    assert.deepEqual([...parseMembers('-32766').ranks], [-32766]); // a member outside MPI_COMM_WORLD
    assert.throws(() => parseMembers('1-x'), /is not a rank or a range/);
  });

  it('a list named by its FNV-1a hash resolves to the one the lowest member wrote', () => {
    assert.equal(membersRef('a'), '@af63dc4c8601ec8c'); // the published FNV-1a 64 test vector
    const text = '0,7,2,9,4,11,6,1,8,3,10,5';
    const lists = new MemberLists();
    lists.add(text);
    assert.equal(lists.resolve(membersRef(text)), text);
    assert.equal(lists.resolve('@0000000000000000'), undefined);
    assert.equal(lists.resolve('0-3'), '0-3');
  });
});

describe('monitor: collectives counted per communicator, reports at scale', () => {
  const dir = (name: string) => join(mkdtempSync(join(tmpdir(), 'mpii-mon-scale-')), name);
  it('a job whose collectives were spread reports the same peers and totals as one counted per peer', () => {
    const n = 9;
    const perPeer = monitorRuns(readProfile(writeSyntheticJob(dir('a'), n)))[0];
    const spread = monitorRuns(readProfile(writeSyntheticJob(dir('b'), n, { spread: true })))[0];
    assert.deepEqual(totals(spread), totals(perPeer));
    for (let r = 0; r < n; r++) assert.deepEqual(peerRows(spread.ranks[r]), peerRows(perPeer.ranks[r]), `rank ${r}`);
  });

  it("--json lists every rank's peers only with --ranks, and the busiest pairs always", () => {
    const p = readProfile(writeSyntheticJob(dir('c'), 6));
    const plain = JSON.parse(JSON.stringify(monitorReport.json!(p, {}))) as { ranks?: unknown; pairs: unknown[]; pairCount: number }[];
    assert.equal(plain[0].ranks, undefined);
    assert.equal(plain[0].pairs.length, 10);
    assert.equal(plain[0].pairCount, 30);
    const some = JSON.parse(JSON.stringify(monitorReport.json!(p, { ranks: [1, 4] }))) as { ranks: { rank: number }[] }[];
    assert.deepEqual(
      some[0].ranks.map((r) => r.rank),
      [1, 4],
    );
  });
});

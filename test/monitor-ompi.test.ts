// The monitor tool beside Open MPI's own monitoring: its pml monitoring component's .prof files,
// and its profile2mat/aggregate_profile scripts reading mpii's. Debian 12's Open MPI 4.1 ships
// both; Debian's Open MPI 5.0 and 6.0 build the components in but ship no scripts, and 6.0.0rc2's
// pml monitoring crashes in MPI_Init, so this file is not in the roots' layers (monitor.test.ts,
// the rest of monitor's tests, is: docs/testing.md).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { ompiMonitoring, mpii, outDir, program, useSpecialised } from './helpers.js';
import { NP, expectedColl, monitored, parseProf } from './monitor-jobs.js';

useSpecialised(); // the tools as users run them: compiled into one wrapper per function

describe('monitor: fidelity with Open MPI pml monitoring (monitor_p2p)', () => {
  it("E lines equal Open MPI's own, except the documented differences", async () => {
    const ompiDir = outDir('ompi-native');
    mkdirSync(ompiDir, { recursive: true });
    const native = await ompiMonitoring(NP, program('openmpi', 'monitor_p2p'), join(ompiDir, 'x'));
    assert.equal(native.exitCode, 0, native.stderr);
    const { out } = await monitored('openmpi', 'monitor_p2p', 'fid');
    const mine = outDir('fid-prof');
    const rep = await mpii(['report', out, '--prof', join(mine, 'x')]);
    assert.equal(rep.code, 0, rep.stderr);
    for (let rank = 0; rank < NP; rank++) {
      const theirs = parseProf(readFileSync(join(ompiDir, `x.${rank}.prof`), 'utf8')).lines;
      const ours = parseProf(readFileSync(join(mine, `x.${rank}.prof`), 'utf8')).lines;
      const next = (rank + 1) % NP;
      const prev = (rank + NP - 1) % NP;
      const peers = new Set([...(theirs.get('E')?.keys() ?? []), ...(ours.get('E')?.keys() ?? [])]);
      assert.ok(peers.size >= 2, `rank ${rank}: too little traffic`);
      for (const peer of peers) {
        const t = theirs.get('E')?.get(peer) ?? { bytes: 0, msgs: 0, hist: new Array(66).fill(0) };
        const o = ours.get('E')?.get(peer);
        assert.ok(o, `rank ${rank} → ${peer}: Open MPI has an E line, mpii none`);
        // Difference 1: Open MPI 4.1 does not count persistent sends at MPI_Start (ob1 starts
        // them directly); mpii does: 5 starts × 10 ints to next, 4 × 3 doubles to prev.
        const persistent = new Array<number>(66).fill(0);
        let pBytes = 0;
        let pMsgs = 0;
        if (peer === next) {
          persistent[6] += 5;
          pBytes += 200;
          pMsgs += 5;
        }
        if (peer === prev) {
          persistent[5] += 4;
          pBytes += 96;
          pMsgs += 4;
        }
        assert.equal(o.msgs - pMsgs, t.msgs, `rank ${rank} → ${peer}: messages`);
        assert.equal(o.bytes - pBytes, t.bytes, `rank ${rank} → ${peer}: bytes`);
        // Difference 2: Open MPI's histogram also counts the library's internal messages (its
        // I line); what is left after removing them must be exactly mpii's user histogram.
        const internal = theirs.get('I')?.get(peer)?.msgs ?? 0;
        const extra = t.hist!.map((v, b) => v - (o.hist![b] - persistent[b]));
        assert.ok(
          extra.every((v) => v >= 0),
          `rank ${rank} → ${peer}: mpii has messages Open MPI does not: ${extra}`,
        );
        assert.equal(
          extra.reduce((a, b) => a + b, 0),
          internal,
          `rank ${rank} → ${peer}: histogram beyond internal traffic`,
        );
      }
      assert.equal(ours.get('I'), undefined, 'mpii cannot see internal traffic: no I lines');
    }
  });
});

describe("monitor: Open MPI's scripts", () => {
  it(".prof files are accepted by Open MPI's profile2mat and aggregate_profile", async () => {
    const { out } = await monitored('openmpi', 'monitor_coll', 'scripts');
    const dir = outDir('scripts-prof');
    const rep = await mpii(['report', out, '--prof', join(dir, 'phase_1')]);
    assert.equal(rep.code, 0, rep.stderr);
    assert.deepEqual(readdirSync(dir).sort(), ['phase_1.0.prof', 'phase_1.1.prof', 'phase_1.2.prof']);
    const agg = await execa('aggregate_profile', [join(dir, 'phase')], { reject: false });
    assert.equal(agg.exitCode, 0, agg.stderr);
    const mat = await execa('profile2mat', [join(dir, 'phase_1.prof')], { reject: false });
    assert.equal(mat.exitCode, 0, mat.stderr);
    // profile2mat symmetrises: cell (0,1) = (C 0→1 + C 1→0 + S/R/E both ways) / 2
    const all = readFileSync(join(dir, 'phase_1_size_all.mat'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/).map(Number));
    const coll = readFileSync(join(dir, 'phase_1_size_coll.mat'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/).map(Number));
    const C = expectedColl(NP);
    assert.equal(coll[0][1], Math.round((C[0][1].bytes + C[1][0].bytes) / 2));
    assert.equal(all.length, NP);
    assert.ok(all[0][1] > coll[0][1]);
  });
});

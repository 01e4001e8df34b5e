// The monitor tool on real jobs: the same E lines on both MPIs, exact collective, one-sided and
// inter-communicator accounting, outputs (.prof, CSV, JSON, matrix), crashes and bad input.
// Against Open MPI's own monitoring and scripts: monitor-ompi.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FLAVORS, launcherArgs, mpii, outDir, program, useSpecialised } from './helpers.js';
import { readProfile } from '../src/profile-file/read.js';
import { monitorRuns, totals } from '../preload/tools/monitor/report/data.js';
import { NP, expectedColl, monitored, parseProf } from './monitor-jobs.js';

useSpecialised(); // the tools as users run them: compiled into one wrapper per function

describe('monitor: the same E lines on both MPIs (monitor_p2p)', () => {
  it('MPICH gives the same E lines as Open MPI under mpii', async () => {
    const files: string[][] = [];
    for (const f of FLAVORS) {
      const { out } = await monitored(f, 'monitor_p2p', 'cross');
      const prefix = join(outDir(`${f}-cross-prof`), 'x');
      assert.equal((await mpii(['report', out, '--prof', prefix])).code, 0);
      files.push(
        [0, 1, 2].map((r) =>
          readFileSync(`${prefix}.${r}.prof`, 'utf8')
            .split('\n')
            .filter((l) => l.startsWith('E'))
            .join('\n'),
        ),
      );
    }
    assert.deepEqual(files[1], files[0]);
    assert.match(files[0][0], /^E\t0\t1\t1049108 bytes\t16 msgs sent\t1,0,0,4,0,3,5,0,2,(0,){12}1,/);
  });
});

for (const f of FLAVORS) {
  describe(`${f}: monitor accounting (monitor_coll)`, () => {
    it('collectives per peer and per communicator, one-sided, inter-communicators', async () => {
      const { run, stderr } = await monitored(f, 'monitor_coll', 'coll');
      const C = expectedColl(NP);
      for (const r of run.ranks) {
        for (let p = 0; p < NP; p++) {
          const s = r.peers.get(p);
          assert.deepEqual({ bytes: s?.coll.bytes ?? 0, msgs: s?.coll.count ?? 0 }, C[r.rank][p], `C ${r.rank} → ${p}`);
        }
        const next = (r.rank + 1) % NP;
        const prev = (r.rank + NP - 1) % NP;
        assert.deepEqual(r.peers.get(next)!.osc_sent, { count: 4, bytes: 28 }, `S ${r.rank} → next`);
        assert.deepEqual(r.peers.get(next)!.osc_recv, { count: 2, bytes: 12 }, `R ${r.rank} ← next`);
        assert.deepEqual(r.peers.get(prev)!.osc_sent, { count: 1, bytes: 8 }, `S ${r.rank} → prev (compare-and-swap)`);
        assert.deepEqual(r.peers.get(prev)!.osc_recv, { count: 2, bytes: 12 }, `R ${r.rank} ← prev`);
        // the only user point-to-point message: world 1 → world 0 over the inter-communicator
        const p2p = [...r.peers.entries()].filter(([, s]) => s.p2p.count).map(([p, s]) => [p, s.p2p.bytes]);
        assert.deepEqual(p2p, r.rank === 1 ? [[0, 6]] : []);

        const world = r.comms.find((c) => c.name === 'MPI_COMM_WORLD')!;
        assert.equal(world.procs, '0,1,2');
        const o2a = r.rank === 0 ? { bytes: 40 + 16, count: 2 } : r.rank === 1 ? { bytes: 80, count: 1 } : { bytes: 0, count: 0 };
        const a2o = r.rank === 0 ? { bytes: 48, count: 1 } : r.rank === NP - 1 ? { bytes: 16, count: 1 } : { bytes: 0, count: 0 };
        const alltoallv = [...Array(NP).keys()].filter((p) => p !== r.rank).reduce((a, p) => a + (r.rank + 1) * (p + 1), 0);
        const a2a = { bytes: 8 + alltoallv + 40 + 8 * (NP - 1 - r.rank), count: r.rank < NP - 1 ? 5 : 4 };
        assert.deepEqual({ o2a: world.o2a, a2o: world.a2o, a2a: world.a2a }, { o2a, a2o, a2a }, `WORLD totals at ${r.rank}`);
        const ring = r.comms.find((c) => c.name.includes('MPI_Cart_create of MPI_COMM_WORLD'));
        assert.ok(ring, `rank ${r.rank}: ${r.comms.map((c) => c.name)}`);
        assert.deepEqual(ring.a2a, { bytes: 8, count: 1 });
        const half = r.comms.find((c) => c.name === (r.rank % 2 ? 'odd' : 'even'));
        assert.ok(half, 'MPI_Comm_set_name after creation renames the record');
        const inter = r.comms.find((c) => c.name.includes('MPI_Intercomm_create of'))!;
        assert.deepEqual(inter.o2a, r.rank === 0 ? { bytes: 16, count: 1 } : { bytes: 0, count: 0 });
      }
      assert.match(stderr, /collective\s+\d+/);
    });
  });
}

for (const f of FLAVORS) {
  describe(`${f}: collectives counted per communicator (monitor[coll-peers=0], monitor_coll)`, () => {
    it("every peer's numbers but the v-variants', the same totals, .prof C lines spread by the shim as by the report", async () => {
      const prof = outDir(`${f}-coll-spread-prof`);
      mkdirSync(prof, { recursive: true });
      const { out, run, stderr } = await monitored(f, 'monitor_coll', 'coll-spread', [], `monitor[coll-peers=0;prof=${join(prof, 'shim')}]`);
      const full = expectedColl(NP);
      // Scatterv (root 0) and Alltoallv send each peer its own size: counted on the record, in no row
      const vBytes = (r: number, p: number) => (r === p ? 0 : (r === 0 ? (p + 1) * 8 : 0) + (r + 1) * (p + 1));
      const vMsgs = (r: number, p: number) => (r === p ? 0 : (r === 0 ? 1 : 0) + 1);
      let total = { bytes: 0, msgs: 0 };
      for (const r of run.ranks) {
        for (let p = 0; p < NP; p++) {
          const s = r.peers.get(p);
          const want = { bytes: full[r.rank][p].bytes - vBytes(r.rank, p), msgs: full[r.rank][p].msgs - vMsgs(r.rank, p) };
          assert.deepEqual({ bytes: s?.coll.bytes ?? 0, msgs: s?.coll.count ?? 0 }, want, `C ${r.rank} → ${p}`);
          total = { bytes: total.bytes + full[r.rank][p].bytes, msgs: total.msgs + full[r.rank][p].msgs };
        }
        const world = r.comms.find((c) => c.name === 'MPI_COMM_WORLD')!;
        const apart = [...Array(NP).keys()].reduce((a, p) => ({ bytes: a.bytes + vBytes(r.rank, p), count: a.count + vMsgs(r.rank, p) }), {
          bytes: 0,
          count: 0,
        });
        assert.deepEqual(world.apart, apart, `rank ${r.rank}: the v-variants' messages on the record`);
        assert.equal(world.procs, '0,1,2');
      }
      assert.deepEqual(totals(run).coll, { count: total.msgs, bytes: total.bytes }, 'the totals of counting per peer');
      assert.match(stderr, /counted\s+per\s+communicator/);
      // the shim's .prof files (option prof) and the report's: the same C lines
      const rep = await mpii(['report', out, '--prof', join(prof, 'report')]);
      assert.equal(rep.code, 0, rep.stderr);
      for (let rank = 0; rank < NP; rank++) {
        const shim = parseProf(readFileSync(join(prof, `shim.${rank}.prof`), 'utf8')).lines.get('C');
        const mine = parseProf(readFileSync(join(prof, `report.${rank}.prof`), 'utf8')).lines.get('C');
        assert.deepEqual(shim, mine, `rank ${rank}: C lines`);
        assert.ok((shim?.size ?? 0) >= NP - 1, `rank ${rank}: a C line per peer`);
      }
    });
  });

  describe(`${f}: monitor's latest send after MPI_Type_free (monitor_type_reuse)`, () => {
    it('a freed datatype handle given to a larger type counts the larger size from the same call site', async () => {
      const out = outDir(`${f}-type-reuse`);
      const r = await mpii(['run', '--tools', 'monitor', '--out', out, ...launcherArgs(f, 2), program(f, 'monitor_type_reuse')]);
      assert.equal(r.code, 0, r.stderr);
      // the case under test: both MPIs give the 4-int type the freed 2-int type's handle
      assert.match(r.stdout, /monitor_type_reuse ok reused=1 size=2/);
      const [run] = monitorRuns(readProfile(out));
      assert.deepEqual(run.ranks[0].peers.get(1)!.p2p, { count: 6, bytes: 3 * 8 + 3 * 16 });
    });
  });
}

describe('monitor: outputs', () => {
  it('--csv writes count and byte matrices per class; --json has every peer', async () => {
    const { out } = await monitored('mpich', 'monitor_coll', 'csv');
    const dir = outDir('csv');
    const rep = await mpii(['report', out, '--csv', dir, '--json', '--ranks']);
    assert.equal(rep.code, 0, rep.stderr);
    assert.deepEqual(readdirSync(dir).sort(), [
      'coll_bytes.csv',
      'coll_count.csv',
      'osc_recv_bytes.csv',
      'osc_recv_count.csv',
      'osc_sent_bytes.csv',
      'osc_sent_count.csv',
      'p2p_bytes.csv',
      'p2p_count.csv',
    ]);
    const rows = readFileSync(join(dir, 'coll_bytes.csv'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    assert.deepEqual(rows[0], ['rank', '0', '1', '2']);
    const C = expectedColl(NP);
    for (let r = 0; r < NP; r++) assert.deepEqual(rows[r + 1].map(Number), [r, ...C[r].map((x) => x.bytes)]);
    const json = JSON.parse(rep.stdout);
    const ranks = json.monitor[0].ranks;
    assert.equal(ranks.length, NP);
    assert.equal(ranks[1].peers.find((p: { peer: number }) => p.peer === 0).p2p.bytes, 6);
  });

  it('the matrix is plain text without a terminal and with NO_COLOR', async () => {
    const { out } = await monitored('mpich', 'monitor_p2p', 'matrix');
    for (const env of [{}, { NO_COLOR: '1' }]) {
      const rep = await mpii(['report', out], env);
      assert.equal(rep.code, 0);
      // eslint-disable-next-line no-control-regex -- the escape sequences of a terminal (ESC [) are what this looks for
      assert.doesNotMatch(rep.stdout, /\x1b\[/);
      assert.match(rep.stdout, /receiver →/);
      assert.match(rep.stdout, /0 {2}·█/); // rank 0 sends most to rank 1
    }
    const none = await mpii(['report', out, '--no-matrix']);
    assert.doesNotMatch(none.stdout, /receiver →/);
  });
});

describe('monitor: crashes and bad input', () => {
  for (const f of FLAVORS) {
    it(`${f}: a job that aborts mid-run still reports what was counted, marked incomplete`, async () => {
      const out = outDir(`${f}-mon-crash`);
      const r = await mpii(['run', '--tools', 'monitor', '--out', out, ...launcherArgs(f, NP), program(f, 'crash')]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /INCOMPLETE/);
      const runs = monitorRuns(readProfile(out));
      assert.equal(runs.length, 1);
      const sent = runs[0].ranks.flatMap((x) => [...x.peers.values()]).reduce((a, s) => a + s.p2p.count, 0);
      assert.ok(sent > 0, 'point-to-point messages before the crash are kept');
      const rep = await mpii(['report', out, '--prof', join(outDir(`${f}-crash-prof`), 'x')]);
      assert.equal(rep.code, 0, rep.stderr);
      assert.match(rep.stdout, /INCOMPLETE/);
    });
  }

  it('unknown tool option: one-line error naming the option', async () => {
    const r = await mpii(['run', '--tools', 'monitor[colour=1]', '-np', '2', program('mpich', 'ring')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^mpii: .*colour.*monitor.*—/m);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  it('an unwritable --csv/--prof location, or no monitor data: clear errors', async () => {
    const { out } = await monitored('mpich', 'ring', 'unwritable');
    const ro = outDir('readonly');
    mkdirSync(ro, { recursive: true });
    writeFileSync(join(ro, 'file'), '');
    chmodSync(ro, 0o500);
    const r = await mpii(['report', out, '--csv', join(ro, 'file', 'sub')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^mpii: cannot create .* for --csv.* — choose a writable location$/m);
    const plain = outDir('plain');
    assert.equal((await mpii(['run', '--quiet', '--tools', 'trace-count', '--out', plain, ...launcherArgs('mpich', 2), program('mpich', 'ring')])).code, 0);
    const r2 = await mpii(['report', plain, '--prof', join(ro, 'x')]);
    assert.equal(r2.code, 2);
    assert.match(r2.stderr, /no monitor data .* — run the job with --tools monitor/);
  });
});

// The report's streaming parts against the whole-file ones they replaced: profile.mpii read as a
// stream (src/profile-file/read.ts streamGathered, in chunks smaller than an image, counters kept
// in a chunk or copied out of it) gives the ranks parseGathered gives; the monitor's digest (the
// terminal report's per-peer tables taken while read, then dropped) gives the same report, and a
// dropped table asked for again is read again; --json written in pieces is JSON.stringify's text.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseGathered, readGathered, readProfile, readProfileAsync, streamGathered, type RankProfile } from '../src/profile-file/read.js';
import { synthRank, writeGathered, writeSyntheticJob, type SynthJobOptions } from '../src/profile-file/synthetic.js';
import { BLOCKS } from '../src/profile-file/format.gen.js';
import { monitorDigest, monitorRuns, peerRows, RankData, totals } from '../preload/tools/monitor/report/data.js';
import { busiestPairs, formatMonitor } from '../preload/tools/monitor/report/text.js';
import { report as monitorReport } from '../preload/tools/monitor/report/index.js';
import { JsonStream, writeJson } from '../src/report/json-stream.js';

const job = (n: number, o: SynthJobOptions = {}) => writeSyntheticJob(mkdtempSync(join(tmpdir(), 'mpii-stream-')), n, o);

/** Everything a rank holds, values of the counters included, as plain data. */
function plain(r: RankProfile): unknown {
  return {
    ...r,
    tools: [...r.tools],
    counters: r.counters.map((c) => {
      const v: [number, number][] = [];
      c.forEach((i, x) => v.push([i, x]));
      return { tool: c.tool, name: c.name, labels: c.labels, length: c.length, values: v, words: [...c.words().words] };
    }),
  };
}

/** A job whose rank 1 also has one-sided traffic (rank 1 wrote to 3, read from 2): its entries
 *  appended after the others, out of order for the last ones (read the slow way). */
function oscJob(n: number): string {
  const P = BLOCKS.monitor.peers.row;
  return writeGathered(mkdtempSync(join(tmpdir(), 'mpii-stream-osc-')), n, (r) => {
    const rank = synthRank(n, r, { timeline: true });
    if (r === 1) {
      const e = [...(rank.counters![0].entries as Float64Array)];
      e.push(
        3 * P.size + P.index.osc_sent_count,
        2,
        3 * P.size + P.index.osc_sent_bytes,
        4096,
        2 * P.size + P.index.osc_recv_count,
        1,
        2 * P.size + P.index.osc_recv_bytes,
        70000,
      );
      rank.counters![0].entries = e;
    }
    return rank;
  });
}

describe('profile.mpii read as a stream', () => {
  const cases: [string, () => string][] = [
    ['counters fill the chunks (every rank talks to every peer): they stay in them', () => job(48)],
    ['labels fill the chunks (a few peers, COMM_WORLD of 300 ranks): counters copied out', () => job(300, { peers: 2, timeline: true })],
    ['one-sided traffic, entries out of order', () => oscJob(6)],
  ];
  for (const [what, make] of cases) {
    it(what, async () => {
      const file = make();
      const whole = parseGathered(file, readFileSync(file)).map(plain);
      // 4 KiB chunks: smaller than most images (read into a bigger window), many chunks per file
      for (const chunk of [4096, 64 * 1024, 8 << 20]) assert.deepEqual(readGathered(file, { chunk }).map(plain), whole, `chunk ${chunk}`);
      assert.deepEqual(readProfile(file).ranks.map(plain), whole);
      assert.deepEqual((await readProfileAsync(file)).ranks.map(plain), whole);
    });
  }

  it('a cut file: the same error as the whole-file reader, wherever it is cut', () => {
    const file = job(5);
    const bytes = readFileSync(file);
    for (const at of [3, 16, 40, 16 + 144, Math.floor(bytes.length / 2), bytes.length - 8]) {
      const cut = join(mkdtempSync(join(tmpdir(), 'mpii-stream-cut-')), 'profile.mpii');
      writeFileSync(cut, bytes.subarray(0, at));
      const whole = (() => {
        try {
          parseGathered(cut, readFileSync(cut));
          return 'no error';
        } catch (e) {
          return (e as Error).message;
        }
      })();
      const streamed = (() => {
        try {
          readGathered(cut, { chunk: 4096 });
          return 'no error';
        } catch (e) {
          return (e as Error).message;
        }
      })();
      assert.notEqual(whole, 'no error', `cut at ${at}`);
      assert.equal(streamed, whole, `cut at ${at}`);
    }
  });

  it('the ranks of a many-chunk file, each image parsed once, in order', () => {
    const file = job(200, { peers: 20 });
    let seen = 0;
    const steps = streamGathered(file, readFileSync(file).length, 4096);
    const fd = readFileSync(file);
    let s = steps.next();
    let reads = 0;
    while (!s.done) {
      const ask = s.value;
      const got = fd.copy(ask.buf, ask.offset, ask.position, Math.min(fd.length, ask.position + ask.length));
      reads++;
      s = steps.next(got);
    }
    for (const r of s.value) assert.equal(r.rank, seen++);
    assert.equal(seen, 200);
    assert.ok(reads > 10, `${reads} reads`);
  });
});

describe('monitor digest (the terminal report of a big job)', () => {
  for (const [what, make] of [
    ['synthetic job', () => job(70)],
    ['one-sided traffic, out of order', () => oscJob(6)],
  ] as const) {
    it(`${what}: the same report, the tables dropped, read again when asked for`, () => {
      const file = make();
      const full = readProfile(file);
      for (const top of [1, 3, 10]) {
        const p = readProfile(file, { onImage: monitorDigest({ top, cells: 32 }) });
        const ranks = monitorRuns(p)[0].ranks as RankData[];
        assert.ok(
          ranks.every((r) => r.digest?.top === top),
          'every rank digested',
        );
        assert.deepEqual(formatMonitor(p, { top }), formatMonitor(full, { top }), `top ${top}`);
        assert.deepEqual(totals(monitorRuns(p)[0]), totals(monitorRuns(full)[0]));
        // more pairs than digested, then the per-peer rows: read again from the file
        assert.deepEqual(busiestPairs(monitorRuns(p)[0], top + 5), busiestPairs(monitorRuns(full)[0], top + 5));
        assert.deepEqual(ranks.map(peerRows), monitorRuns(full)[0].ranks.map(peerRows));
      }
    });
  }

  it('every pair (--top 0), digested or not: sorted once, in the order of the bounded list', () => {
    for (const [file, least] of [
      [job(70), 1000],
      [oscJob(6), 1],
    ] as const) {
      const full = readProfile(file);
      const n = busiestPairs(monitorRuns(full)[0], 1e9).total; // bounded: inserted in order one by one
      const want = busiestPairs(monitorRuns(full)[0], n);
      assert.ok(want.pairs.length >= least, `${want.pairs.length} pairs`);
      assert.deepEqual(busiestPairs(monitorRuns(readProfile(file))[0], Infinity), want, 'from the tables');
      const p = readProfile(file, { onImage: monitorDigest({ top: Infinity, cells: 32 }) });
      assert.deepEqual(busiestPairs(monitorRuns(p)[0], Infinity), want, 'from the digests');
      assert.deepEqual(formatMonitor(p, { top: Infinity }), formatMonitor(full, { top: n }));
    }
  });

  it('the digest is what the report command uses for the terminal report alone', () => {
    assert.equal(typeof monitorReport.digest, 'function');
    const file = job(12);
    const p = readProfile(file, { onImage: monitorReport.digest!({}) });
    assert.ok((monitorRuns(p)[0].ranks as RankData[]).every((r) => r.digest?.top === 10));
  });
});

describe('--json written in pieces', () => {
  const value = {
    a: 1,
    b: [1, 'x', null, { c: new Date(0), d: undefined }],
    e: {},
    s: new JsonStream(() => [{ x: [1, 2], y: 'z\n"' }, [], 3]),
    nested: {
      deeper: [
        new JsonStream(() => []),
        new JsonStream(function* () {
          yield { q: 1 };
        }),
      ],
    },
  };
  const plainValue = JSON.parse(JSON.stringify(value)) as unknown; // toJSON: the whole arrays
  for (const indent of [true, false]) {
    it(indent ? 'indented: JSON.stringify(v, null, 2)' : 'one line: JSON.stringify(v)', () => {
      let out = '';
      writeJson(
        value,
        (s) => {
          out += s;
        },
        indent,
      );
      assert.equal(out, `${JSON.stringify(plainValue, null, indent ? 2 : undefined)}\n`);
    });
  }

  it('the monitor part of a job: the same text as its objects stringified', () => {
    const p = readProfile(job(9));
    const part = monitorReport.json!(p, { ranks: true });
    let out = '';
    writeJson(
      part,
      (s) => {
        out += s;
      },
      true,
    );
    const objects = monitorRuns(p).map((run) => ({ ...run, ranks: run.ranks.map((r) => ({ rank: r.rank, peers: peerRows(r), communicators: r.comms })) }));
    assert.equal(
      out,
      `${JSON.stringify(
        objects.map(({ tool, size, ranks }) => ({
          tool,
          size,
          totals: totals(monitorRuns(p)[0]),
          pairs: (part as { pairs: unknown }[])[0].pairs,
          pairCount: (part as { pairCount: unknown }[])[0].pairCount,
          communicators: (part as { communicators: unknown }[])[0].communicators,
          ranks,
        })),
        null,
        2,
      )}\n`,
    );
  });
});

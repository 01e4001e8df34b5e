// The monitor report's pure parts: .prof text, matrices, the terminal drawing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { profText } from '../preload/tools/monitor/report/files.js';
import { drawMatrix } from '../preload/tools/monitor/report/text.js';
import { humanBytes } from '../src/report/units.js';
import { matrix, type MonitorRun, type PeerStats } from '../preload/tools/monitor/report/data.js';

const peer = (p2p: number, bytes: number, bin: number): PeerStats => {
  const hist = new Array<number>(66).fill(0);
  hist[bin] = p2p;
  return { p2p: { count: p2p, bytes }, osc_sent: { count: 1, bytes: 12 }, osc_recv: { count: 0, bytes: 0 }, coll: { count: 2, bytes: 0 }, hist };
};

describe('monitor report', () => {
  it(".prof text is Open MPI's format: tabs, ascending peers, histogram on E lines, D blocks", () => {
    const text = profText({
      rank: 2,
      peers: new Map([
        [3, peer(1, 4, 3)],
        [0, peer(27, 108, 3)],
      ]),
      comms: [{ name: 'MPI_COMM_WORLD', procs: '0,1,2,3', o2a: { bytes: 8, count: 1 }, a2o: { bytes: 0, count: 0 }, a2a: { bytes: 0, count: 2 } }],
    });
    const lines = text.split('\n');
    assert.equal(lines[0], '# POINT TO POINT');
    assert.equal(lines[1], `E\t2\t0\t108 bytes\t27 msgs sent\t0,0,0,27,${new Array(62).fill(0).join(',')}`);
    assert.match(lines[2], /^E\t2\t3\t4 bytes\t1 msgs sent\t/);
    assert.deepEqual(lines.slice(3, 9), [
      '# OSC',
      'S\t2\t0\t12 bytes\t1 msgs sent',
      'S\t2\t3\t12 bytes\t1 msgs sent',
      '# COLLECTIVES',
      'C\t2\t0\t0 bytes\t2 msgs sent',
      'C\t2\t3\t0 bytes\t2 msgs sent',
    ]);
    assert.deepEqual(lines.slice(9, 13), [
      'D\tMPI_COMM_WORLD\tprocs: 0,1,2,3',
      'O2A\t2\t8 bytes\t1 msgs sent',
      'A2O\t2\t0 bytes\t0 msgs sent',
      'A2A\t2\t0 bytes\t2 msgs sent',
    ]);
    assert.equal(text.endsWith('\n'), true);
  });

  it('matrices: per class as recorded; "all" is data flow (one-sided reads transposed)', () => {
    const s = peer(1, 10, 4);
    s.osc_recv = { count: 1, bytes: 5 };
    const run: MonitorRun = {
      tool: 1,
      size: 2,
      ranks: [
        { rank: 0, peers: new Map([[1, s]]), comms: [] },
        { rank: 1, peers: new Map(), comms: [] },
      ],
    };
    assert.deepEqual(matrix(run, 'osc_recv', 'bytes'), [
      [0, 5],
      [0, 0],
    ]);
    assert.deepEqual(matrix(run, 'all', 'bytes'), [
      [0, 10 + 12],
      [5, 0],
    ]);
    assert.deepEqual(matrix(run, 'p2p', 'count'), [
      [0, 1],
      [0, 0],
    ]);
  });

  it('draws big jobs in blocks of ranks, log-shaded, plain without colour', () => {
    const n = 100;
    const m = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (j === (i + 1) % n ? 1000 : j === i ? 0 : 1)));
    const lines = drawMatrix(m, { color: false, cols: 10 });
    assert.match(lines[0], /receiver → \(10 ranks per cell\)/);
    assert.equal(lines.length, 1 + 10 + 2); // header, 10 rows, "sender ↓ max" and the shades
    assert.match(lines[1], /^ {2}0-9 /);
    assert.match(lines[10], /^90-99 /);
    // eslint-disable-next-line no-control-regex -- the escape sequences of a terminal (ESC [) are what this looks for
    assert.doesNotMatch(lines.join('\n'), /\x1b/);
    // the diagonal blocks hold the ring's heavy traffic: darkest shade
    assert.equal(lines[1].slice(6, 8), '██');
    const colored = drawMatrix(m, { color: true, cols: 10 });
    // eslint-disable-next-line no-control-regex -- the escape sequences of a terminal (ESC [) are what this looks for
    assert.match(colored.join('\n'), /\x1b\[48;5;\d+m/);
  });

  it('human-readable sizes', () => {
    assert.equal(humanBytes(0), '0 B');
    assert.equal(humanBytes(1023), '1023 B');
    assert.equal(humanBytes(1536), '1.50 KiB');
    assert.equal(humanBytes(1048576 * 300), '300.0 MiB');
  });
});

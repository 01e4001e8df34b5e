// What monitor.test.ts, monitor-ompi.test.ts and mpit.test.ts share: a job under monitor, the
// .prof format, and the traffic monitor_coll.c makes.
import assert from 'node:assert/strict';
import { launcherArgs, mpii, outDir, program, type Flavor } from './helpers.js';
import { readProfile } from '../src/profile-file/read.js';
import { monitorRuns, type MonitorRun } from '../preload/tools/monitor/report/data.js';

export const NP = 3;

export interface ProfLine {
  bytes: number;
  msgs: number;
  hist?: number[];
}
/** A .prof file: letter -> peer -> line (E, I, S, R, C), and each D block by communicator name:
 *  its procs field, then its O2A/A2O/A2A lines. */
export function parseProf(text: string): { lines: Map<string, Map<number, ProfLine>>; comms: Map<string, string[]> } {
  const lines = new Map<string, Map<number, ProfLine>>();
  const comms = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const l of text.split('\n')) {
    const f = l.split('\t');
    if (/^[EISRC]$/.test(f[0])) {
      const m = lines.get(f[0]) ?? new Map<number, ProfLine>();
      lines.set(f[0], m);
      m.set(Number(f[2]), { bytes: Number.parseInt(f[3], 10), msgs: Number.parseInt(f[4], 10), hist: f[5]?.split(',').map(Number) });
    } else if (f[0] === 'D') {
      current = [f[2]];
      comms.set(f[1], current);
    } else if (/^(O2A|A2O|A2A)$/.test(f[0]) && current) current.push(l);
  }
  return { lines, comms };
}

export async function monitored(
  f: Flavor,
  name: string,
  tag: string,
  args: string[] = [],
  tools = 'monitor',
): Promise<{ out: string; run: MonitorRun; stderr: string }> {
  const out = outDir(`${f}-${tag}`);
  const r = await mpii(['run', '--tools', tools, '--out', out, ...launcherArgs(f, NP), program(f, name), ...args]);
  assert.equal(r.code, 0, r.stderr);
  const runs = monitorRuns(readProfile(out));
  assert.equal(runs.length, 1);
  return { out, run: runs[0], stderr: r.stderr };
}

/** Expected per-peer traffic of monitor_coll.c (see the comments there) for n ranks. */
export function expectedColl(n: number) {
  const C = Array.from({ length: n }, () => Array.from({ length: n }, () => ({ bytes: 0, msgs: 0 })));
  const add = (r: number, p: number, b: number) => {
    if (r === p) return;
    C[r][p].bytes += b;
    C[r][p].msgs += 1;
  };
  const odd = [...Array(n).keys()].filter((x) => x % 2 === 1);
  for (let r = 0; r < n; r++) {
    for (let p = 0; p < n; p++) {
      if (r === 1) add(r, p, 40); // Bcast root 1
      if (r === 0) add(r, p, (p + 1) * 8); // Scatterv root 0
      if (r === 0) add(r, p, 8); // Ibcast root 0
      if (r === n - 1) add(r, p, 8); // Gather root n-1
      if (r === 0) add(r, p, 24); // Reduce root 0
      add(r, p, 4); // Allreduce
      add(r, p, (r + 1) * (p + 1)); // Alltoallv
      add(r, p, 20); // Allgather in place
      if (r !== p) C[r][p].msgs += 1; // Barrier: 0 bytes
      if (p > r) add(r, p, 8); // Scan
    }
    add(r, (r + 1) % n, 4); // Neighbor_alltoall, periodic ring
    add(r, (r + n - 1) % n, 4);
    if (r === 0) for (const p of odd) add(r, p, 16); // inter-communicator Bcast from world 0
  }
  return C;
}

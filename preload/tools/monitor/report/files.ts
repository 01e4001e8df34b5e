// The monitor's data as files other tools read: Open MPI's per-rank .prof text (accepted by
// the profile2mat and aggregate_profile scripts Open MPI installs) and CSV matrices.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureDir, MpiiError } from '../../../../src/tool-api/index.js';
import { CLASSES, matrix, type MonitorRun, type RankMonitor } from './data.js';

/** One rank's profile in Open MPI's format (common_monitoring.c): tab-separated, peers in
 *  ascending world rank, only peers with messages; no I lines (a tool above MPI cannot see the
 *  library's internal messages). */
export function profText(r: RankMonitor): string {
  const out: string[] = ['# POINT TO POINT'];
  const peers = [...r.peers.keys()].sort((a, b) => a - b);
  const line = (tag: string, peer: number, f: { bytes: number; count: number }) => `${tag}\t${r.rank}\t${peer}\t${f.bytes} bytes\t${f.count} msgs sent`;
  for (const p of peers) {
    const s = r.peers.get(p)!;
    if (s.p2p.count > 0) out.push(`${line('E', p, s.p2p)}\t${s.hist.join(',')}`);
  }
  out.push('# OSC');
  for (const p of peers) {
    const s = r.peers.get(p)!;
    if (s.osc_sent.count > 0) out.push(line('S', p, s.osc_sent));
    if (s.osc_recv.count > 0) out.push(line('R', p, s.osc_recv));
  }
  out.push('# COLLECTIVES');
  for (const p of peers) {
    const s = r.peers.get(p)!;
    if (s.coll.count > 0) out.push(line('C', p, s.coll));
  }
  for (const c of r.comms) {
    out.push(`D\t${c.name}\tprocs: ${c.procs}`);
    out.push(`O2A\t${r.rank}\t${c.o2a.bytes} bytes\t${c.o2a.count} msgs sent`);
    out.push(`A2O\t${r.rank}\t${c.a2o.bytes} bytes\t${c.a2o.count} msgs sent`);
    out.push(`A2A\t${r.rank}\t${c.a2a.bytes} bytes\t${c.a2a.count} msgs sent`);
  }
  return out.join('\n') + '\n';
}

/** The files writeProf would write. */
export const profPaths = (run: MonitorRun, prefix: string): string[] => run.ranks.map((r) => `${prefix}.${r.rank}.prof`);

/** The files writeCsv would write. */
export const csvPaths = (dir: string): string[] => CLASSES.flatMap((c) => ['count', 'bytes'].map((what) => join(dir, `${c.name}_${what}.csv`)));

function write(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (e) {
    throw new MpiiError(`cannot write ${path}: ${(e as Error).message}`, 'choose a writable location');
  }
}

/** PREFIX.<rank>.prof for every rank; returns the paths. */
export function writeProf(run: MonitorRun, prefix: string): string[] {
  ensureDir(dirname(prefix), '--prof');
  return run.ranks.map((r) => {
    const path = `${prefix}.${r.rank}.prof`;
    write(path, profText(r));
    return path;
  });
}

/** <dir>/<class>_{count,bytes}.csv: row = the recording rank, column = the peer. */
export function writeCsv(run: MonitorRun, dir: string): string[] {
  ensureDir(dir, '--csv');
  const paths: string[] = [];
  for (const c of CLASSES) {
    for (const what of ['count', 'bytes'] as const) {
      const m = matrix(run, c.name, what);
      const head = ['rank', ...m.map((_, i) => String(i))].join(',');
      const path = join(dir, `${c.name}_${what}.csv`);
      write(path, [head, ...m.map((row, i) => [i, ...row].join(','))].join('\n') + '\n');
      paths.push(path);
    }
  }
  return paths;
}

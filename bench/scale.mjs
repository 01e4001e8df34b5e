#!/usr/bin/env node
// bench/scale.mjs - what does the end of a job cost as it grows: the profile's bytes, the report's,
// the writing rank's memory and the time MPI_Finalize takes, measured here and modelled beyond.
//
// For each installed MPI (Open MPI, MPICH): bench/scale_ring.c (a ring exchange and an
// MPI_Allreduce per step, 5 steps) at each size of SIZES, ranks oversubscribed on this machine,
// under the launcher alone (`plain`) and `mpii run --tools monitor,profile`, ROUNDS times each,
// interleaved. Per size: profile.mpii's bytes (and per rank), `mpii report --json`'s bytes
// without --ranks (and per rank), the writer's peak memory (rank 0's VmHWM, printed by the program
// after MPI_Finalize) beside the other ranks' median, and rank 0's MPI_Finalize time (median) beside
// plain's. Then a model calibrated on those points for 1,024, 16,384 and 131,072 ranks:
//   file bytes            a + b·N, fitted (least squares) on the measured sizes;
//   bytes a rank sends    its image (the file per rank) + 4 (its size) at the end; a group's
//                         leader also passes on its group's ⌈√N⌉ images (preload/core/gather.c);
//   writer's memory       the other ranks' peak (what any rank holds) + the gather's window
//                         (min(256 images, 16 MiB)) + 4·N (the sizes) + the MPI library's state
//                         for each peer the writer exchanged messages with at the end: its group
//                         and the other groups' leaders, about 2·√N ranks, at the cost per peer
//                         fitted here (the writer's extra memory over the other ranks', a line in
//                         its peers: one node's shared-memory transport here);
//   end-of-job time       the collectives (a bcast, an allreduce, a gather of ints, a dup, a bcast:
//                         5·log2 N steps of ALPHA_US) + N·(image / WRITER_MBPS + PER_RANK_US), the
//                         writer taking each rank's image in turn (the windows hide the latency
//                         of the leaders' hop).
// ALPHA_US, WRITER_MBPS and PER_RANK_US describe a cluster, not this 2-core machine (whose
// oversubscribed ranks wait for a core: the measured times here are an upper bound); their values
// are printed with the model.
//
// Usage (after `npm run build`): node bench/scale.mjs
// Knobs (environment): SIZES (16,32,64,128,256), ROUNDS (1), FIT_FROM (65: the model's fit takes
// the sizes from this on), MPI=openmpi|mpich, BASE=/other/tree/bin/mpii.js
// measures that mpii too (before/after), ALPHA_US (5), WRITER_MBPS (500), PER_RANK_US (5).
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { MPII, ROOT, env, flavorHeader, forEachFlavor, log, lpad, median, run } from './common.mjs';

const SIZES = (process.env.SIZES ?? '16,32,64,128,256').split(',').map(Number);
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const BASE = process.env.BASE;
const ALPHA_US = Number(process.env.ALPHA_US ?? 5);
const WRITER_MBPS = Number(process.env.WRITER_MBPS ?? 500);
const PER_RANK_US = Number(process.env.PER_RANK_US ?? 5);
const MODEL = [1024, 16384, 131072];
// the fit takes the sizes past the monitor's coll-peers (64): below it collectives are still
// counted per peer (by design: a row per member of a small communicator)
const FIT_FROM = Number(process.env.FIT_FROM ?? 65);
const WINDOW_RANKS = 256;
const WINDOW_BYTES = 16 << 20;
/** The ranks a group of the gather has (preload/core/gather.c, mpii_gather_group): ⌈√N⌉, at least 2. */
const group = (n) => Math.max(2, Math.ceil(Math.sqrt(n)));
/** The ranks the writer exchanges messages with at the end: its group's others and the other groups' leaders. */
const writerPeers = (n) => group(n) - 1 + Math.ceil(n / group(n)) - 1;

const tmp = mkdtempSync(join(tmpdir(), 'mpii-scale-'));
let seq = 0;

/** The program's lines: rank 0's finalize time and peak memory, the groups' leaders' and the
 *  other ranks' median peaks. */
function parse(stdout, n) {
  const lines = stdout.split('\n').filter((l) => l.startsWith('scale_ring '));
  if (lines.length !== n) throw new Error(`expected ${n} scale_ring lines, got ${lines.length}`);
  const f = (l, k) => Number(new RegExp(`${k}=([\\d.]+)`).exec(l)[1]);
  const zero = lines.find((l) => / rank=0 /.test(l));
  // the groups' leaders (the writer, rank 0, leads the first group)
  const leader = (l) => f(l, 'rank') >= group(n) && f(l, 'rank') % group(n) === 0;
  return {
    finalizeMs: f(zero, 'finalize_ms'),
    writerKb: f(zero, 'hwm_kb'),
    otherKb: median(lines.filter((l) => l !== zero && !leader(l)).map((l) => f(l, 'hwm_kb'))),
    leaderKb: n > group(n) ? median(lines.filter(leader).map((l) => f(l, 'hwm_kb'))) : NaN,
  };
}

function measure(fl, prog, n, bin) {
  const np = [...fl.extra, '-np', String(n)];
  if (!bin) return { ...parse(run([fl.run, ...np, prog], 600_000).stdout, n) };
  const out = join(tmp, `out-${++seq}`);
  const r = run([process.execPath, bin, 'run', '--quiet', '--out', out, '--tools', 'monitor,profile', ...np, prog], 600_000);
  const file = statSync(join(out, 'profile.mpii')).size;
  const json = spawnSync(process.execPath, [bin, 'report', out, '--json'], { env, maxBuffer: 1 << 30 });
  if (json.status !== 0) throw new Error(`mpii report --json: ${json.stderr}`);
  return { ...parse(r.stdout, n), file, json: json.stdout.length };
}

/** Least squares y = a + b·x. */
function fit(xs, ys) {
  const n = xs.length;
  const mx = xs.reduce((a, x) => a + x, 0) / n;
  const my = ys.reduce((a, y) => a + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  xs.forEach((x, i) => {
    sxy += (x - mx) * (ys[i] - my);
    sxx += (x - mx) ** 2;
  });
  const b = sxx ? sxy / sxx : 0;
  return { a: my - b * mx, b };
}

const kb = (b) => `${(b / 1024).toFixed(1)} KB`;
const mb = (b) => (b >= 1 << 30 ? `${(b / 2 ** 30).toFixed(2)} GB` : `${(b / 2 ** 20).toFixed(2)} MB`);

function report(label, rows) {
  console.log(`${label}`);
  console.log(
    `${lpad('ranks', 6)} ${lpad('profile.mpii', 13)} ${lpad('per rank', 10)} ${lpad('--json', 12)} ${lpad('per rank', 10)} ${lpad('writer peak', 12)} ${lpad('leaders', 10)} ${lpad('others', 10)} ${lpad('finalize', 10)} ${lpad('plain', 9)} ${lpad('added', 9)}`,
  );
  for (const r of rows) {
    console.log(
      `${lpad(r.n, 6)} ${lpad(kb(r.file), 13)} ${lpad(`${(r.file / r.n).toFixed(0)} B`, 10)} ${lpad(kb(r.json), 12)} ${lpad(`${(r.json / r.n).toFixed(0)} B`, 10)} ${lpad(kb(r.writerKb * 1024), 12)} ${lpad(Number.isNaN(r.leaderKb) ? '-' : kb(r.leaderKb * 1024), 10)} ${lpad(kb(r.otherKb * 1024), 10)} ${lpad(`${r.finalizeMs.toFixed(0)} ms`, 10)} ${lpad(`${r.plainMs.toFixed(0)} ms`, 9)} ${lpad(`${(r.finalizeMs - r.plainMs).toFixed(0)} ms`, 9)}`,
    );
  }
  const at = (n) => rows.find((r) => r.n === n);
  if (at(32) && at(128))
    console.log(`size(128) / size(32) = ${(at(128).file / at(32).file).toFixed(2)} (linear: 4; target ≤ 4.4), json ${(at(128).json / at(32).json).toFixed(2)}`);
  // past coll-peers: a line through those sizes, or through the one measured and 0 (its bytes a rank)
  const past = rows.filter((r) => r.n >= FIT_FROM);
  const big = past.length ? past : rows;
  const through = (k) =>
    big.length >= 2
      ? fit(
          big.map((r) => r.n),
          big.map((r) => r[k]),
        )
      : { a: 0, b: big[0][k] / big[0].n };
  const file = through('file');
  const json = through('json');
  // what the writer holds beyond any other rank but the gather's window and sizes, per rank it
  // talked to at the end: MPI's own state for each of those peers (here: shared memory, one
  // node), a line through 0 (least squares). BASE (an mpii whose writer asked every rank itself)
  // is fitted the same way with N - 1 peers.
  const peersOf = label.includes('base') ? (n) => n - 1 : writerPeers;
  const gatherOwn = (n, image) => Math.min(WINDOW_BYTES, Math.min(n, WINDOW_RANKS) * image) + 4 * n;
  const perPeer =
    rows.reduce((a, r) => a + peersOf(r.n) * ((r.writerKb - r.otherKb) * 1024 - gatherOwn(r.n, r.file / r.n)), 0) /
    rows.reduce((a, r) => a + peersOf(r.n) ** 2, 0);
  const other = median(rows.map((r) => r.otherKb * 1024));
  const added = fit(
    rows.map((r) => r.n),
    rows.map((r) => r.finalizeMs - r.plainMs),
  );
  console.log(
    `fit on ${big.map((r) => r.n).join(', ')} ranks: file ${file.a.toFixed(0)} + ${file.b.toFixed(1)}·N bytes, json ${json.a.toFixed(0)} + ${json.b.toFixed(1)}·N bytes, added here ${added.a.toFixed(1)} + ${(added.b * 1000).toFixed(0)} µs·N`,
  );
  console.log(`model (ALPHA_US=${ALPHA_US}, WRITER_MBPS=${WRITER_MBPS}, PER_RANK_US=${PER_RANK_US}):`);
  console.log(`writer's extra memory here, past the gather's own: ${(perPeer / 1024).toFixed(1)} KB a peer it talked to at the end`);
  console.log(
    `${lpad('ranks', 8)} ${lpad('file', 10)} ${lpad('json', 10)} ${lpad('sent/rank', 10)} ${lpad('leader', 9)} ${lpad('w. peers', 9)} ${lpad('writer mem', 11)} ${lpad('end of job', 11)}`,
  );
  for (const n of MODEL) {
    const bytes = file.a + file.b * n;
    const image = bytes / n;
    const peers = peersOf(n);
    const mem = other + gatherOwn(n, image) + Math.max(0, perPeer) * peers;
    const t = 5 * Math.log2(n) * ALPHA_US * 1e-6 + n * (image / (WRITER_MBPS * 1e6) + PER_RANK_US * 1e-6);
    console.log(
      `${lpad(n, 8)} ${lpad(mb(bytes), 10)} ${lpad(mb(json.a + json.b * n), 10)} ${lpad(`${(image + 4).toFixed(0)} B`, 10)} ${lpad(kb(group(n) * image), 9)} ${lpad(peers, 9)} ${lpad(mb(mem), 11)} ${lpad(`${t.toFixed(3)} s`, 11)}`,
    );
  }
  console.log('');
}

forEachFlavor(tmp, (fl) => {
  console.log(flavorHeader(fl));
  const prog = join(tmp, `scale_ring_${fl.name}`);
  run([fl.cc, '-O2', '-o', prog, join(ROOT, 'bench', 'scale_ring.c')]);
  const trees = [{ label: 'mpii', bin: MPII }, ...(BASE ? [{ label: `base (${BASE})`, bin: BASE }] : [])];
  const rows = trees.map(() => []);
  const failed = [];
  for (const n of SIZES) {
    const got = trees.map(() => []);
    const plain = [];
    try {
      for (let k = 0; k < ROUNDS; k++) {
        log(`${fl.name} ${n} ranks, round ${k + 1}/${ROUNDS}`);
        plain.push(measure(fl, prog, n).finalizeMs);
        trees.forEach((t, i) => got[i].push(measure(fl, prog, n, t.bin)));
      }
    } catch (e) {
      // a size this machine cannot run (Open MPI 4.1 loses ranks of 256 oversubscribed ones, plain
      // runs too): said, and the other sizes still measured
      failed.push(`${n} ranks: ${e.message.split('\n')[0]}`);
      continue;
    }
    trees.forEach((_, i) => {
      const g = got[i];
      const m = (k) => median(g.map((x) => x[k]));
      rows[i].push({
        n,
        file: m('file'),
        json: m('json'),
        writerKb: m('writerKb'),
        otherKb: m('otherKb'),
        leaderKb: m('leaderKb'),
        finalizeMs: m('finalizeMs'),
        plainMs: median(plain),
      });
    });
  }
  for (const f of failed) console.log(`failed: ${f}`);
  trees.forEach((t, i) => rows[i].length && report(`${fl.label}, ${t.label}: monitor,profile, ${ROUNDS} round(s), medians`, rows[i]));
  return failed.length;
});

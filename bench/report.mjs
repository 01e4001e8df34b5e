#!/usr/bin/env node
// bench/report.mjs - how long does `mpii report` take as jobs grow?
//
// For 64, 256, 1024 and 4096 ranks: a synthetic profile.mpii (src/profile-file/synthetic.ts) where
// every rank sends point-to-point messages to every other rank and takes part in collectives
// with all of them (the monitor's per-peer table full: ranks × peers entries), and has seven
// call sites in the profile tool. Then, REPS times each: `mpii report DIR` (the terminal report,
// printed to /dev/null) and `mpii report DIR --html FILE` (which prints the terminal report too).
// Prints per size the file, the median and minimum wall clock of both and the time per
// rank×peer pair; then whether 1024 ranks take at most 2 s and whether the time grows linearly
// with the data (ranks × peers: 16x from 1024 to 4096 ranks).
//
// Usage (after `npm run build`): node bench/report.mjs
// Knobs (environment): SIZES (default 64,256,1024,4096), REPS (default 3). The profiles go to a
// temporary directory (4096 ranks: about 1.4 GB), removed at the end.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { MPII, log, lpad, median } from './common.mjs';

const { writeSyntheticJob } = await import('../dist/src/profile-file/synthetic.js');

const SIZES = (process.env.SIZES ?? '64,256,1024,4096').split(',').map(Number);
const REPS = Number(process.env.REPS ?? 3);
const LIMIT_S = 2;
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-report-'));

/** Wall clock (s) and peak memory (MiB, when /usr/bin/time is there) of one report. */
function timed(args) {
  const argv = TIME ? [TIME, '-f', 'MAXRSS %M', process.execPath, MPII, ...args] : [process.execPath, MPII, ...args];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'ignore', 'pipe'] });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`mpii ${args.join(' ')} failed: ${r.stderr}`);
  const rss = /MAXRSS (\d+)/.exec(r.stderr);
  return { s, mib: rss ? Number(rss[1]) / 1024 : NaN };
}

const rows = [];
try {
  for (const n of SIZES) {
    const dir = join(tmp, `job-${n}`);
    const g0 = Date.now();
    const file = writeSyntheticJob(dir, n);
    const mb = statSync(file).size / 2 ** 20;
    log(`${n} ranks: wrote ${mb.toFixed(1)} MiB in ${((Date.now() - g0) / 1000).toFixed(1)} s`);
    const text = [];
    const html = [];
    for (let i = 0; i < REPS; i++) {
      text.push(timed(['report', dir]));
      html.push(timed(['report', dir, '--html', join(dir, 'report.html')]));
      log(`${n} ranks: rep ${i + 1}/${REPS}: terminal ${text[i].s.toFixed(2)} s, --html ${html[i].s.toFixed(2)} s`);
    }
    const page = statSync(join(dir, 'report.html')).size / 2 ** 10;
    rows.push({ n, pairs: n * (n - 1), mb, page, text: median(text.map((x) => x.s)), textMin: Math.min(...text.map((x) => x.s)),
      html: median(html.map((x) => x.s)), htmlMin: Math.min(...html.map((x) => x.s)), mib: Math.max(...html.map((x) => x.mib)) });
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

console.log(`mpii report on synthetic jobs (every rank talks to every peer), ${REPS} runs each, wall clock`);
console.log(`  ${lpad('ranks', 6)} ${lpad('pairs', 10)} ${lpad('profile', 10)} ${lpad('terminal', 9)} ${lpad('(min)', 7)} ${lpad('--html', 8)} ${lpad('(min)', 7)} ${lpad('page', 8)} ${lpad('peak mem', 9)} ${lpad('ns/pair', 8)}`);
for (const r of rows) {
  console.log(`  ${lpad(r.n, 6)} ${lpad(r.pairs, 10)} ${lpad(r.mb.toFixed(1) + ' MiB', 10)} ${lpad(r.text.toFixed(2) + ' s', 9)} ${lpad(r.textMin.toFixed(2), 7)} `
    + `${lpad(r.html.toFixed(2) + ' s', 8)} ${lpad(r.htmlMin.toFixed(2), 7)} ${lpad(r.page.toFixed(0) + ' KiB', 8)} ${lpad(Number.isNaN(r.mib) ? '?' : r.mib.toFixed(0) + ' MiB', 9)} `
    + `${lpad(((r.html * 1e9) / r.pairs).toFixed(0), 8)}`);
}
const at = (n) => rows.find((r) => r.n === n);
let failed = false;
if (at(1024)) {
  const ok = at(1024).text <= LIMIT_S && at(1024).html <= LIMIT_S;
  failed ||= !ok;
  console.log(`1024 ranks × 1024 peers: terminal ${at(1024).text.toFixed(2)} s, --html ${at(1024).html.toFixed(2)} s (target <= ${LIMIT_S} s)${ok ? '' : '  <-- ABOVE TARGET'}`);
}
if (at(1024) && at(4096)) {
  // linear in the data: 16x the pairs should cost at most about 16x; with the fixed start-up
  // (Node, modules: the 64-rank time) taken off both, the same
  const base = at(64)?.html ?? 0;
  const grow = (at(4096).html - base) / (at(1024).html - base);
  const data = at(4096).pairs / at(1024).pairs;
  const ok = grow <= data * 1.25;
  failed ||= !ok;
  console.log(`4096 / 1024 ranks: ${(at(4096).html / at(1024).html).toFixed(1)}x the time, ${grow.toFixed(1)}x without the start-up${base ? ` (${base.toFixed(2)} s, the 64-rank time)` : ''}, `
    + `for ${data.toFixed(1)}x the pairs (linear: <= ${(data * 1.25).toFixed(1)}x)${ok ? '' : '  <-- WORSE THAN LINEAR'}`);
}
console.log("  (Node's start and module loading included; the page has at most 64×64 heatmap cells and 128 bars at any size)");
process.exitCode = failed ? 1 : 0;

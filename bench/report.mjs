#!/usr/bin/env node
// bench/report.mjs - how long does `mpii report` take, and how much memory, as jobs grow?
//
// For each size in SIZES a synthetic profile.mpii (src/profile-file/synthetic.ts: the monitor and
// profile tools, seven call sites per rank, the COMM_WORLD record whose labels list every member)
// where every rank talks to PEERS_DENSE (1024) peers, or all of them when there are fewer, up to
// DENSE_MAX (1024) ranks, and to PEERS_SPARSE (64: a 3-D stencil's 26 neighbours plus the members
// of its sub-communicators' collectives) beyond; each peer has point-to-point and collective
// entries. Then, REPS times each, interleaved: `mpii report DIR` (terminal, to /dev/null),
// `mpii report DIR --json` and, up to HTML_MAX ranks, `mpii report DIR --html FILE`, each a child
// process (Node's start included) under /usr/bin/time for its peak RSS.
// Prints per size the file, the median wall clock and peak memory of each form, then the targets
// of issue 24: 1024 ranks × 1024 peers ≤ 0.3 s, 16384 ranks ≤ 5 s.
//
// Usage (after `npm run build`): node bench/report.mjs
// Knobs (environment): SIZES (64,256,1024,4096,16384), REPS (5), PEERS_DENSE (1024), DENSE_MAX
// (1024), PEERS_SPARSE (64), HTML_MAX (4096), FORMS (text,json,html), KEEP=1 keeps the profiles
// (printed paths), MPII=/other/tree/bin/mpii.js times another build instead, BASE=/other/tree/bin/mpii.js
// times that one too, interleaved run by run, with the ratios (before/after),
// JOBS=DIR writes (or reuses) the profiles there, kept.
// CPU_PROF=DIR: one more run of each form with `node --cpu-prof --cpu-prof-dir DIR`.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { MPII, log, lpad, median } from './common.mjs';

const { writeSyntheticJob } = await import('../dist/src/profile-file/synthetic.js');

const SIZES = (process.env.SIZES ?? '64,256,1024,4096,16384').split(',').map(Number);
const REPS = Number(process.env.REPS ?? 5);
const PEERS_DENSE = Number(process.env.PEERS_DENSE ?? 1024);
const DENSE_MAX = Number(process.env.DENSE_MAX ?? 1024);
const PEERS_SPARSE = Number(process.env.PEERS_SPARSE ?? 64);
const HTML_MAX = Number(process.env.HTML_MAX ?? 4096);
const FORMS = (process.env.FORMS ?? 'text,json,html').split(',');
const BIN = process.env.MPII ?? MPII;
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const TARGETS = { 1024: 0.3, 16384: 5 };

const tmp = process.env.JOBS ?? mkdtempSync(join(tmpdir(), 'mpii-bench-report-'));
const keep = !!(process.env.KEEP || process.env.JOBS);
const peersAt = (n) => Math.min(n - 1, n <= DENSE_MAX ? PEERS_DENSE : PEERS_SPARSE);

/** Wall clock (s), CPU time (user + system, s) and peak RSS (MiB; those two when /usr/bin/time is
 *  there) of one `mpii` command of build `bin`. */
function timed(bin, args, node = []) {
  const cmd = [process.execPath, ...node, bin, ...args];
  const argv = TIME ? [TIME, '-f', 'MAXRSS %M CPU %U %S', ...cmd] : cmd;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) {
    // counted as a failure (an older mpii's --json at 16,384 ranks), not the end of the bench
    log(
      `${bin} ${args.join(' ')} failed after ${s.toFixed(1)} s: ${r.stderr.split('\n').find((l) => l.startsWith('mpii:')) ?? r.stderr.trim().split('\n').pop()}`,
    );
    return { s: NaN, cpu: NaN, mib: NaN };
  }
  const m = /MAXRSS (\d+) CPU ([\d.]+) ([\d.]+)/.exec(r.stderr);
  return { s, cpu: m ? Number(m[2]) + Number(m[3]) : NaN, mib: m ? Number(m[1]) / 1024 : NaN };
}

// this build, and with BASE=/other/tree/bin/mpii.js the one to compare with, run interleaved
const BUILDS = [{ name: 'this', bin: BIN }, ...(process.env.BASE ? [{ name: 'base', bin: process.env.BASE }] : [])];
const rows = [];
const loads = [];
try {
  for (const n of SIZES) {
    const dir = join(tmp, `job-${n}`);
    const peers = peersAt(n);
    const g0 = Date.now();
    const file = existsSync(join(dir, 'profile.mpii')) && process.env.JOBS ? join(dir, 'profile.mpii') : writeSyntheticJob(dir, n, { peers });
    const mb = statSync(file).size / 2 ** 20;
    log(`${n} ranks × ${peers} peers: ${mb.toFixed(1)} MiB (${((Date.now() - g0) / 1000).toFixed(1)} s)`);
    const all = { text: ['report', dir], json: ['report', dir, '--json'], html: ['report', dir, '--html', join(tmp, `report-${n}.html`), '--force'] };
    const forms = Object.entries(all).filter(([k]) => FORMS.includes(k) && (k !== 'html' || n <= HTML_MAX));
    const got = {};
    for (const b of BUILDS) for (const [k] of forms) got[`${b.name} ${k}`] = [];
    timed(BIN, ['report', dir]); // the file into the page cache
    for (let i = 0; i < REPS; i++) {
      loads.push(loadavg()[0]);
      for (const [k, args] of forms) {
        for (const b of BUILDS) {
          const key = `${b.name} ${k}`;
          // a form that failed is not run again (an older build's --json at 16,384 ranks: a minute each)
          got[key].push(got[key].some((x) => Number.isNaN(x.s)) ? { s: NaN, cpu: NaN, mib: NaN } : timed(b.bin, args));
        }
      }
      log(
        `${n} ranks: rep ${i + 1}/${REPS}: ${Object.entries(got)
          .map(([k, x]) => `${k} ${x[i].s.toFixed(2)} s ${x[i].mib.toFixed(0)} MiB`)
          .join(', ')} (load ${loadavg()[0].toFixed(1)})`,
      );
    }
    if (process.env.CPU_PROF) {
      for (const [k, args] of forms) timed(BIN, args, ['--cpu-prof', '--cpu-prof-dir', process.env.CPU_PROF, '--cpu-prof-name', `report-${n}-${k}.cpuprofile`]);
    }
    const row = { n, peers, mb };
    for (const [key, xs] of Object.entries(got)) {
      row[key] = xs.some((x) => Number.isNaN(x.s))
        ? { s: NaN, cpu: NaN, mib: NaN }
        : { s: median(xs.map((x) => x.s)), cpu: median(xs.map((x) => x.cpu)), mib: median(xs.map((x) => x.mib)) };
    }
    rows.push(row);
    if (keep) log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
} finally {
  if (!keep) rmSync(tmp, { recursive: true, force: true });
}

const cell = (x) =>
  !x
    ? lpad('-', 24)
    : Number.isNaN(x.s)
      ? lpad('failed', 24)
      : `${lpad(x.s.toFixed(2) + ' s', 8)} ${lpad(x.cpu.toFixed(2), 5)} ${lpad(Number.isNaN(x.mib) ? '?' : x.mib.toFixed(0) + ' MiB', 9)}`;
console.log(
  `mpii report on synthetic jobs, median of ${REPS} runs each: wall clock, CPU seconds, peak RSS; load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
);
const keys = Object.keys(rows[0] ?? {}).filter((k) => / /.test(k));
console.log(`  ${lpad('ranks', 6)} ${lpad('peers', 6)} ${lpad('profile', 11)}   ${keys.map((k) => lpad(k, 24)).join('   ')}`);
for (const r of rows) console.log(`  ${lpad(r.n, 6)} ${lpad(r.peers, 6)} ${lpad(r.mb.toFixed(1) + ' MiB', 11)}   ${keys.map((k) => cell(r[k])).join('   ')}`);
if (BUILDS.length > 1) {
  console.log('this / base, wall clock (and peak RSS):');
  for (const r of rows) {
    console.log(
      `  ${lpad(r.n, 6)}   ${FORMS.filter((k) => r[`this ${k}`])
        .map((k) => {
          const a = r[`this ${k}`];
          const b = r[`base ${k}`];
          return `${k} ${Number.isNaN(b.s) ? 'base failed' : `${(a.s / b.s).toFixed(2)}x (${(a.mib / b.mib).toFixed(2)}x)`}`;
        })
        .join(', ')}`,
    );
  }
}
let failed = false;
for (const [n, limit] of Object.entries(TARGETS)) {
  const r = rows.find((x) => x.n === Number(n))?.['this text'];
  if (!r) continue;
  failed ||= !(r.s <= limit);
  console.log(
    `${n} ranks: terminal report ${r.s.toFixed(2)} s, peak ${r.mib.toFixed(0)} MiB (target <= ${limit} s)${r.s <= limit ? '' : '  <-- ABOVE TARGET'}`,
  );
}
process.exitCode = failed ? 1 : 0;

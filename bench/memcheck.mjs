#!/usr/bin/env node
// bench/memcheck.mjs - what does `memcheck` cost next to the program alone and next to Valgrind?
//
// For each installed MPI: compile bench/isend_pingpong.c (Irecv/Isend + Wait on both sides: every
// message is a pending send and a pending receive), then for 8 B, 64 KiB and 1 MiB messages run
//   plain     the launcher alone
//   memcheck  mpii run --tools memcheck (page engine, default options)
//   valgrind  the launcher running `valgrind --tool=memcheck -q` on the plain program (no mpii)
// interleaved in rounds (shuffled order), median half round-trip time per configuration. Valgrind
// runs fewer iterations (ITERS / VG_DIV): the program times its own loop, so the per-message time
// compares. Prints a table and the ratios memcheck/plain (targets: <= 4x at 8 B, <= 1.10x at
// >= 64 KiB) and valgrind/memcheck (target: >= 10x).
//
// Usage (after `npm run build`): node bench/memcheck.mjs
// Knobs: ROUNDS (default 7), ITERS (ping-pongs per run at 8 B, default 200000; ITERS / (size / 4 KiB),
// at least 1000, for bigger messages), VG_DIV (default 20), MPI=openmpi|mpich. Plain text on stdout, progress on stderr.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flavorHeader, installedFlavors, log, lpad, median, mpiiRun, pad, ROOT, run, runRetry, shuffle, which } from './common.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const ITERS = Number(process.env.ITERS ?? 200000);
const VG_DIV = Number(process.env.VG_DIV ?? 20);
const SIZES = [8, 64 << 10, 1 << 20];
const TARGET = (size) => (size <= 8 ? 4 : 1.1);

const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-mc-'));
let outSeq = 0;
// long enough that a call site's first 16 fully checked operations (a fixed cost per site, not
// per message: ~15 us each at 8 B, ~0.2 ms at 1 MiB on this VM) do not dominate the per-message time
const itersFor = (size) => Math.max(1000, Math.round(ITERS / Math.max(1, size / 4096)));

function configs(fl, exe, size) {
  const iters = itersFor(size);
  const prog = (n) => [exe, String(n), String(size)];
  const launch = [fl.run, ...fl.extra, '-np', '2'];
  return [
    { name: 'plain', argv: () => [...launch, ...prog(iters)] },
    {
      name: 'memcheck',
      argv: () => mpiiRun(join(tmp, `out-${++outSeq}`), 'memcheck', ...fl.extra, '-np', '2', ...prog(iters)),
    },
    ...(which('valgrind')
      ? [{ name: 'valgrind', argv: () => [...launch, 'valgrind', '--tool=memcheck', '-q', ...prog(Math.max(20, Math.round(iters / VG_DIV)))] }]
      : []),
  ];
}

const parse = (out) => {
  const m = /half_rtt_ns=([\d.]+)/.exec(out);
  if (!m) throw new Error(`no half_rtt_ns in output:\n${out}`);
  return Number(m[1]);
};

const fmt = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(2)} us` : `${ns.toFixed(0)} ns`);
const human = (b) => (b >= 1 << 20 ? `${b >> 20} MiB` : b >= 1024 ? `${b >> 10} KiB` : `${b} B`);

for (const fl of installedFlavors()) {
  const exe = join(tmp, `isend_pingpong-${fl.name}`);
  run([fl.cc, '-O2', '-o', exe, join(ROOT, 'bench', 'isend_pingpong.c')]);
  console.log(flavorHeader(fl));
  console.log(
    `${pad('size', 8)}${lpad('plain', 12)}${lpad('memcheck', 12)}${lpad('valgrind', 12)}${lpad('mc/plain', 10)}${lpad('target', 8)}${lpad('vg/mc', 9)}`,
  );
  for (const size of SIZES) {
    const cs = configs(fl, exe, size);
    for (const c of cs) parse(runRetry(c.argv()).stdout); // warm-up: shim built, every config runs
    const samples = Object.fromEntries(cs.map((c) => [c.name, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const c of shuffle(cs)) samples[c.name].push(parse(runRetry(c.argv()).stdout));
      log(`${fl.name} ${human(size)} round ${r + 1}/${ROUNDS}`);
    }
    const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
    const ratio = m.memcheck / m.plain;
    const vg = m.valgrind ? (m.valgrind / m.memcheck).toFixed(1) + 'x' : 'n/a';
    console.log(
      `${pad(human(size), 8)}${lpad(fmt(m.plain), 12)}${lpad(fmt(m.memcheck), 12)}${lpad(m.valgrind ? fmt(m.valgrind) : 'n/a', 12)}` +
        `${lpad(ratio.toFixed(2) + 'x', 10)}${lpad('<=' + TARGET(size) + 'x', 8)}${lpad(vg, 9)}` +
        `  ${ratio <= TARGET(size) ? 'ok' : 'MISSED'}${m.valgrind && m.valgrind / m.memcheck < 10 ? ' (valgrind < 10x memcheck)' : ''}`,
    );
  }
  console.log();
}
rmSync(tmp, { recursive: true, force: true });

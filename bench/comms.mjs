#!/usr/bin/env node
// bench/comms.mjs - what each tool costs per communicator made and freed (issue 36: MPICH's
// comm/ctxalloc, 200,000 MPI_Comm_dup + MPI_Comm_free, went past 60 s under monitor,profile,
// memcheck and overlap).
//
// For each installed MPI: bench/comms.c at -np 1 (a rank's own cost, no waiting for a peer),
// plain and under each stack, in interleaved rounds (order shuffled each round); per stack the
// median CPU µs per dup+free and per split+free, and its ratio to plain. A second table runs
// memcheck and monitor,profile with 20 and 2,000 communicators held at once: a cost that does not
// grow with the number alive is O(1) per communicator.
//
// Usage (after `npm run build`): node bench/comms.mjs
// Knobs (environment): ROUNDS (default 5), MPI=openmpi|mpich, STACKS (default
// noop,trace-count,monitor,profile,monitor+profile,memcheck,overlap; `+` joins tools of a stack).
// Plain text on stdout; progress on stderr.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flavorHeader, forEachFlavor, log, lpad, median, mpiiRun, pad, ROOT, runRetry, shuffle } from './common.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const STACKS = (process.env.STACKS ?? 'noop,trace-count,monitor,profile,monitor+profile,memcheck,overlap').split(',');

const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-comms-'));
let outSeq = 0;

function parse(stdout) {
  const m = /comms dup_free_us=([\d.]+) split_free_us=([\d.]+)/.exec(stdout);
  if (!m) throw new Error(`no result line in: ${stdout.trim().slice(0, 200)}`);
  return { dup: Number(m[1]), split: Number(m[2]) };
}

function measure(fl, bin, stacks, args) {
  const argv = (stack) =>
    stack === 'plain'
      ? [fl.run, ...fl.extra, '-np', '1', bin, ...args]
      : mpiiRun(join(tmp, `out-${++outSeq}`), stack.replace(/\+/g, ','), ...fl.extra, '-np', '1', bin, ...args);
  const got = Object.fromEntries(stacks.map((s) => [s, []]));
  for (const s of stacks) runRetry(argv(s)); // builds each shim before timing
  for (let r = 0; r < ROUNDS; r++) {
    log(`${fl.name} round ${r + 1}/${ROUNDS} (${args.join(' ')})`);
    for (const s of shuffle(stacks)) got[s].push(parse(runRetry(argv(s)).stdout));
  }
  return Object.fromEntries(stacks.map((s) => [s, { dup: median(got[s].map((x) => x.dup)), split: median(got[s].map((x) => x.split)) }]));
}

forEachFlavor(tmp, (fl) => {
  const bin = join(tmp, `comms-${fl.name}`);
  runRetry([fl.cc, '-O2', '-o', bin, join(ROOT, 'bench', 'comms.c')]);
  console.log(flavorHeader(fl));
  const all = measure(fl, bin, ['plain', ...STACKS], ['50', '200']);
  console.log(`per communicator, CPU µs (median of ${ROUNDS} interleaved rounds; 200 held at once)`);
  console.log(`${pad('stack', 18)}${lpad('dup+free', 10)}${lpad('x plain', 9)}${lpad('split+free', 12)}${lpad('x plain', 9)}`);
  for (const [s, v] of Object.entries(all))
    console.log(
      `${pad(s, 18)}${lpad(v.dup.toFixed(2), 10)}${lpad((v.dup / all.plain.dup).toFixed(2), 9)}${lpad(v.split.toFixed(2), 12)}${lpad((v.split / all.plain.split).toFixed(2), 9)}`,
    );
  console.log('\nO(1) per communicator: dup+free CPU µs with 20 and 2,000 held at once');
  for (const s of ['plain', 'memcheck', 'monitor+profile']) {
    const few = measure(fl, bin, [s], ['500', '20'])[s].dup,
      many = measure(fl, bin, [s], ['5', '2000'])[s].dup;
    console.log(`${pad(s, 18)}${lpad(few.toFixed(2), 10)}${lpad(many.toFixed(2), 10)}   2000/20 ${(many / few).toFixed(2)}`);
  }
  console.log('');
});

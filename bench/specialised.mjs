#!/usr/bin/env node
// bench/specialised.mjs - what each built-in stack adds to the smallest ping-pong, compiled into
// one wrapper per function (the specialised shim, the default) and through the QMPI chain
// (`mpii run --chained`), side by side.
//
// bench/pingpong_paired.c, 8 bytes, -np 2, shared memory: pairs of 1000-round-trip chunks, one
// through MPI_Send/MPI_Recv (the stack), the other through PMPI_Send/PMPI_Recv (the library
// directly), a millisecond apart on the same cores; a run's figure is the median of its pairs'
// ratios. RUNS runs per configuration, all configurations interleaved in a fresh shuffled order
// each round; printed: the median over runs [quartiles], the nanoseconds that adds per half
// round trip (one send and one receive), and the target of issue 24 for the stack. Runs are also
// split at the median direct half round trip into the VM's fast and slow state (a fixed cost
// per call weighs most in the fast one).
//
// Usage (after `npm run build`): node bench/specialised.mjs
// Knobs (environment): RUNS (default 8), PAIRS (default 150), MPI=openmpi|mpich,
// STACKS (comma-separated, `+` joins tools; default trace-count,monitor,profile,monitor+profile).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flavorHeader, forEachFlavor, log, lpad, median, mpiiRun, pad, quantile, ROOT, runRetry, shuffle } from './common.mjs';

const RUNS = Number(process.env.RUNS ?? 8);
const PAIRS = Number(process.env.PAIRS ?? 150);
const STACKS = (process.env.STACKS ?? 'trace-count,monitor,profile,monitor+profile').split(',');
const TARGET = { 'trace-count': 1.01, monitor: 1.02, profile: 1.02, 'monitor+profile': 1.03 };
const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-specialised-'));
const LINE = /pingpong_paired .*direct_ns=([\d.]+) stack_ns=([\d.]+) ratio=([\d.]+)/;

forEachFlavor(tmp, (fl) => {
  const exe = join(tmp, `paired-${fl.name}`);
  runRetry([fl.cc, '-O2', '-o', exe, join(ROOT, 'bench', 'pingpong_paired.c')]);
  const configs = [{ name: 'empty stack', tools: '', chained: false }];
  for (const s of STACKS)
    for (const chained of [false, true])
      configs.push({ name: `${s}, ${chained ? 'chained' : 'specialised'}`, stack: s, tools: s.replaceAll('+', ','), chained });
  const res = Object.fromEntries(configs.map((c) => [c.name, []]));
  let seq = 0;
  const once = (c) => {
    const r = runRetry(
      mpiiRun(join(tmp, `out-${fl.name}-${++seq}`), c.tools, ...(c.chained ? ['--chained'] : []), '-np', '2', ...fl.extra, exe, String(PAIRS), '1000', '8'),
    );
    const m = LINE.exec(r.stdout);
    if (!m) throw new Error(`no result line: ${r.stdout}`);
    return { direct: Number(m[1]), stack: Number(m[2]), ratio: Number(m[3]) };
  };
  for (const c of configs) once(c); // builds every shim before anything is measured
  for (let r = 0; r < RUNS; r++) {
    for (const c of shuffle(configs)) res[c.name].push(once(c));
    log(`${fl.label}: round ${r + 1}/${RUNS}`);
  }
  const split = median(
    Object.values(res)
      .flat()
      .map((x) => x.direct),
  );
  console.log(flavorHeader(fl));
  console.log(
    `  8-byte ping-pong, -np 2, shared memory, ${RUNS} runs per configuration of ${PAIRS} chunk pairs; median direct half round trip ${split.toFixed(0)} ns`,
  );
  console.log(
    `  ${pad('stack', 34)}${lpad('stack / direct [q1-q3]', 26)}${lpad('ns added', 10)}${lpad('fast state', 12)}${lpad('slow state', 12)}${lpad('target', 9)}`,
  );
  for (const c of configs) {
    const xs = res[c.name];
    const q = xs.map((x) => x.ratio);
    const added = median(xs.map((x) => x.stack - x.direct));
    const state = (fast) => {
      const s = xs.filter((x) => x.direct <= split === fast).map((x) => x.ratio);
      return s.length ? `${median(s).toFixed(3)}x` : '-';
    };
    const target = c.stack && !c.chained ? TARGET[c.stack] : undefined;
    const verdict = target ? `${median(q) <= target ? '<=' : '>'} ${target.toFixed(2)}x` : '';
    console.log(
      `  ${pad(c.name, 34)}${lpad(`${median(q).toFixed(3)}x [${quantile(q, 0.25).toFixed(3)}-${quantile(q, 0.75).toFixed(3)}]`, 26)}` +
        `${lpad(added.toFixed(1), 10)}${lpad(state(true), 12)}${lpad(state(false), 12)}${lpad(verdict, 9)}`,
    );
  }
  console.log('');
});

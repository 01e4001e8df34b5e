#!/usr/bin/env node
// bench/overlap.mjs - Natvig's Table 6.2 (red-black SOR, automatic vs manual overlap), measured in one run.
//
// For each installed MPI and each transport:
//   1. compile bench/sor.c with that MPI's mpicc;
//   2. run, for every grid size n, six methods:
//        MPI_Sendrecv, MPI_Isend, Full overlap   the three hand-written variants (sor sendrecv|isend|overlap),
//                                                plain launcher, no preload
//        Paging, Chaining, Adaptive              `sor sendrecv` under `mpii run --tools 'overlap[mode=...]'`
//      repetitions interleaved in rounds (every round runs every configuration once, in a fresh shuffled
//      order); the figure of a run is sor's median_ms (median over its iterations of the slowest rank),
//      and a configuration's figure is the median over its runs;
//   3. print ms/iteration (rows = methods, columns = n), the ratios to MPI_Isend, the automatic rows
//      against MPI_Sendrecv, and the correctness verdict: every run's checksum (FNV-1a of the final
//      grid) must equal plain MPI_Sendrecv's, or the script lists the mismatches and exits 1.
//
// Usage (after `npm run build`):
//   node bench/overlap.mjs [--n 128,256,512,1024,2048] [--np 4] [--reps 5] [--transport shm,tcp]
//                          [--mpi openmpi,mpich] [--check]
// --check runs every configuration once and reports correctness only.
// MPII_BENCH_OVERLAP_TOOL replaces the tool of the automatic rows: `overlap` (default) runs
// overlap[mode=<row>]; a value containing {mode} has it substituted (e.g. 'overlap[mode={mode};heap-min=1]');
// anything else (e.g. `noop`) is used as is for all three rows.
// Plain text on stdout; progress on stderr.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { MPII, ROOT, flavorHeader, installedFlavors, log, lpad, median, pad, parseOptions, run, shuffle, usageFail } from './common.mjs';

const USAGE = 'usage: node bench/overlap.mjs [--n 128,256,...] [--np 4] [--reps 5] [--transport shm,tcp] [--mpi openmpi,mpich] [--check]';
const RUN_TIMEOUT_MS = 300_000; // one job; generous: MPICH oversubscribed at n=2048 under paging is slow
const TRIES = 3;

/** The command line, validated; exits 2 with one line on a bad option. */
const fail = usageFail('overlap.mjs', USAGE);

function options() {
  const v = parseOptions(
    {
      n: { type: 'string', default: '128,256,512,1024,2048' },
      np: { type: 'string', default: '4' },
      reps: { type: 'string', default: '5' },
      transport: { type: 'string', default: 'shm,tcp' },
      mpi: { type: 'string', default: 'openmpi,mpich' },
      check: { type: 'boolean', default: false },
    },
    USAGE,
    fail,
  );
  const ints = (s, what, min) => {
    const xs = s.split(',').map((x) => x.trim());
    if (!xs.every((x) => /^\d+$/.test(x) && Number(x) >= min)) fail(`--${what} wants integers >= ${min}, got '${s}'`);
    return xs.map(Number);
  };
  const names = (s, what, known) => {
    const xs = s.split(',').map((x) => x.trim());
    const bad = xs.filter((x) => !known.includes(x));
    if (bad.length) fail(`--${what}: unknown ${bad.join(', ')} (known: ${known.join(', ')})`);
    return xs;
  };
  return {
    ns: [...new Set(ints(v.n, 'n', 2))].sort((a, b) => a - b),
    np: ints(v.np, 'np', 1)[0],
    reps: v.check ? 1 : ints(v.reps, 'reps', 1)[0],
    transports: names(v.transport, 'transport', Object.keys(TRANSPORTS)),
    mpis: names(v.mpi, 'mpi', ['openmpi', 'mpich']),
    check: v.check,
  };
}

/**
 * Launcher arguments per transport, or a reason why the MPI cannot do it. Open MPI: TCP through ob1's
 * tcp BTL (ob1 named explicitly, because with pml ucx selected the BTL list would be ignored). MPICH
 * (ch4:ucx) can be pointed at TCP with UCX_TLS=tcp,self, but with UCX 1.13 such jobs hang in
 * MPI_Finalize now and then (openucx/ucx#8738: about one -np 4 run in three here), so it is not offered.
 */
const TRANSPORTS = {
  shm: { label: 'shared memory', args: () => [] },
  tcp: {
    label: 'TCP (loopback)',
    args: (fl) => (fl.ompi ? ['--mca', 'pml', 'ob1', '--mca', 'btl', 'tcp,self'] : null),
    unsupported: 'tcp is Open MPI only: MPICH ch4:ucx with UCX_TLS=tcp,self hangs in MPI_Finalize now and then (UCX 1.13, openucx/ucx#8738)',
  },
};

/** The tool of an automatic row; see MPII_BENCH_OVERLAP_TOOL in the header. */
function toolSpec(mode) {
  const t = process.env.MPII_BENCH_OVERLAP_TOOL ?? 'overlap';
  if (t === 'overlap') return `overlap[mode=${mode}]`;
  return t.includes('{mode}') ? t.replaceAll('{mode}', mode) : t;
}

// Table 6.2's rows, plus the overlap tool's adaptive mode. Only the Sendrecv code is optimised automatically.
const METHODS = [
  { name: 'MPI_Sendrecv', variant: 'sendrecv' },
  { name: 'MPI_Isend', variant: 'isend' },
  { name: 'Full overlap', variant: 'overlap' },
  { name: 'Paging', variant: 'sendrecv', tools: toolSpec('paging') },
  { name: 'Chaining', variant: 'sendrecv', tools: toolSpec('chaining') },
  { name: 'Adaptive', variant: 'sendrecv', tools: toolSpec('adaptive') },
];
const REFERENCE = 'MPI_Sendrecv';
const automatic = (m) => Boolean(m.tools);

const RESULT = /^sor variant=\S+ n=(\d+) .*median_ms=([\d.]+) min_ms=([\d.]+) checksum=([0-9a-f]{16})$/m;

const opt = options();
const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-overlap-'));
let outSeq = 0;

/** The command of one run: the plain launcher, or mpii with the method's tool stack in front of it. */
function argv(block, method, n) {
  const launcher = ['-np', String(opt.np), ...block.fl.extra, ...block.trArgs, block.sor, method.variant, String(n)];
  if (!automatic(method)) return { argv: [block.fl.run, ...launcher] };
  // a fresh --out per run, removed afterwards, so that no run finds (or waits on) another run's profile
  const out = join(tmp, `out-${++outSeq}`);
  return { argv: [process.execPath, MPII, 'run', '--quiet', '--tools', method.tools, '--out', out, ...launcher], out };
}

/** One run (retried: the shim may be rebuilt under us if preload/ changes meanwhile) -> {ms, checksum, wall}. */
function measureOnce(block, method, n) {
  for (let i = 1; ; i++) {
    const cmd = argv(block, method, n);
    try {
      const { stdout, ms: wall } = run(cmd.argv, RUN_TIMEOUT_MS);
      const m = RESULT.exec(stdout);
      if (!m || Number(m[1]) !== n) throw new Error(`${cmd.argv.join(' ')}: no result line in output:\n${stdout.trim()}`);
      return { ms: Number(m[2]), checksum: m[4], wall };
    } catch (e) {
      if (i >= TRIES) throw e;
      log(`retry ${i} after failure: ${e.message.split('\n')[0]}`);
    } finally {
      if (cmd.out) rmSync(cmd.out, { recursive: true, force: true });
    }
  }
}

/** MPI x transport blocks, each with its own sor binary; unsupported combinations are printed and left out. */
function blocks() {
  const list = [];
  for (const fl of installedFlavors().filter((f) => opt.mpis.includes(f.name))) {
    const sor = join(tmp, `sor-${fl.name}`);
    run([fl.cc, '-O2', '-Wall', '-o', sor, join(ROOT, 'bench', 'sor.c')]);
    for (const t of opt.transports) {
      const trArgs = TRANSPORTS[t].args(fl);
      if (!trArgs) {
        console.log(`${fl.label}: ${TRANSPORTS[t].unsupported}; skipped\n`);
        continue;
      }
      list.push({ fl, sor, trArgs, transport: t, label: `${fl.label} ${t}` });
    }
  }
  return list;
}

const cfgs = [];

function runCfg(c, progress) {
  try {
    const r = measureOnce(c.block, c.method, c.n);
    c.samples.push(r.ms);
    c.checksums.push(r.checksum);
    // the job's wall clock too: a run that took far longer than its neighbours met a busy machine
    log(`${progress}${c.block.label} n=${c.n} ${c.method.name}: ${r.ms} ms/iteration, checksum ${r.checksum} (job ${(r.wall / 1000).toFixed(1)} s)`);
  } catch (e) {
    c.failed = e.message;
    log(`${progress}${c.block.label} n=${c.n} ${c.method.name}: FAILED: ${e.message.split('\n')[0]}`);
  }
}

const fmtMs = (v) => (v === undefined ? '-' : v >= 100 ? v.toFixed(1) : v >= 10 ? v.toFixed(2) : v.toFixed(3));
const fmtX = (v) => (Number.isFinite(v) ? v.toFixed(2) + 'x' : '-');

/** One table: a row per method, a column per n. */
function table(title, rows, cell) {
  const w = Math.max(9, ...opt.ns.map((n) => `n=${n}`.length + 1));
  const lines = [title, `  ${pad('method', 14)}${opt.ns.map((n) => lpad(`n=${n}`, w)).join('')}`];
  for (const m of rows) lines.push(`  ${pad(m.name, 14)}${opt.ns.map((n) => lpad(cell(m, n), w)).join('')}`);
  return lines;
}

function report(block) {
  const cfg = (m, n) => cfgs.find((c) => c.block === block && c.method === m && c.n === n);
  const med = (m, n) => {
    const c = cfg(m, n);
    return c && c.samples.length ? median(c.samples) : undefined;
  };
  const isend = METHODS.find((m) => m.name === 'MPI_Isend');
  const ref = METHODS.find((m) => m.name === REFERENCE);
  const lines = [flavorHeader(block.fl)];
  const over = opt.np > availableParallelism() ? ` (oversubscribed: ${availableParallelism()} cores)` : '';
  lines.push(
    `red-black SOR, -np ${opt.np}${over}, ${TRANSPORTS[block.transport].label}; automatic rows: mpii run --tools '${toolSpec('<mode>')}' ... sor sendrecv`,
  );
  if (over && !block.fl.ompi) {
    lines.push(`  (${block.fl.label} busy-polls: with more ranks than cores the times are mostly scheduler time slices)`);
  }
  lines.push(
    ...table(`ms/iteration (median of ${opt.reps} runs of each run's median iteration, slowest rank)`, METHODS, (m, n) => {
      const c = cfg(m, n);
      return c?.failed && !c.samples.length ? 'fail' : fmtMs(med(m, n));
    }),
  );
  lines.push(...table('ratio to MPI_Isend (lower is faster)', METHODS, (m, n) => fmtX(med(m, n) / med(isend, n))));
  lines.push(...table('automatic / MPI_Sendrecv (below 1x: the tool gained)', METHODS.filter(automatic), (m, n) => fmtX(med(m, n) / med(ref, n))));
  return lines;
}

/**
 * Every run must reproduce plain MPI_Sendrecv's final grid bit for bit: within a block against that
 * block's plain Sendrecv runs, and across blocks (other MPI, other transport) for the same n.
 */
function correctness(list) {
  const bad = [];
  let runs = 0;
  for (const n of opt.ns) {
    let global;
    for (const block of list) {
      const mine = cfgs.filter((c) => c.block === block && c.n === n);
      const ref = mine.find((c) => c.method.name === REFERENCE)?.checksums[0];
      if (ref === undefined) continue; // nothing to compare with: reported as a failure
      global ??= { sum: ref, label: block.label };
      if (ref !== global.sum) bad.push(`${block.label} n=${n} plain ${REFERENCE}: checksum ${ref}, ${global.label}: ${global.sum}`);
      for (const c of mine) {
        c.checksums.forEach((s, i) => {
          runs++;
          if (s !== ref) bad.push(`${block.label} n=${n} ${c.method.name} run ${i + 1}: checksum ${s}, plain ${REFERENCE}: ${ref}`);
        });
      }
    }
  }
  return { runs, bad };
}

let exit = 0;
try {
  const list = blocks();
  for (const block of list) for (const method of METHODS) for (const n of opt.ns) cfgs.push({ block, method, n, samples: [], checksums: [] });
  const t0 = Date.now();
  if (!opt.check) {
    // warm-up at the smallest n: builds the shim if the cache is cold and shows what runs at all; its
    // timings are dropped, but its checksums count for correctness
    log(`warm-up: ${list.length * METHODS.length} runs`);
    for (const block of list) {
      for (const method of METHODS) {
        const c = cfgs.find((x) => x.block === block && x.method === method && x.n === opt.ns[0]);
        runCfg(c, 'warm-up: ');
        if (c.samples.length) c.samples.pop();
        // a method that cannot run at all is not retried for every n and round
        if (c.failed) for (const x of cfgs) if (x.block === block && x.method === method && x !== c) x.failed = c.failed;
      }
    }
  }
  for (let round = 1; round <= opt.reps; round++) {
    const todo = shuffle(cfgs.filter((c) => !c.failed));
    todo.forEach((c, i) => {
      const done = (Date.now() - t0) / 1000;
      runCfg(c, `round ${round}/${opt.reps} [${i + 1}/${todo.length}] ${done.toFixed(0)} s: `);
    });
  }
  if (!opt.check) {
    for (const block of list) {
      for (const l of report(block)) console.log(l);
      console.log('');
    }
  }
  const { runs, bad } = correctness(list);
  if (bad.length) {
    console.log(`correctness: ${bad.length} of ${runs} runs differ:`);
    for (const b of bad) console.log(`  ${b}`);
    exit = 1;
  } else if (runs) {
    console.log(`correctness: all ${runs} runs bit-identical`);
  } else {
    console.log('correctness: no run finished, nothing to compare');
  }
  const failed = cfgs.filter((c) => c.failed);
  if (failed.length) {
    console.log(`failed: ${failed.length} configurations did not run:`);
    const seen = new Set();
    for (const c of failed) {
      // the command, then sor's or mpii's own complaint if there is one, else the tail of stderr
      const [cmd, ...rest] = c.failed.split('\n').filter(Boolean);
      const own = rest.filter((l) => /^(sor|mpii):/.test(l));
      const shown = [cmd, ...(own.length ? own : rest.slice(-3))];
      const key = `${c.block.label} ${c.method.name}`;
      console.log(`  ${key} n=${c.n}${seen.has(key) ? '' : `: ${shown.join('\n      ')}`}`);
      seen.add(key);
    }
    exit = 1;
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.exitCode = exit;

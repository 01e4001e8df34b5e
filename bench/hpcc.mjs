#!/usr/bin/env node
// bench/hpcc.mjs - is `overlap` (adaptive) "never slower" on a real application? HPC Challenge
// (Debian's `hpcc`, built for Open MPI), -np 2 on shared memory, plain against `mpii run --tools
// overlap`, interleaved rounds. RandomAccess is the test that mattered (issue 22): its
// MPI_Testany polling (tens of millions of calls) met the tool's per-call checks.
//
// Prints per round each variant's MPIRandomAccess_time, MPIRandomAccess_GUPs, PTRANS_time,
// HPL_Tflops and the whole run's wall clock, then medians and the ratio overlap / plain with the
// spread of the per-round ratios (the median of the rounds' ratios: each round's two runs met the
// same machine), the tool's counters (receives converted, calls checked) and a
// verdict line (target: ≤ 1.02x).
//
// Usage (after `npm run build`; `apt-get install -y hpcc` first): node bench/hpcc.mjs
// Knobs (environment): ROUNDS (4), N (4000: HPL's matrix order; RandomAccess's table follows the
// memory HPL uses), TOOLS ('overlap': e.g. 'overlap[mode=paging]'), CHAINED=1 (mpii run --chained).
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { MPII, log, median, quantile, run, shuffle, which } from './common.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 4);
const N = Number(process.env.N ?? 4000);
const TOOLS = process.env.TOOLS ?? 'overlap';
const CHAINED = process.env.CHAINED === '1';

if (!which('hpcc') || !which('mpirun.openmpi')) {
  console.error('bench/hpcc.mjs: needs hpcc and Open MPI: apt-get install -y hpcc openmpi-bin');
  process.exit(2);
}

// HPL.dat-style input: one problem of order N on a 1 x 2 grid; PTRANS with its defaults.
const input = `HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
${N}         Ns
1            # of NBs
80           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
1            Ps
2            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
`;

const METRICS = ['MPIRandomAccess_time', 'MPIRandomAccess_GUPs', 'PTRANS_time', 'HPL_Tflops'];
const tmp = mkdtempSync(join(tmpdir(), 'mpii-hpcc-'));
const launcher = ['-np', '2', '--oversubscribe', 'hpcc'];
const variants = {
  plain: () => ['mpirun.openmpi', ...launcher],
  overlap: (out) => ['node', MPII, 'run', '--quiet', '--force', ...(CHAINED ? ['--chained'] : []), '--out', out, '--tools', TOOLS, ...launcher],
};

/** One HPCC run in its own directory (hpcc reads hpccinf.txt and writes hpccoutf.txt there). */
function once(name, round) {
  const dir = join(tmp, `${name}-${round}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'hpccinf.txt'), input);
  const out = join(dir, 'mpii-out');
  const argv = variants[name](out);
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const r = run(argv, 600_000);
    const text = readFileSync(join(dir, 'hpccoutf.txt'), 'utf8');
    const m = { wall: r.ms / 1000 };
    for (const k of METRICS) {
      const hit = text.match(new RegExp(`^${k}=(\\S+)`, 'm'));
      if (!hit) throw new Error(`${name}: hpccoutf.txt has no ${k}`);
      m[k] = Number(hit[1]);
    }
    if (name === 'overlap') m.counters = counters(out);
    return m;
  } finally {
    process.chdir(cwd);
  }
}

/** The overlap tool's totals from the run's profile. */
function counters(out) {
  const json = JSON.parse(run(['node', MPII, 'report', out, '--json']).stdout);
  return json.overlap?.[0]?.totals ?? {};
}

log(`hpcc -np 2, N=${N}, ${ROUNDS} interleaved rounds, overlap = --tools '${TOOLS}'${CHAINED ? ' --chained' : ''}; load ${loadavg()[0].toFixed(1)}`);
// the shim (and the specialised stack) built before the first timed run
run(['node', MPII, 'build', '--tools', TOOLS.replace(/\[.*\]/, '')], 900_000);
const results = { plain: [], overlap: [] };
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const name of shuffle(Object.keys(variants))) {
      const m = once(name, round);
      results[name].push(m);
      log(
        `round ${round} ${name.padEnd(7)} RandomAccess ${m.MPIRandomAccess_time.toFixed(3)} s ` +
          `(${m.MPIRandomAccess_GUPs.toFixed(4)} GUP/s), PTRANS ${m.PTRANS_time.toFixed(3)} s, ` +
          `HPL ${(m.HPL_Tflops * 1000).toFixed(2)} Gflop/s, whole ${m.wall.toFixed(2)} s`,
      );
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

// times: overlap / plain (> 1: slower); rates (GUP/s, Tflop/s): plain / overlap (> 1: slower)
const rows = [
  ['RandomAccess time', 'MPIRandomAccess_time', false],
  ['RandomAccess GUP/s', 'MPIRandomAccess_GUPs', true],
  ['PTRANS time', 'PTRANS_time', false],
  ['HPL Tflop/s', 'HPL_Tflops', true],
  ['whole run wall', 'wall', false],
];
console.log(`hpcc -np 2 N=${N}, ${ROUNDS} rounds, load ${loadavg()[0].toFixed(1)}; slowdown = overlap cost (> 1: slower)`);
console.log(`${'metric'.padEnd(20)} ${'plain'.padStart(10)} ${'overlap'.padStart(10)}  slowdown: median of the rounds' ratios [min–max]`);
let worst = 0;
for (const [label, key, rate] of rows) {
  const p = results.plain.map((m) => m[key]);
  const o = results.overlap.map((m) => m[key]);
  const ratios = p.map((v, i) => (rate ? v / o[i] : o[i] / v));
  const slow = median(ratios); // paired: each round's two runs met the same machine
  if (key !== 'wall') worst = Math.max(worst, slow);
  console.log(
    `${label.padEnd(20)} ${median(p).toPrecision(4).padStart(10)} ${median(o).toPrecision(4).padStart(10)}  ` +
      `${slow.toFixed(3)}x [${quantile(ratios, 0).toFixed(3)}–${quantile(ratios, 1).toFixed(3)}]`,
  );
}
const c = results.overlap[0].counters;
console.log(
  `overlap: ${c['receives converted'] ?? 0} receives converted, ${c['calls checked'] ?? 0} other calls checked, ` +
    `${c['call sites decided plain'] ?? 0} of ${c['call sites'] ?? 0} call sites decided plain (first round)`,
);
console.log(`verdict: overlap on HPCC ${worst <= 1.02 ? 'is' : 'is NOT'} never slower: worst median slowdown ${worst.toFixed(3)}x (target ≤ 1.02x)`);

// bench/cold-build.mjs - how long a user waits for the first rank when mpii has something to
// compile: the very first run (the MPI's general shim), a new stack's first run when it waits
// for its compiled-in shim (MPII_BUILD=wait: what every first run did before) and when it runs
// chained while that shim builds in the background (the default), and the run after it.
// Every repetition starts from a fresh, empty cache (XDG_CACHE_HOME); the time is from starting
// `mpii run` to the first rank's first line (bench/started.c prints the wall clock at main).
//
//   npm run build && node bench/cold-build.mjs      # REPS=5 MPI=openmpi|mpich STACK=monitor,profile
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { MPII, ROOT, env, flavorHeader, forEachFlavor, log, lpad, median, pad } from './common.mjs';

const REPS = Number(process.env.REPS ?? 5);
const STACK = process.env.STACK ?? 'monitor,profile';
const tmp = mkdtempSync(join(tmpdir(), 'mpii-cold-build-'));

/** Seconds from starting `mpii run` to the first rank's first line, and mpii's stderr. */
function firstRank(fl, exe, cache, extraEnv, extraArgs = []) {
  const out = join(tmp, `out-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [MPII, 'run', '--quiet', '--tools', STACK, ...extraArgs, '--out', out, '-np', '2', ...fl.extra, exe], {
    env: { ...env, XDG_CACHE_HOME: cache, ...extraEnv },
    encoding: 'utf8',
    timeout: 3_600_000,
  });
  if (r.status !== 0) throw new Error(`mpii run exited ${r.status ?? r.signal}: ${(r.stderr ?? '').trim().split('\n').slice(-5).join(' | ')}`);
  const starts = [...r.stdout.matchAll(/^started (\d+)$/gm)].map((m) => Number(m[1]));
  if (!starts.length) throw new Error(`no rank said it started: ${r.stdout.slice(0, 200)}`);
  rmSync(out, { recursive: true, force: true });
  return { s: (Math.min(...starts) - t0) / 1000, stderr: r.stderr };
}

/** The shim directory of the one general shim in `cache`. */
const shimDir = (cache, fl) =>
  join(
    cache,
    'mpii',
    readdirSync(join(cache, 'mpii')).find((d) => d.startsWith(`${fl.name}-`)),
  );
const specDir = (cache, fl) => join(shimDir(cache, fl), `spec-${STACK.replaceAll(',', '+')}`);

/** Waits for the background build of the stack to land (or to end: its lock is gone). */
function waitForBackground(cache, fl) {
  const lock = join(shimDir(cache, fl), `.spec-${STACK.replaceAll(',', '+')}.lock`);
  while (existsSync(lock) && !existsSync(join(specDir(cache, fl), 'libmpii.so'))) spawnSync('sleep', ['1']);
  if (!existsSync(join(specDir(cache, fl), 'libmpii.so'))) throw new Error('the background build did not land');
}

const COLUMNS = [
  ['base', 'first run, empty cache (general shim)'],
  ['wait', `new stack, MPII_BUILD=wait (compiles ${STACK.replaceAll(',', '+')})`],
  ['background', 'new stack, default: chained, builds in the background'],
  ['next', 'the run after the background build'],
];

console.log(
  `cold builds: ${REPS} repetitions per MPI, each from an empty cache; stack ${STACK}; load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} at the start\n`,
);
forEachFlavor(tmp, (fl) => {
  mkdirSync(join(tmp, fl.name), { recursive: true });
  const exe = join(tmp, fl.name, 'started');
  const cc = spawnSync(fl.cc, ['-O2', '-o', exe, join(ROOT, 'bench', 'started.c')], { encoding: 'utf8' });
  if (cc.status !== 0) throw new Error(`${fl.cc}: ${cc.stderr}`);
  const times = Object.fromEntries(COLUMNS.map(([k]) => [k, []]));
  for (let rep = 1; rep <= REPS; rep++) {
    const cache = mkdtempSync(join(tmp, 'cache-'));
    // the general shim only: the stack chained
    times.base.push(firstRank(fl, exe, cache, {}, ['--chained']).s);
    // the stack's first run, waiting for its compiled-in shim
    times.wait.push(firstRank(fl, exe, cache, { MPII_BUILD: 'wait' }).s);
    // the same first run again (its compiled-in shim removed), not waiting
    rmSync(specDir(cache, fl), { recursive: true, force: true });
    // (common.mjs sets MPII_BUILD=wait for the other benchmarks: the default is asked for here)
    const bg = firstRank(fl, exe, cache, { MPII_BUILD: 'background' });
    if (!/running chained while the compiled-in stack/.test(bg.stderr)) throw new Error(`the first run did not run chained: ${bg.stderr}`);
    times.background.push(bg.s);
    waitForBackground(cache, fl);
    times.next.push(firstRank(fl, exe, cache, { MPII_BUILD: 'background' }).s);
    log(`${fl.name} rep ${rep}: ${COLUMNS.map(([k]) => `${k} ${times[k].at(-1).toFixed(1)} s`).join(', ')}; load ${loadavg()[0].toFixed(1)}`);
    rmSync(cache, { recursive: true, force: true });
  }
  console.log(flavorHeader(fl));
  console.log(`${pad('seconds to the first rank', 56)} ${lpad('median', 8)} ${lpad('min', 8)} ${lpad('max', 8)}`);
  for (const [k, what] of COLUMNS) {
    const xs = times[k];
    console.log(`${pad(what, 56)} ${lpad(median(xs).toFixed(1), 8)} ${lpad(Math.min(...xs).toFixed(1), 8)} ${lpad(Math.max(...xs).toFixed(1), 8)}`);
  }
  console.log(`${pad('new stack: wait / background (x faster to start)', 56)} ${lpad((median(times.wait) / median(times.background)).toFixed(1), 8)}`);
  console.log(
    `load at the end: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}\n`,
  );
});

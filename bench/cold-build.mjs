// bench/cold-build.mjs - how long a user waits for the first rank when mpii has something to
// compile. `first`: the very first run on an MPI (nothing cached: it starts on a quick shim of the
// stack's built-in tools while the general shim builds in the background), for a C, a Fortran and
// a Python program, under the default stack and under memcheck. `general`: the general shim's
// whole build (`mpii build` in an empty cache), what the first run waited for before. `stack`: a
// new stack's first run when it waits for its compiled-in shim (MPII_BUILD=wait), when it runs
// chained while that shim builds in the background (the default), and the run after it.
// Every repetition starts from a fresh, empty cache (XDG_CACHE_HOME; no system cache); the time is
// from starting `mpii run` to the first rank's first line (bench/started.c, started_f.F90 and
// started.py print the wall clock at their start).
//
//   npm run build && node bench/cold-build.mjs   # REPS=5 MPI=openmpi|mpich SECTIONS=first,general,stack
//                                                # PROGRAMS=c,fortran,python FIRST_STACKS=,memcheck STACK=monitor,profile
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { MPII, ROOT, env, flavorHeader, forEachFlavor, log, lpad, median, pad } from './common.mjs';

const REPS = Number(process.env.REPS ?? 5);
const STACK = process.env.STACK ?? 'monitor,profile';
const SECTIONS = (process.env.SECTIONS ?? 'first,general,stack').split(',');
const PROGRAMS = (process.env.PROGRAMS ?? 'c,fortran,python').split(',');
const FIRST_STACKS = (process.env.FIRST_STACKS ?? ',memcheck').split(',');
const tmp = mkdtempSync(join(tmpdir(), 'mpii-cold-build-'));
// no system cache and no shared objects (MPII_OBJECT_CACHE): every repetition compiles what a
// user's first run compiles
const NO_SYSTEM = { MPII_SYSTEM_CACHE: join(tmp, 'no-system-cache'), MPII_OBJECT_CACHE: '' };

/** Seconds from starting `mpii run` to the first rank's first line, and mpii's stderr. */
function firstRank(fl, command, cache, extraEnv, extraArgs = [], tools = STACK) {
  const out = join(tmp, `out-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [MPII, 'run', '--quiet', '--tools', tools, ...extraArgs, '--out', out, '-np', '2', ...fl.extra, ...command], {
    env: { ...env, ...NO_SYSTEM, XDG_CACHE_HOME: cache, ...extraEnv },
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

/** Stops the background build a first run started (it would load the next repetition) and waits
 *  until it is gone. */
function stopBackground(stderr) {
  const pid = Number(/builds in the background \(the first run on this MPI[^)]*, pid (\d+)\)/.exec(stderr)?.[1]);
  if (!pid) throw new Error(`the first run did not start on a quick shim: ${stderr}`);
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return; // already done
  }
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    spawnSync('sleep', ['0.2']);
  }
}

/** The three programs: what runs (`mpii run … <command>`) and the environment it needs. */
function programs(fl) {
  const dir = join(tmp, fl.name);
  mkdirSync(dir, { recursive: true });
  const build = (cmd, args) => {
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd}: ${r.stderr}`);
  };
  const c = join(dir, 'started');
  build(fl.cc, ['-O2', '-o', c, join(ROOT, 'bench', 'started.c')]);
  const f = join(dir, 'started_f');
  build(fl.cc.replace('mpicc', 'mpif90'), ['-O2', '-o', f, join(ROOT, 'bench', 'started_f.F90')]);
  // the distribution's mpi4py is Open MPI's; MPICH's is the virtual environment setup.sh makes, or
  // MPII_TEST_MPICH_PYTHON where that one cannot run (the forky root: docs/performance.md, "Cold builds")
  const python = fl.name === 'openmpi' ? '/usr/bin/python3' : (process.env.MPII_TEST_MPICH_PYTHON ?? join(ROOT, '.venv-mpich', 'bin', 'python'));
  return {
    c: { what: 'C', command: [c], vars: {} },
    fortran: { what: 'Fortran (use mpi)', command: [f], vars: {} },
    python: { what: 'Python (mpi4py)', command: [python, join(ROOT, 'bench', 'started.py')], vars: fl.name === 'mpich' ? { MPI4PY_MPIABI: 'mpich' } : {} },
  };
}

const row = (what, xs) =>
  console.log(`${pad(what, 56)} ${lpad(median(xs).toFixed(1), 8)} ${lpad(Math.min(...xs).toFixed(1), 8)} ${lpad(Math.max(...xs).toFixed(1), 8)}`);
const tableHead = (what) => console.log(`${pad(what, 56)} ${lpad('median', 8)} ${lpad('min', 8)} ${lpad('max', 8)}`);

const COLUMNS = [
  ['base', 'a stack chained, empty cache (general shim, MPII_BUILD=wait)'],
  ['wait', `new stack, MPII_BUILD=wait (compiles ${STACK.replaceAll(',', '+')})`],
  ['background', 'new stack, default: chained, builds in the background'],
  ['next', 'the run after the background build'],
];

console.log(
  `cold builds: ${REPS} repetitions per MPI, each from an empty cache; sections ${SECTIONS.join(', ')}; load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} at the start\n`,
);
forEachFlavor(tmp, (fl) => {
  const progs = programs(fl);
  console.log(flavorHeader(fl));
  if (SECTIONS.includes('first')) {
    tableHead('seconds to the first rank, the very first run (quick shim)');
    for (const p of PROGRAMS) {
      for (const tools of FIRST_STACKS) {
        const xs = [];
        for (let rep = 1; rep <= REPS; rep++) {
          const cache = mkdtempSync(join(tmp, 'cache-'));
          const r = firstRank(fl, progs[p].command, cache, { ...progs[p].vars, MPII_BUILD: 'background' }, [], tools);
          stopBackground(r.stderr);
          xs.push(r.s);
          log(`${fl.name} first ${p} ${tools || 'default'} rep ${rep}: ${r.s.toFixed(1)} s; load ${loadavg()[0].toFixed(1)}`);
          rmSync(cache, { recursive: true, force: true });
        }
        row(`${progs[p].what}, ${tools ? `--tools ${tools}` : 'the default stack'}`, xs);
      }
    }
  }
  if (SECTIONS.includes('general')) {
    const xs = [];
    for (let rep = 1; rep <= REPS; rep++) {
      const cache = mkdtempSync(join(tmp, 'cache-'));
      const t0 = Date.now();
      const r = spawnSync(process.execPath, [MPII, 'build', '--mpi', fl.name, '--quiet'], {
        env: { ...env, ...NO_SYSTEM, XDG_CACHE_HOME: cache },
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`mpii build: ${r.stderr}`);
      xs.push((Date.now() - t0) / 1000);
      log(`${fl.name} general shim rep ${rep}: ${xs.at(-1).toFixed(1)} s; load ${loadavg()[0].toFixed(1)}`);
      rmSync(cache, { recursive: true, force: true });
    }
    tableHead('seconds, the general shim');
    row('`mpii build`, empty cache (every tool, -O2)', xs);
  }
  if (SECTIONS.includes('stack')) {
    const exe = progs.c.command[0];
    const times = Object.fromEntries(COLUMNS.map(([k]) => [k, []]));
    for (let rep = 1; rep <= REPS; rep++) {
      const cache = mkdtempSync(join(tmp, 'cache-'));
      // the general shim only: the stack chained
      times.base.push(firstRank(fl, [exe], cache, {}, ['--chained']).s);
      // the stack's first run, waiting for its compiled-in shim
      times.wait.push(firstRank(fl, [exe], cache, { MPII_BUILD: 'wait' }).s);
      // the same first run again (its compiled-in shim removed), not waiting
      rmSync(specDir(cache, fl), { recursive: true, force: true });
      // (common.mjs sets MPII_BUILD=wait for the other benchmarks: the default is asked for here)
      const bg = firstRank(fl, [exe], cache, { MPII_BUILD: 'background' });
      if (!/running chained while the compiled-in stack/.test(bg.stderr)) throw new Error(`the first run did not run chained: ${bg.stderr}`);
      times.background.push(bg.s);
      waitForBackground(cache, fl);
      times.next.push(firstRank(fl, [exe], cache, { MPII_BUILD: 'background' }).s);
      log(`${fl.name} rep ${rep}: ${COLUMNS.map(([k]) => `${k} ${times[k].at(-1).toFixed(1)} s`).join(', ')}; load ${loadavg()[0].toFixed(1)}`);
      rmSync(cache, { recursive: true, force: true });
    }
    tableHead('seconds to the first rank, a new stack');
    for (const [k, what] of COLUMNS) row(what, times[k]);
    console.log(`${pad('new stack: wait / background (x faster to start)', 56)} ${lpad((median(times.wait) / median(times.background)).toFixed(1), 8)}`);
  }
  console.log(
    `load at the end: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}\n`,
  );
});

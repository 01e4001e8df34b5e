// bench/python.mjs - a Python (mpi4py) program's time plain and under noop, profile and monitor,
// side by side: every round runs each configuration once, in a fresh order, and the ratios are of
// the medians. Two measures: the workload (timed by the program between two barriers: what the
// tools add per MPI call) and the whole job (mpirun or `mpii run` from start to exit: also the
// launch, the Python call-site helper, writing and reading the profile).
//
// Workloads (bench/python/calls.py): `hot`, one call site making 20,000 8-byte Sendrecvs; `sites`,
// 3,000 call sites with a few calls each and communicators made and freed (a test suite's shape).
// With MPI4PY_TESTS=<mpi4py's test folder> (a checkout of mpi4py's sources, not shipped here) it also
// runs that suite (`main.py -q -e spawn`) as a third workload, whole-job time only.
//
// Open MPI runs /usr/bin/python3 with the distribution's mpi4py; MPICH runs .venv-mpich (mpi4py 4
// from the registry, made by scripts/setup.sh). ROUNDS (default 7) rounds, MPI=openmpi|mpich for one.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env, flavorHeader, forEachFlavor, log, lpad, median, MPII, pad, quantile, ROOT, run, shuffle } from './common.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const CONFIGS = ['plain', 'noop', 'profile', 'monitor'];
const PROGRAM = join(ROOT, 'bench', 'python', 'calls.py');
const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-python-'));

function interpreter(fl) {
  if (fl.name === 'openmpi') return { python: '/usr/bin/python3', vars: {} };
  const python = join(ROOT, '.venv-mpich', 'bin', 'python');
  if (!existsSync(python)) throw new Error(`${python} is missing: run scripts/setup.sh`);
  return { python, vars: { MPI4PY_MPIABI: 'mpich' } };
}

/** The argv of one run; plain MPICH gets the ABI name folder mpii gives its ranks (made by the warm-up). */
function command(fl, py, config, args, n) {
  if (config === 'plain') return [fl.run, ...fl.extra, '-np', '2', py.python, ...args];
  return [
    'node',
    MPII,
    'run',
    '--quiet',
    '--tools',
    config,
    '--out',
    join(tmp, `out-${fl.name}-${n}-${config.replace(/\W+/g, '_')}`),
    ...fl.extra,
    '-np',
    '2',
    py.python,
    ...args,
  ];
}

forEachFlavor(tmp, (fl) => {
  const py = interpreter(fl);
  Object.assign(env, py.vars);
  if (fl.name === 'mpich')
    env.LD_LIBRARY_PATH = [join(process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? '/root', '.cache'), 'mpii', 'abi-names'), process.env.LD_LIBRARY_PATH]
      .filter(Boolean)
      .join(':');
  const workloads = [
    ['hot', [PROGRAM, 'hot']],
    ['sites', [PROGRAM, 'sites']],
  ];
  if (process.env.MPI4PY_TESTS) workloads.push(['mpi4py tests', [join(process.env.MPI4PY_TESTS, 'main.py'), '-q', '-e', 'spawn']]);
  console.log(flavorHeader(fl));
  log(`${fl.label}: warm-up (builds the shim and the call-site helper)`);
  for (const c of CONFIGS) run(command(fl, py, c, [PROGRAM, 'hot'], 'warm'), 300_000);
  const work = {},
    whole = {};
  let n = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    log(`${fl.label}: round ${round}/${ROUNDS}`);
    for (const [name, args] of workloads) {
      for (const c of shuffle(CONFIGS)) {
        const r = run(command(fl, py, c, args, n++), 600_000);
        const key = `${name}\t${c}`;
        (whole[key] ??= []).push(r.ms);
        const own = Number(r.stdout.trim().split('\n').pop());
        if (name !== 'mpi4py tests' && Number.isFinite(own)) (work[key] ??= []).push(own * 1000);
      }
    }
  }
  console.log(
    `${pad('workload', 14)}${pad('config', 10)}${lpad('workload ms', 13)}${lpad('x plain', 9)}${lpad('job ms', 10)}${lpad('x plain', 9)}   spread of job x plain (quartiles)`,
  );
  for (const [name] of workloads) {
    for (const c of CONFIGS) {
      const key = `${name}\t${c}`,
        base = `${name}\tplain`;
      const w = work[key] ? median(work[key]) : NaN,
        wb = work[base] ? median(work[base]) : NaN;
      const j = median(whole[key]),
        jb = median(whole[base]);
      const ratios = whole[key].map((x, i) => x / whole[base][i]);
      console.log(
        `${pad(name, 14)}${pad(c, 10)}${lpad(Number.isFinite(w) ? w.toFixed(1) : '-', 13)}${lpad(Number.isFinite(w) ? (w / wb).toFixed(3) : '-', 9)}` +
          `${lpad(j.toFixed(0), 10)}${lpad((j / jb).toFixed(3), 9)}   ${quantile(ratios, 0.25).toFixed(3)}–${quantile(ratios, 0.75).toFixed(3)}`,
      );
    }
  }
  console.log('');
  for (const k of Object.keys(py.vars)) delete env[k];
  delete env.LD_LIBRARY_PATH;
});

// bench/python-instructions.mjs - what a tool stack adds to a Python MPI call, counted in
// instructions (valgrind's callgrind), which a loaded machine does not blur as it does wall time.
// One rank runs bench/python/proc_null.py (Sendrecv and Send to MPI.PROC_NULL: Python, mpi4py
// and the tools, no communication) for N1 and N2 iterations; the difference over N2 - N1 is one
// iteration's cost, start-up cancels out. Per configuration it prints the instructions in the shim
// (libmpii.so, with the tools) and in pthread mutex functions per MPI call, and the whole process's
// instructions per call (Python's own cost varies by a few percent from run to run: the shim's
// column is the exact one). Open MPI with the distribution's mpi4py; MPICH with .venv-mpich.
// BASE=<another mpii tree> adds its `profile` (before/after). Needs valgrind.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { env, FLAVORS, log, lpad, MPII, pad, ROOT, run, which } from './common.mjs';

const N1 = 2000,
  N2 = Number(process.env.N2 ?? 12000);
const PROGRAM = join(ROOT, 'bench', 'python', 'proc_null.py');
const BASE = process.env.BASE ? join(resolve(process.env.BASE), 'bin', 'mpii.js') : undefined;
const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-pyinsn-'));
if (!which('valgrind')) throw new Error('valgrind is missing (apt-get install valgrind)');

/** Instructions by where they ran, from a callgrind output file: shim, mutex, total. */
function count(file) {
  const r = spawnSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', file], { encoding: 'utf8', maxBuffer: 1 << 26 });
  let shim = 0,
    mutex = 0,
    total = 0;
  for (const line of r.stdout.split('\n')) {
    const m = line.match(/^\s*([\d,]+)\s+\([^)]*\)\s+(.*)$/);
    if (!m) continue;
    const n = Number(m[1].replace(/,/g, ''));
    if (/PROGRAM TOTALS/.test(m[2])) total = n;
    else if (/libmpii\.so\]/.test(m[2]) || (/preload\/(core|tools|python)\//.test(m[2]) && !/\[/.test(m[2]))) shim += n;
    else if (/pthread_mutex/.test(m[2])) mutex += n;
  }
  return { shim, mutex, total };
}

function once(fl, py, config, n, k) {
  const cg = join(tmp, `cg-${fl.name}-${k}-${n}.out`);
  const vg = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${cg}`, py.python, PROGRAM, String(n)];
  const launch = [...fl.extra, '-np', '1', ...vg];
  const argv =
    config.mpii === null
      ? [fl.run, ...launch]
      : ['node', config.mpii, 'run', '--quiet', '--mpi', fl.name, '--tools', config.tools, '--out', join(tmp, `out-${fl.name}-${k}-${n}`), ...launch];
  run(argv, 900_000);
  return count(cg);
}

for (const fl of FLAVORS.filter((f) => !process.env.MPI || f.name === process.env.MPI)) {
  const py =
    fl.name === 'openmpi' ? { python: '/usr/bin/python3', vars: {} } : { python: join(ROOT, '.venv-mpich', 'bin', 'python'), vars: { MPI4PY_MPIABI: 'mpich' } };
  if (!existsSync(py.python)) throw new Error(`${py.python} is missing: run scripts/setup.sh`);
  Object.assign(env, py.vars);
  // plain MPICH: the ABI name folder mpii gives its ranks (libmpi.so.12 -> libmpich.so.12), made by mpii's runs
  if (fl.name === 'mpich')
    env.LD_LIBRARY_PATH = [join(process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? '/root', '.cache'), 'mpii', 'abi-names'), process.env.LD_LIBRARY_PATH]
      .filter(Boolean)
      .join(':');
  const configs = [
    { key: 'plain', mpii: null },
    { key: 'noop', mpii: MPII, tools: 'noop' },
    { key: 'monitor', mpii: MPII, tools: 'monitor' },
    { key: 'profile', mpii: MPII, tools: 'profile' },
  ];
  if (BASE) configs.push({ key: 'BASE profile', mpii: BASE, tools: 'profile' });
  // warm-up: builds the shims (and, for MPICH, the ABI name folder the plain run needs)
  for (const c of configs.filter((x) => x.mpii))
    run(
      [
        'node',
        c.mpii,
        'run',
        '--quiet',
        '--mpi',
        fl.name,
        '--tools',
        c.tools,
        '--out',
        join(tmp, `warm-${fl.name}-${configs.indexOf(c)}`),
        ...fl.extra,
        '-np',
        '1',
        py.python,
        PROGRAM,
        '1',
      ],
      900_000,
    );
  console.log(`${fl.label}: instructions per MPI call (${N2 - N1} iterations of 2 calls, one rank, callgrind)`);
  console.log(`${pad('config', 14)}${lpad('shim', 8)}${lpad('mutex', 8)}${lpad('process', 10)}${lpad('x plain', 9)}`);
  let plain;
  configs.forEach((c, k) => {
    log(`${fl.label}: ${c.key}`);
    const a = once(fl, py, c, N1, k),
      b = once(fl, py, c, N2, k);
    const per = (f) => (b[f] - a[f]) / (2 * (N2 - N1));
    const row = { shim: per('shim'), mutex: per('mutex'), total: per('total') };
    plain ??= row;
    console.log(
      `${pad(c.key, 14)}${lpad(row.shim.toFixed(0), 8)}${lpad(row.mutex.toFixed(0), 8)}${lpad(row.total.toFixed(0), 10)}${lpad((row.total / plain.total).toFixed(3), 9)}`,
    );
  });
  console.log('');
  for (const k of Object.keys(py.vars)) delete env[k];
  delete env.LD_LIBRARY_PATH;
}

#!/usr/bin/env node
// Runs one layer of the tests with Node's test runner (see docs/testing.md):
//   node scripts/run-tests.mjs unit          *.unit.test.ts: no MPI job, no root, no namespaces, no Slurm
//   node scripts/run-tests.mjs integration   every other *.test.ts: real jobs on both MPIs, as root
//   node scripts/run-tests.mjs all           both, unit first (one summary each)
//   node scripts/run-tests.mjs smoke         a few integration files (SMOKE): CI's check of another
//                                            Node line (docs/package.md)
//   node scripts/run-tests.mjs roots         the integration files (ROOTS) run inside the Debian
//                                            roots of other MPI versions (scripts/test-in-roots.sh)
//   node scripts/run-tests.mjs roots-ci      the part of ROOTS that CI runs in each root (ROOTS_CI)
// Any further arguments go to `node --test` (e.g. --test-name-pattern=…).
//
// The layer is in the file's name, wherever the file is (test/, or a tool's folder under preload/),
// so a new test file is picked up without a list to edit; a file not marked .unit is an
// integration test, the safe side for a test that might start a job. The files are found from the
// TypeScript sources, not from dist/: a file renamed or deleted leaves its old compiled copy in
// dist/, which must not run again.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SKIP = new Set(['node_modules', 'dist', '.git']);
const LAYERS = ['unit', 'integration'];
// the smoke test: both MPIs' shims built, run and torn down, the report, doctor (which loads koffi)
const SMOKE = ['test/cli.test.ts', 'test/shim.test.ts'];
// inside a root of a current Debian (its Open MPI and MPICH, its Node: docs/testing.md): every
// built-in tool and the stacks of them, an external QMPI tool compiled against that MPI's own mpi.h
// (twice in one stack), Python (mpi4py), Fortran (mpif.h, use mpi, mpi_f08), and the launchers
// (Open MPI 5's PRRTE mpirun) that every job of these files starts. Not monitor-ompi.test.ts nor
// mpit.test.ts: they compare with Open MPI's own monitoring, which crashes in MPI_Init on forky's
// Open MPI 6.0.0rc2, and its scripts, which Debian's Open MPI 5 and 6 do not ship (by hand in the
// trixie root, docs/testing.md)
const ROOTS = [
  'test/shim.test.ts',
  'test/jobs.test.ts',
  'test/qmpi-tools.test.ts',
  'test/monitor.test.ts',
  'test/profile.test.ts',
  'test/memcheck.test.ts',
  'test/overlap.test.ts',
  'test/fortran.test.ts',
  'test/python.test.ts',
  'test/abi.test.ts',
  'test/node-file.test.ts',
];
// what CI runs in each root (.ci/run): the files of ROOTS that together run every built-in tool
// (chained and compiled in), the QMPI tool twice, Fortran's three interfaces, Python and the
// release's launchers in the fewest minutes, and the node files' crash, file size limit and lost
// exit code cases, and the tools' own files: memcheck.test.ts (memcheck depends most on the
// library's internals: its buffers, its progress threads, its RMA layouts), monitor.test.ts,
// profile.test.ts and overlap.test.ts. The last three run chained here (MPII_TEST_CHAINED=1,
// test/helpers.ts): compiling their stacks in took most of profile's and overlap's 4-10 minutes
// per root; the whole of ROOTS, by hand, runs them compiled in
const ROOTS_CI = [
  'test/shim.test.ts',
  'test/jobs.test.ts',
  'test/qmpi-tools.test.ts',
  'test/memcheck.test.ts',
  'test/monitor.test.ts',
  'test/profile.test.ts',
  'test/overlap.test.ts',
  'test/fortran.test.ts',
  'test/python.test.ts',
  'test/abi.test.ts',
  'test/node-file.test.ts',
];
// the stacks the integration tests run compiled in (each a single translation unit, 20-60 s of one
// core per MPI): built before the tests two at a time, on both cores, instead of one after the
// other inside the tests while the second core idles. A stack not listed is built by its first
// test, as before: slower, not different.
// roots: those of monitor.test.ts, profile.test.ts and overlap.test.ts (the other files of ROOTS
// run chained, and abi.test.ts builds its own); roots-ci runs those three files chained, so none
const PREBUILT = {
  integration: ['monitor', 'profile', 'monitor,profile', 'overlap', 'trace-count,monitor,profile'],
  roots: ['monitor', 'profile', 'monitor,profile', 'overlap'],
};

/** Every *.test.ts under the repository, relative to it, sorted. */
function testSources(dir = ROOT) {
  const found = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.') || SKIP.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) found.push(...testSources(p));
    else if (e.name.endsWith('.test.ts')) found.push(relative(ROOT, p));
  }
  return found.sort();
}

const layerOf = (file) => (file.endsWith('.unit.test.ts') ? 'unit' : 'integration');

async function run(layer, extra) {
  const named = { smoke: SMOKE, roots: ROOTS, 'roots-ci': ROOTS_CI };
  const sources = named[layer] ?? testSources().filter((f) => layerOf(f) === layer);
  if (sources.length === 0) {
    console.error(`run-tests: no ${layer} test files found`);
    return 1;
  }
  const compiled = sources.map((f) => join('dist', f.replace(/\.ts$/, '.js')));
  const missing = compiled.filter((f) => !existsSync(join(ROOT, f)));
  if (missing.length) {
    console.error(`run-tests: not compiled: ${missing.join(', ')} — run npm run build, and check that tsconfig.json's "include" covers their folders`);
    return 1;
  }
  console.log(`run-tests: ${layer} layer, ${compiled.length} files`);
  // the files' temporary directories (profiles, compiled programs, fake launchers: ~150 places)
  // inside one made for this layer: removed after a passing run, kept after a failing one for its
  // evidence; without it every run left thousands of directories in /tmp
  const tmp = mkdtempSync(join(tmpdir(), `mpii-tests-${layer}-`));
  // as /tmp is: the package test runs mpii as another user, munged checks its socket's parents
  chmodSync(tmp, 0o1777);
  if (layer !== 'unit') {
    // the layer's shim builds share their compiled objects (MPII_OBJECT_CACHE,
    // src/shim/object-cache.ts): the general shim built below is built again in a dozen private
    // caches by the files that test caches, packages, installs and added tools, and each of
    // those then compiles only what differs. The files that test the first build itself
    // (first-run, cold-build) compile everything in theirs.
    process.env.MPII_OBJECT_CACHE ??= join(tmp, 'objects');
    // both MPIs' shims built once, before any test: a build (1–2 minutes, more on a busy machine)
    // then never runs inside one test's time limit
    const b = spawnSync(process.execPath, [join(ROOT, 'bin', 'mpii.js'), 'build', '--mpi', 'all', '--quiet'], { cwd: ROOT, stdio: 'inherit' });
    if (b.status !== 0) console.error('run-tests: building the shims failed: the tests that need them will say why');
    // the MPI standard ABI's one shim too, where an implementation of it is installed (Debian forky)
    const { systemAbiLibrary } = await import('../dist/src/mpi/abi.js');
    if (systemAbiLibrary()) spawnSync(process.execPath, [join(ROOT, 'bin', 'mpii.js'), 'build', '--mpi', 'abi', '--quiet'], { cwd: ROOT, stdio: 'inherit' });
    // the stacks its files run compiled in: not inside a test's time limit (Open MPI 6's
    // `monitor,profile`, 688 functions in one translation unit, took over 300 s in a loaded root)
    await prebuildStacks(PREBUILT[layer] ?? []);
  }
  // integration files one at a time: jobs share the machine's cores, the launchers and Slurm; unit
  // files two at a time (the machines here have 2 cores)
  const concurrency = ['--test-concurrency=' + (layer === 'unit' ? 2 : 1)];
  const chained = layer === 'roots-ci' ? { MPII_TEST_CHAINED: '1' } : {};
  const timesFile = join(tmp, 'durations.txt');
  const r = spawnSync(process.execPath, ['--test', ...concurrency, ...reporters(extra, timesFile), ...extra, ...compiled], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, ...chained, TMPDIR: tmp, MPII_TEST_PROGRAMS: process.env.MPII_TEST_PROGRAMS ?? tmpdir() },
  });
  printDurations(layer, timesFile);
  if (r.status === 0) rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  else console.error(`run-tests: the ${layer} tests' temporary files are kept in ${tmp}`);
  return r.status ?? 1;
}

/** The usual reporter (spec on a terminal, TAP otherwise), and scripts/test-durations.mjs into
 *  `file`; none when the caller chose its own reporters. */
function reporters(extra, file) {
  if (extra.some((a) => a.startsWith('--test-reporter'))) return [];
  const usual = process.stdout.isTTY ? 'spec' : 'tap';
  const durations = join(ROOT, 'scripts', 'test-durations.mjs');
  return [`--test-reporter=${usual}`, '--test-reporter-destination=stdout', `--test-reporter=${durations}`, `--test-reporter-destination=${file}`];
}

/** Where the layer's time went (test-durations.mjs), printed after the runner's summary and, for
 *  CI, appended to $MPII_TEST_DURATIONS_FILE, which .ci/run prints at the very end of its log. */
function printDurations(layer, file) {
  if (!existsSync(file)) return;
  const text = `run-tests: ${layer} layer: ${readFileSync(file, 'utf8')}`;
  process.stdout.write(text);
  const copy = process.env.MPII_TEST_DURATIONS_FILE;
  try {
    if (copy) appendFileSync(copy, text);
  } catch (e) {
    console.error(`run-tests: could not append the durations to ${copy}: ${e.message}`);
  }
}

/** `stacks` compiled in, for each installed MPI, two builds at a time. */
async function prebuildStacks(stacks) {
  if (stacks.length === 0) return;
  const mpis = ['openmpi', 'mpich'].filter((m) => spawnSync('sh', ['-c', `command -v mpicc.${m}`]).status === 0);
  const queue = mpis.flatMap((mpi) => stacks.map((tools) => ({ mpi, tools })));
  const t0 = Date.now();
  const worker = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const { mpi, tools } = job;
      const code = await new Promise((done) => {
        const c = spawn(process.execPath, [join(ROOT, 'bin', 'mpii.js'), 'build', '--mpi', mpi, '--tools', tools, '--quiet'], {
          cwd: ROOT,
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        c.on('close', done);
      });
      if (code !== 0) console.error(`run-tests: building the stack ${tools} for ${mpi} failed: its tests will say why`);
    }
  };
  await Promise.all([worker(), worker()]);
  console.log(`run-tests: ${stacks.length} stacks compiled in for ${mpis.join(' and ')} in ${Math.round((Date.now() - t0) / 1000)} s`);
}

const [which, ...extra] = process.argv.slice(2);
if (!['all', 'smoke', 'roots', 'roots-ci', ...LAYERS].includes(which)) {
  console.error('usage: node scripts/run-tests.mjs unit|integration|all|smoke|roots|roots-ci [node --test options]');
  process.exit(2);
}
let status = 0;
for (const layer of which === 'all' ? LAYERS : [which]) status = (await run(layer, extra)) || status;
process.exit(status);

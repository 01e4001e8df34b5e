// bench/common.mjs - what the benchmark scripts share: the MPIs, a clean environment, running a
// command (timed, retried), one run per MPI, and the statistics of interleaved rounds.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const MPII = join(ROOT, 'bin', 'mpii.js');

export const FLAVORS = [
  // Open MPI refuses to run as root without the env below; --oversubscribe keeps -np 2 (and 4) working on any box.
  { name: 'openmpi', label: 'Open MPI', cc: 'mpicc.openmpi', run: 'mpirun.openmpi', extra: ['--oversubscribe'], ompi: true },
  // MPICH's hydra has no --oversubscribe (and does not need it).
  { name: 'mpich', label: 'MPICH', cc: 'mpicc.mpich', run: 'mpirun.mpich', extra: [], ompi: false },
];

export const env = { ...process.env, OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' };
delete env.TOOLS; // a stray TOOLS/LD_PRELOAD would change what "plain" means
delete env.LD_PRELOAD;
// a stack's first run waits for its compiled-in shim: a benchmark measures the form it names,
// never the chain a first run would use while that shim builds in the background
env.MPII_BUILD = 'wait';

export const log = (m) => process.stderr.write(`# ${m}\n`);

export function which(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;
}

/** Runs argv to completion; throws with the tail of stderr when it fails. `ms` is its wall clock. */
export function run(argv, timeoutMs = 120_000) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 1 << 24 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : `exit ${r.status ?? r.signal}`;
    throw new Error(`${argv.join(' ')}: ${why}\n${(r.stderr || '').trim().split('\n').slice(-15).join('\n')}`);
  }
  return { ms, stdout: r.stdout, stderr: r.stderr };
}

/** run, retrying a few times: the shim may be rebuilt under us if preload/ changes meanwhile */
export function runRetry(argv, tries = 3) {
  for (let i = 1; ; i++) {
    try {
      return run(argv);
    } catch (e) {
      if (i >= tries) throw e;
      log(`retry ${i} after failure: ${e.message.split('\n')[0]}`);
    }
  }
}

/** For a script's command line: `fail(msg)` prints `SCRIPT: msg` and the usage, and exits 2. */
export const usageFail = (script, usage) => (msg) => {
  console.error(`${script}: ${msg}\n${usage}`);
  process.exit(2);
};

/** The command line's values (node:util's parseArgs over `options`, with `--help`/`-h`): the usage
 *  and exit 0 on --help, `fail` on an unknown or malformed option. */
export function parseOptions(options, usage, fail) {
  let v;
  try {
    v = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h', default: false } } }).values;
  } catch (e) {
    fail(e.message);
  }
  if (v.help) {
    console.log(usage);
    process.exit(0);
  }
  return v;
}

/** The argv of a job under mpii as the benchmarks start it: `mpii run --quiet --out OUT --tools TOOLS`,
 *  then `rest` (further mpii options, the launcher's, the program). */
export const mpiiRun = (out, tools, ...rest) => [process.execPath, MPII, 'run', '--quiet', '--out', out, '--tools', tools, ...rest];

/** The q-quantile (0..1) of xs, interpolated between the two nearest samples. */
export const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  return lo + 1 < s.length ? s[lo] + (s[lo + 1] - s[lo]) * (i - lo) : s[lo];
};

export const median = (xs) => quantile(xs, 0.5);

/** a fresh order every round, so no configuration always runs right after another */
export const shuffle = (xs) => {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
};

export const pad = (s, n) => String(s).padEnd(n);
export const lpad = (s, n) => String(s).padStart(n);

/** The MPIs to benchmark: both, or only $MPI; a missing one is reported and skipped. */
export function installedFlavors() {
  return FLAVORS.filter((fl) => {
    if (process.env.MPI && process.env.MPI !== fl.name) return false;
    if (which(fl.cc) && which(fl.run)) return true;
    console.log(`${fl.label}: not installed (${fl.cc}/${fl.run} not found), skipped\n`);
    return false;
  });
}

/**
 * Runs `body(fl)` for every installed MPI: one MPI's failure is printed and the others still run.
 * `body` may return how many failures it printed itself. Removes `tmp` at the end and sets the
 * exit code (1 when anything failed).
 */
export function forEachFlavor(tmp, body) {
  let failed = 0;
  try {
    for (const fl of installedFlavors()) {
      try {
        failed += body(fl) ?? 0;
      } catch (e) {
        failed++;
        console.log(`${fl.label}: benchmark failed: ${e.message}\n`);
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  process.exitCode = failed ? 1 : 0;
}

/** The results header of one MPI, with its version line. */
export function flavorHeader(fl) {
  const ver =
    spawnSync(fl.run, ['--version'], { env, encoding: 'utf8' })
      .stdout.split('\n')
      .find((l) => /\d/.test(l)) ?? '';
  return `=== ${fl.label} (${ver.trim()}) ===`;
}

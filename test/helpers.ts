// Shared by the integration tests: compile the test programs once per MPI, run mpii for real.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, execaSync } from 'execa';
import type { Browser, Page } from 'playwright-core';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MPII = join(ROOT, 'bin', 'mpii.js');
export type Flavor = 'openmpi' | 'mpich';
export const FLAVORS: Flavor[] = ['openmpi', 'mpich'];

/** Open MPI refuses root without these; tests set them, mpii never does. */
export const TEST_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  OMPI_ALLOW_RUN_AS_ROOT: '1',
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1',
  OMPI_MCA_rmaps_base_oversubscribe: '1',
};
// Each stack's specialised shim is compiled once (7-20 s quiet, minutes loaded): most test files
// run the chain, the files that test the tools' compiled form call useSpecialised() (each file is
// its own process), which also makes a stack's first run wait for its compiled-in shim rather
// than run chained while it builds in the background (MPII_BUILD=wait; cold-build.test.ts tests that)
TEST_ENV.MPII_SPECIALISE = '0';
// Every run waits for the shim it needs: the very first run on an MPI would otherwise start on a
// quick shim while the general one builds in the background (first-run.test.ts tests that). No
// system cache: the machine's /var/cache/mpii is neither read nor written, and `mpii install` as
// root builds in the user's cache, where the tests' shims are (package.test.ts tests the system
// cache with a directory of its own).
TEST_ENV.MPII_BUILD = 'wait';
TEST_ENV.MPII_SYSTEM_CACHE = '/proc/mpii-no-system-cache';
// MPII_TEST_CHAINED=1 (CI's part of the roots layer, scripts/run-tests.mjs): these files run
// chained too, the same tools' code without compiling a wrapper per stack and MPI (the compiled
// form is checked against the chain by specialised.test.ts, and on forky's MPIs by abi.test.ts)
export function useSpecialised(): void {
  if (process.env.MPII_TEST_CHAINED === '1') return;
  TEST_ENV.MPII_SPECIALISE = '1';
}
delete TEST_ENV.TOOLS;
delete TEST_ENV.INJ_IGNORE;
delete TEST_ENV.INJ_DEBUG;
delete TEST_ENV.LD_PRELOAD;
// node --test run from a terminal sets FORCE_COLOR=1 for the test files: mpii would colour its pipes
delete TEST_ENV.FORCE_COLOR;
delete TEST_ENV.NO_COLOR;

/** An HTML report opened in `browser` (1280×900) once its script is done (`data-ready`), with the
 *  errors its scripts threw and every request it made beyond `file:` (a report loads nothing). */
export async function openReportPage(browser: Browser, file: string): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (q) => {
    if (!q.url().startsWith('file:')) requests.push(q.url());
  });
  await page.goto(`file://${file}`);
  await page.waitForSelector('body[data-ready="1"]');
  return { page, errors, requests };
}

/** 2 cores here: Open MPI must be told it may oversubscribe; MPICH's hydra does it anyway. */
export function launcherArgs(f: Flavor, np: number): string[] {
  return f === 'openmpi' ? ['-np', String(np), '--oversubscribe'] : ['-np', String(np)];
}

/** Open MPI's TCP transport over loopback, for the jobs that use it on this one host (a btl
 *  chosen by the test, or a spawned job, which sm does not reach): lo is the interface every
 *  machine has. Left to choose, Open MPI 5's btl/tcp takes only the IPv6 address of an interface
 *  that has both (5.0.7 here, whose eth0 has 192.0.2.2 and fd00::2), finds no reachable pairing
 *  for it and aborts in MPI_Init ("Unable to find reachable pairing between local and remote
 *  interfaces"), plain as under mpii. */
export const OMPI_TCP_LOOPBACK: NodeJS.ProcessEnv = { OMPI_MCA_btl_tcp_if_include: 'lo' };

/** Open MPI's own monitoring of `exe` on `np` ranks (`pml_monitoring_enable 2`), each rank's
 *  matrices written at MPI_Finalize to `<filename>.<rank>.prof` (`pml_monitoring_enable_output 3`):
 *  what the monitor tool's output is compared with. */
export function ompiMonitoring(np: number, exe: string, filename: string) {
  const mca = ['--mca', 'pml_monitoring_enable', '2', '--mca', 'pml_monitoring_enable_output', '3', '--mca', 'pml_monitoring_filename', filename];
  return execa('mpirun.openmpi', [...launcherArgs('openmpi', np), ...mca, exe], { env: TEST_ENV, reject: false });
}

// outside the run's own TMPDIR (scripts/run-tests.mjs removes that): the programs outlive a run
const BUILD = join(process.env.MPII_TEST_PROGRAMS ?? tmpdir(), `mpii-test-programs-${process.getuid?.() ?? 0}`);

/** A Fortran test program (test/programs/<name>.F90) built for one binding (-DUSE_MPIFH, _MPI,
 * _F08), in a directory named by the source's content like program()'s. */
export function fortranProgram(f: Flavor, name: string, iface: 'MPIFH' | 'MPI' | 'F08'): string {
  const src = join(ROOT, 'test', 'programs', `${name}.F90`);
  const hash = createHash('sha256')
    .update(readFileSync(src))
    .update(readFileSync(join(ROOT, 'test', 'programs', 'fortran_binding.h')))
    .digest('hex')
    .slice(0, 16);
  const dir = join(BUILD, f, hash);
  mkdirSync(dir, { recursive: true });
  const out = join(dir, `${name}_${iface}`);
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(src).mtimeMs) return out;
  // gfortran >= 10 rejects mpif.h's untyped choice arguments without this flag
  execaSync(`mpif90.${f}`, ['-cpp', `-DUSE_${iface}`, '-O2', '-g', ...(iface === 'F08' ? [] : ['-fallow-argument-mismatch']), '-o', out, src]);
  return out;
}

/** Path of test program `name` built for `f` (compiled on first use). The build directory is
 * named by the source's content (and its headers'): checkouts side by side on one machine share
 * /tmp, and one must never run a binary another built from a different version of the source. */
export function program(f: Flavor, name: string): string {
  const src = ['qmpi_counter_tool', 'legacy_pmpi'].includes(name)
    ? join(ROOT, 'test', 'tools', `${name}.c`)
    : ['pingpong', 'sor', 'halo', 'stencil'].includes(name)
      ? join(ROOT, 'bench', `${name}.c`)
      : join(ROOT, 'test', 'programs', `${name}.c`);
  const hash = createHash('sha256').update(readFileSync(src));
  for (const h of readdirSync(dirname(src))
    .filter((x) => x.endsWith('.h'))
    .sort())
    hash.update(readFileSync(join(dirname(src), h)));
  const dir = join(BUILD, f, hash.digest('hex').slice(0, 16));
  const out = join(dir, name);
  mkdirSync(dir, { recursive: true });
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(src).mtimeMs) return out;
  if (name === 'notmpi') {
    execaSync('cc', ['-o', out, src]);
  } else {
    execaSync(`mpicc.${f}`, ['-O2', '-g', '-o', out, src]);
  }
  return out;
}

/** A QMPI tool or PMPI library built as a .so for `f`; qmpi.h comes from the shim's include dir. */
export function library(f: Flavor, name: string, includeDir: string): string {
  const dir = join(BUILD, f);
  mkdirSync(dir, { recursive: true });
  const out = join(dir, `lib${name}.so`);
  execaSync(`mpicc.${f}`, ['-shared', '-fPIC', '-I', includeDir, '-o', out, join(ROOT, 'test', 'tools', `${name}.c`)]);
  return out;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export async function mpii(args: string[], env: NodeJS.ProcessEnv = {}, cwd = ROOT, timeout = 300_000): Promise<Run> {
  const r = await execa('node', [MPII, ...args], { env: { ...TEST_ENV, ...env }, cwd, reject: false, timeout });
  return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * MPICH's UCX over TCP can hang in MPI_Finalize after the job's work is done (openucx/ucx#8738:
 * one rank progresses UCX for ever while the other waits in the PMI barrier). Seen here between
 * the namespace hosts with plain mpirun.mpich as well as under mpii, in some runs not at all and
 * in others twice. A job over TCP between namespace hosts therefore runs under a time limit
 * (`mpii run --timeout`: exit 124; or the launcher killed): one that hangs is run again, up to
 * three attempts, each hang reported on stderr; a job that hangs every time fails the test.
 * Open MPI's jobs, and every job on one host, run once.
 */
export const TCP_JOB_LIMIT = { seconds: 60, attempts: 3 };
export async function retryFinalizeHang<R extends { code: number }>(f: Flavor, job: () => Promise<R>, what: string): Promise<R> {
  let r = await job();
  for (let attempt = 2; f === 'mpich' && r.code === 124 && attempt <= TCP_JOB_LIMIT.attempts; attempt++) {
    process.stderr.write(
      `# ${what}: the MPICH job did not end within ${TCP_JOB_LIMIT.seconds} s (MPI_Finalize over UCX's TCP, openucx/ucx#8738): attempt ${attempt}\n`,
    );
    r = await job();
  }
  return r;
}

export function outDir(tag: string): string {
  const d = join(tmpdir(), `mpii-test-out-${process.pid}-${tag}-${Math.random().toString(36).slice(2, 8)}`);
  return d;
}

/** The include directory of the cached shim for `f` (builds it if needed). */
export async function shimInfo(f: Flavor): Promise<{ library: string; includeDir: string }> {
  const r = await execa('node', [MPII, 'build', '--mpi', f, '--quiet'], { env: TEST_ENV });
  const lib = r.stdout.trim().split('\t')[2];
  return { library: lib, includeDir: join(dirname(lib), 'include') };
}

/** The pids of the ranks running `path`: processes whose command line starts with it (not the
 * launcher's or mpii's, which only mention it). */
export async function ranksOf(path: string): Promise<string[]> {
  const pattern = `^${path.replace(/[.+*?^$()[\]{}|\\]/g, '\\$&')}( |$)`;
  const r = await execa('pgrep', ['-f', pattern], { reject: false });
  return r.stdout.split('\n').filter(Boolean);
}

/** Waits until no rank of `path` is left and returns [], or returns the pids still there after
 * `limitMs`. The ranks end when the launcher's daemon has killed them, a moment after mpii and the
 * launcher returned (Open MPI's by a few seconds): the test waits for that event, and the limit
 * only bounds how long a failing test takes; a passing one never waits longer than the event. */
export async function ranksGone(path: string, limitMs = 60_000): Promise<string[]> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const left = await ranksOf(path);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A run that failed with exactly one `mpii:` line matching `pattern`, and no stack trace. */
export function oneLineError(r: { code: number; stderr: string }, pattern: RegExp): void {
  assert.notEqual(r.code, 0);
  const lines = r.stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('mpii:'));
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at .*\.js:\d+/, 'no stack trace');
}

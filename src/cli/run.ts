// `mpii run`: config → MPI detection → shim build → launch → report.
import { accessSync, constants, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, constants as osConstants } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { buildShim, cacheRoot, ROOT, type Shim } from '../build/shim.js';
import { buildPythonSites } from '../build/python-sites.js';
import { resolveStack, type ToolInstance } from '../config/resolve.js';
import { MpiiError } from '../errors.js';
import { mpirunLauncher, type Launcher, type LaunchPlan } from '../launch/adapters.js';
import { parseRunArgs, type RunArgs } from '../launch/args.js';
import { copyToNodes, currentJob, planCopies, removeFromNodes } from '../launch/sbcast.js';
import { srunLauncher } from '../launch/srun.js';
import { detectMpi, findLauncher } from '../mpi/detect.js';
import { FLAVORS, type FlavorName } from '../mpi/flavors.js';
import type { ReportOptions } from '../report/summary.js';
import { mpiiVersion, programIdentity, writeRunInfo } from '../report/run-info.js';

export const DEFAULTS_FILE = join(ROOT, 'config', 'tools.yaml');

/** The variables every rank needs; INJ_* are passed on only when the user set them. `place`
 * says where a library of this host is on the nodes (--copy-shim puts copies in their /tmp). */
export function rankEnvironment(shim: Shim, tools: ToolInstance[], outDir: string, env: NodeJS.ProcessEnv,
  place: (library: string) => string = (l) => l): Record<string, string> {
  const vars: Record<string, string> = {
    // the user's own preloads stay, after the shim: legacy PMPI tools sit below us
    LD_PRELOAD: [place(shim.library), env.LD_PRELOAD].filter(Boolean).join(':'),
    TOOLS: tools.map((t) => (t.kind === 'external' ? place(t.path!) : t.name)).join(':'),
    MPII_OUT: outDir,
    // the gathered profile is written by a rank that sees this file, so mpii can read it even
    // when rank 0's host shares no filesystem with this one (created by runCommand)
    MPII_RUN_MARK: join(outDir, `.mpii-run-${hostname()}-${process.pid}`),
  };
  tools.forEach((t, i) => {
    const opts = Object.entries(t.options);
    if (opts.length) vars[`MPII_OPT_${i + 1}`] = opts.map(([k, v]) => `${k}=${v}`).join(';');
  });
  for (const k of ['INJ_IGNORE', 'INJ_DEBUG']) if (env[k] !== undefined) vars[k] = env[k]!;
  return vars;
}

function defaultOutDir(program: string): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
  return join('mpii-out', `${basename(program)}-${stamp}-${process.pid}`);
}

function prepareOutDir(dir: string): string {
  const abs = resolve(dir);
  try {
    mkdirSync(abs, { recursive: true });
    accessSync(abs, constants.W_OK);
  } catch (e) {
    throw new MpiiError(`cannot write the output directory ${abs} (${(e as NodeJS.ErrnoException).code ?? e})`,
      'pass --out DIR with a directory you can write');
  }
  return abs;
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export async function buildWithSpinner(flavor: FlavorName, quiet: boolean, env: NodeJS.ProcessEnv): Promise<Shim> {
  // ora is loaded only when a build really happens (a warm run starts faster without it)
  let spinner: import('ora').Ora | undefined;
  const label = FLAVORS[flavor].label;
  try {
    const shim = await buildShim(flavor, {
      env,
      beforeBuild: async () => {
        const { default: ora } = await import('ora');
        spinner = ora({ text: `mpii: building the ${label} shim`, stream: process.stderr, isSilent: quiet }).start();
      },
      onStep: (t) => {
        if (spinner) spinner.text = `mpii: building the ${label} shim: ${t}`;
      },
    });
    spinner?.succeed(`mpii: built the ${label} shim (${shim.functions} MPI functions wrapped)`);
    return shim;
  } catch (e) {
    spinner?.fail();
    throw e;
  }
}

/** memcheck must sit above overlap (it would watch overlap's private buffers); --memcheck-fatal
 * needs a memcheck to act on. */
function checkMemcheck(tools: ToolInstance[], fatal: boolean): void {
  const names = tools.map((t) => t.name);
  if (names.includes('overlap') && names.indexOf('memcheck') > names.indexOf('overlap')) {
    throw new MpiiError('memcheck comes after overlap in the tool stack', 'put memcheck first (--tools memcheck,overlap): below overlap it would check overlap\'s own buffers');
  }
  if (!fatal) return;
  const mc = tools.filter((t) => t.name === 'memcheck');
  if (!mc.length) throw new MpiiError('--memcheck-fatal but memcheck is not in the tool stack', 'add it: --tools memcheck (or drop --memcheck-fatal)');
  for (const t of mc) t.options.fatal = true;
}

/** The libraries every rank loads from mpii's cache or the configuration: what --copy-shim copies. */
const rankLibraries = (shim: Shim, tools: ToolInstance[]) => [shim.library, ...tools.filter((t) => t.kind === 'external').map((t) => t.path!)];

function chooseLauncher(args: RunArgs, flavor: FlavorName, env: NodeJS.ProcessEnv): Launcher {
  if (args.launcher === 'srun') return srunLauncher(flavor, args.launcherArgs, env);
  return mpirunLauncher(flavor, findLauncher(flavor, env), args.launcherArgs, env);
}

export async function runCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const args = parseRunArgs(argv, env);
  if (!args.program) throw new MpiiError('no program to run', 'usage: mpii run [mpii options] [launcher options] ./app [args]');
  if (args.copyShim && args.launcher !== 'srun') {
    throw new MpiiError('--copy-shim copies with Slurm\'s sbcast and needs --launcher srun',
      'with mpirun, install the shim at the same path on every host (mpii install --prefix on a path every host has)');
  }
  const cwd = process.cwd();
  const stack = resolveStack({ tools: args.tools, stack: args.stack, configFile: args.config, env, cwd, defaultsFile: DEFAULTS_FILE });
  checkMemcheck(stack.tools, args.memcheckFatal);
  const mpi = await detectMpi(args.program, env, args.mpi, cacheRoot(env));
  const launcher = chooseLauncher(args, mpi.flavor, env);
  const job = args.copyShim ? currentJob(env) : undefined;
  if (args.pvars.length) {
    // the names are checked with the library before anything runs (loaded only when asked)
    const { findInstall, askMpit } = await import('../mpit/library.js');
    const { checkSampled } = await import('../mpit/vars.js');
    checkSampled(await askMpit(await findInstall(mpi.flavor, env), { pvars: true }), args.pvars);
  }
  const outDir = prepareOutDir(args.out ?? defaultOutDir(args.program));
  const shim = await buildWithSpinner(mpi.flavor, args.quiet || args.dryRun, env);
  const copies = job && planCopies(rankLibraries(shim, stack.tools), job);
  const placed = new Map(copies?.files);
  const vars = rankEnvironment(shim, stack.tools, outDir, env, (l) => placed.get(l) ?? l);
  if (args.pvars.length) vars.MPII_PVARS = [...new Set(args.pvars)].join(',');
  const pythonNote = mpi.python ? pythonSites(mpi.python.include, vars, env) : undefined;
  // mpi4py's run-time settings (MPI4PY_RC_THREAD_LEVEL=single …) reach the ranks on both launchers
  if (mpi.python) for (const [k, v] of Object.entries(env)) if (k.startsWith('MPI4PY_') && v !== undefined) vars[k] = v;
  // mpi4py 4 picks its ABI by looking for MPI symbols in the process, where the shim's wrappers
  // would make any MPI look like MPICH: the ranks are told the choice mpi4py made without the shim
  if (mpi.python?.abi && env.MPI4PY_MPIABI === undefined && env.MPI4PY_LIBMPI === undefined) vars.MPI4PY_MPIABI = mpi.python.abi;
  const abiNote = mpi.python?.abiLink ? provideAbiName(mpi.python.abiLink, vars, env) : undefined;
  const plan = launcher(vars, [args.program, ...args.programArgs]);

  if (args.dryRun) {
    console.log(`# MPI: ${FLAVORS[mpi.flavor].label} (${mpi.how}); shim ${shim.library}${shim.fromCache ? ' (cached)' : ''}`);
    console.log(`# tools: ${stack.tools.map((t) => t.name).join(' ') || '(none)'} (from ${stack.source})`);
    for (const [from, to] of copies?.files ?? []) console.log(`# --copy-shim: sbcast ${from} ${to}`);
    for (const [k, v] of Object.entries(vars)) console.log(`${k}=${shellQuote(v)}`);
    console.log([plan.command, ...plan.args].map(shellQuote).join(' '));
    return 0;
  }
  if (!args.quiet) {
    if (mpi.note) process.stderr.write(`mpii: note: ${mpi.note}\n`);
    if (pythonNote) process.stderr.write(`mpii: note: ${pythonNote}\n`);
    if (abiNote) process.stderr.write(`mpii: note: ${abiNote}\n`);
    process.stderr.write(`mpii: ${FLAVORS[mpi.flavor].label}${mpi.extension ? ` through ${mpi.extension}` : ''}, launcher: ${basename(plan.command)}, `
      + `tools: ${stack.tools.map((t) => t.name).join(' → ') || '(none)'}, out: ${outDir}\n`);
  }
  writeFileSync(vars.MPII_RUN_MARK, '');
  writeRunInfo(outDir, { mpii: mpiiVersion(ROOT), command: [args.program, ...args.programArgs], launcher: basename(plan.command),
    launcherArgs: args.launcherArgs, cwd, mpi: shim.mpiVersion, flavor: mpi.flavor, tools: stack.tools.map((t) => ({ name: t.name, options: t.options })),
    program: programIdentity([args.program, ...args.programArgs], cwd, env), started: new Date().toISOString() });
  try {
    if (copies) copyToNodes(copies, env);
    return await runJob(plan, args, stack.tools, outDir, env);
  } finally {
    rmSync(vars.MPII_RUN_MARK, { force: true });
    if (copies) {
      const warning = removeFromNodes(copies, env);
      if (warning) process.stderr.write(`mpii: ${warning}\n`);
    }
  }
}

/** The ranks find the MPI library under the soname the Python extension asks for (a symbolic
 * link in mpii's cache, first on their LD_LIBRARY_PATH). Returns the note for the banner. */
function provideAbiName(link: { soname: string; target: string }, vars: Record<string, string>, env: NodeJS.ProcessEnv): string {
  const dir = join(cacheRoot(env), 'abi-names');
  const path = join(dir, link.soname);
  mkdirSync(dir, { recursive: true });
  let current: string | undefined;
  try {
    current = readlinkSync(path);
  } catch {
    current = undefined;
  }
  if (current !== link.target) {
    const tmp = `${path}.${process.pid}.tmp`;
    rmSync(tmp, { force: true });
    symlinkSync(link.target, tmp);
    renameSync(tmp, path); // atomic for a concurrent run
  }
  vars.LD_LIBRARY_PATH = [dir, env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  return `the extension needs ${link.soname}, which this system names ${basename(link.target)}: the ranks find it in ${dir}`;
}

/** A Python program's ranks name the Python line of each MPI call: the helper built for its
 * interpreter goes to them as MPII_PYSITE (a value the user set wins: a path, or empty for none).
 * Returns why there are no Python call sites, if so. */
function pythonSites(include: string | undefined, vars: Record<string, string>, env: NodeJS.ProcessEnv): string | undefined {
  if (env.MPII_PYSITE !== undefined) {
    vars.MPII_PYSITE = env.MPII_PYSITE;
    return undefined;
  }
  const built = buildPythonSites(include, env);
  if ('library' in built) {
    vars.MPII_PYSITE = built.library;
    return undefined;
  }
  return `call sites show mpi4py's C frames, not Python lines: ${built.problem}`;
}

/** Starts the launcher, waits for the job, prints the report; returns the job's exit code. */
async function runJob(plan: LaunchPlan, args: RunArgs, tools: ToolInstance[], outDir: string, env: NodeJS.ProcessEnv): Promise<number> {
  const launcher = plan.command;
  const child = spawn(launcher, plan.args, { stdio: 'inherit', env: plan.env });
  // Ctrl-C reaches the launcher through the terminal's process group as well; SIGTERM sent to
  // mpii alone must be passed on so the launcher tears the job down instead of orphaning it.
  let received: NodeJS.Signals | undefined;
  const forward = (sig: NodeJS.Signals) => () => {
    received = sig;
    child.kill(sig);
  };
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as NodeJS.Signals[]).map((s) => [s, forward(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  const result = await new Promise<{ exitCode: number | null; signal: string | null }>((done, fail) => {
    child.on('error', (e) => fail(new MpiiError(`cannot start ${launcher}: ${e.message}`, 'check the MPI installation with mpii doctor')));
    child.on('exit', (exitCode, signal) => done({ exitCode, signal }));
  });
  for (const [s, h] of handlers) process.off(s, h);
  const bySignal = (s: string) => 128 + (osConstants.signals[s as NodeJS.Signals] ?? 15);
  // a launcher that exits 0 after being told to stop still ended the job early: say so
  let code = result.exitCode ?? (result.signal ? bySignal(result.signal) : 1);
  if (code === 0 && received) code = bySignal(received);

  if (!args.quiet) {
    try {
      // loaded only now: the job's start does not wait for the report code
      const { readProfile } = await import('../profile/read.js');
      const { formatSummary, wantColor } = await import('../report/summary.js');
      const opts = { ...toolReportOptions(tools), color: wantColor(process.stderr, env) };
      process.stderr.write(`${formatSummary(readProfile(outDir), opts)}\n`);
    } catch (e) {
      // the job's exit code stands whatever the report does
      const hint = code === 0 ? elsewhere(outDir) : '';
      if (e instanceof MpiiError) process.stderr.write(`mpii: no profile to report: ${e.message}${hint}\n`);
      else process.stderr.write(`mpii: could not make the report (${(e as Error).message ?? e}); mpii report ${outDir} tries again\n`);
    }
  }
  return code;
}

/** An empty output directory after a job that succeeded: no rank's host shares it with this one,
 * so rank 0 wrote the profile on its own host (and said so). */
function elsewhere(outDir: string): string {
  try {
    if (readdirSync(outDir).some((f) => !f.startsWith('.mpii-run-'))) return '';
  } catch {
    return '';
  }
  return `; if no rank's host shares ${outDir} with this one (${hostname()}), rank 0 wrote profile.mpii on its `
    + `own host (its message above says where): copy it into ${outDir} and run mpii report ${outDir}`;
}

/** The report options the tools were configured with (their `top`, monitor's `matrix`). */
function toolReportOptions(tools: ToolInstance[]): ReportOptions {
  const opt = (tool: string, key: string) => tools.find((x) => x.name === tool)?.options[key];
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return { top: num(opt('trace-count', 'top')), monitorTop: num(opt('monitor', 'top')), matrix: opt('monitor', 'matrix') !== false,
    profileTop: num(opt('profile', 'top')) };
}

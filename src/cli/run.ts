// `mpii run`: config → MPI detection → shim build → launch → report.
import { mkdirSync, readdirSync, readlinkSync, renameSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { buildShim, cacheRoot, type BuildReason, type Shim } from '../shim/shim.js';
import { ROOT } from '../paths.js';
import { resolveStack, type ToolInstance } from '../config/resolve.js';
import { builtinManifests, type ToolManifest } from '../tools/manifest.js';
import { stackName, unspecialisable } from '../gen/specialised-c.js';
import { cachedSpecialised, ensureSpecialised } from '../shim/specialise.js';
import { backgroundNotice, buildMode, startBackground } from '../shim/background.js';
import { buildNotice, lastBuildSeconds, recordBuildSeconds } from '../shim/build-times.js';
import { MpiiError } from '../errors.js';
import { DirError, makeDirs } from '../fsdirs.js';
import { checkToolLibraries } from '../elf.js';
import { mpirunLauncher, type Launcher, type LaunchPlan } from '../launch/adapters.js';
import { parseRunArgs, type RunArgs } from '../launch/args.js';
import { copyToNodes, currentJob, planCopies, removeFromNodes } from '../launch/sbcast.js';
import { srunLauncher } from '../launch/srun.js';
import { bySignal, exitCodeOf, supervise, TIMEOUT_EXIT } from '../launch/supervise.js';
import { detectMpi, findLauncher } from '../mpi/detect.js';
import { FLAVORS, type FlavorName } from '../mpi/flavors.js';
import { progressMode, startProgress, type Progress } from './progress.js';
import type { ReportOptions } from '../report/summary.js';
import { mpiiVersion, programIdentity, RUN_INFO_FILE, writeRunInfo } from '../report/run-info.js';
import { reportOptionsVariable } from '../profile-file/report-options.js';

export const DEFAULTS_FILE = join(ROOT, 'config', 'tools.yaml');

/** The variables every rank needs; INJ_* are passed on only when the user set them. `place`
 * says where a library of this host is on the nodes (--copy-shim puts copies in their /tmp). */
export function rankEnvironment(
  shim: Shim,
  tools: ToolInstance[],
  outDir: string,
  env: NodeJS.ProcessEnv,
  place: (library: string) => string = (l) => l,
): Record<string, string> {
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

/** The output directory, checked before anything is built or launched: creatable and writable
 * (a probe file), and not holding another run's profile unless --force replaces it. The
 * directories made here go to `created` so a run that never starts can take them back. */
function prepareOutDir(dir: string, force: boolean, dryRun: boolean, created: string[]): string {
  const abs = resolve(dir);
  try {
    created.push(...makeDirs(abs));
    const probe = join(abs, `.mpii-probe-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new MpiiError(
      `cannot write the output directory ${abs} (${err.code ?? err.message}${e instanceof DirError && e.path !== abs ? ` at ${e.path}` : ''})`,
      'pass --out DIR with a directory you can create and write',
    );
  }
  const old = profileFiles(abs);
  if (old.length && !force) {
    throw new MpiiError(
      `${abs} already holds a profile (${old.slice(0, 3).join(', ')}${old.length > 3 ? ', …' : ''})`,
      'add --force to replace it, or pass another --out DIR',
    );
  }
  if (!dryRun) for (const f of old) rmSync(join(abs, f), { recursive: true, force: true });
  return abs;
}

/** What a run leaves in its output directory: a profile, per-rank files, spawned jobs' profiles. */
function profileFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f === 'profile.mpii' || f.endsWith('.live') || f.startsWith('spawned-'))
    .sort();
}

/** Directories mpii made for a run that wrote nothing into them, removed innermost first (the run
 * description mpii wrote before the launch means nothing alone). */
function removeIfEmpty(created: string[]): void {
  for (const d of [...created].reverse()) {
    try {
      const files = readdirSync(d);
      if (files.length === 1 && files[0] === RUN_INFO_FILE) rmSync(join(d, RUN_INFO_FILE));
      rmdirSync(d);
    } catch {
      return; // not empty (the run wrote something, or someone else did): keep it and its parents
    }
  }
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export async function buildWithSpinner(flavor: FlavorName, quiet: boolean, env: NodeJS.ProcessEnv, force = false, specialise?: ToolManifest[]): Promise<Shim> {
  // ora is loaded only when a build really happens (a warm run starts faster without it)
  let progress: Progress | undefined;
  const label = FLAVORS[flavor].label;
  const stream = process.stderr;
  try {
    let started: { kind: BuildReason['kind']; t0: number } | undefined;
    const finished = () => {
      if (started) recordBuildSeconds(cacheRoot(env), started.kind, (Date.now() - started.t0) / 1000);
      started = undefined;
    };
    const say = async (line: string) => {
      if (quiet) stream.write(`${line}\n`);
      // a spinner only on a terminal of known width (a 0-column pty made ora write escapes
      // forever); elsewhere the first and the last line only
      if (progress) progress.update(line);
      else progress = await startProgress(line, progressMode(stream, env, { quiet }), stream, env);
    };
    const opts = {
      env,
      force,
      beforeBuild: async (why: BuildReason) => {
        started = { kind: why.kind, t0: Date.now() };
        // a build takes seconds to minutes: one line says what and why, even when quiet
        await say(buildNotice(why, lastBuildSeconds(cacheRoot(env), why.kind)));
      },
      // another process builds the stack (a run's background build, another `mpii build`)
      onWait: (pid: number) =>
        say(
          `mpii: waiting for the stack ${stackName(specialise!)} compiled into one wrapper per function, ` +
            `which another mpii (pid ${pid}) is building; the job starts when it is done`,
        ),
      onStep: (t: string) => progress?.update(`mpii: building the ${label} shim: ${t}`),
    };
    const general = await buildShim(flavor, opts);
    finished();
    // the stack's specialised shim, made from the general one's objects
    const shim = specialise ? await ensureSpecialised(general, specialise, opts) : general;
    finished();
    progress?.succeed(`mpii: built the ${label} shim (${shim.functions} MPI functions wrapped)`);
    return shim;
  } catch (e) {
    progress?.fail();
    throw e;
  }
}

/** The shim a run uses, and why the stack runs chained when it does. A stack whose compiled-in
 *  shim is cached runs from it; else, unless MPII_BUILD=wait, the run starts at once from the
 *  general shim (the same tools through the QMPI chain) while the compiled-in one builds in the
 *  background for the next run (background.ts). A dry run starts nothing. */
async function runShim(
  flavor: FlavorName,
  args: RunArgs,
  env: NodeJS.ProcessEnv,
  specialise: ToolManifest[] | undefined,
): Promise<{ shim: Shim; chained?: string }> {
  const quiet = args.quiet || args.dryRun;
  const mode = buildMode(env);
  if (!specialise || mode === 'wait') return { shim: await buildWithSpinner(flavor, quiet, env, false, specialise) };
  const general = await buildWithSpinner(flavor, quiet, env);
  const cached = cachedSpecialised(general, specialise);
  if (cached) return { shim: cached };
  const stack = stackName(specialise);
  if (args.dryRun) return { shim: general, chained: `the compiled-in stack ${stack} is not built yet: a run builds it in the background` };
  const b = startBackground(general, specialise, env);
  process.stderr.write(`${backgroundNotice(stack, b, lastBuildSeconds(cacheRoot(env), 'stack'))}\n`);
  return {
    shim: general,
    chained: b.state === 'failed' ? `the compiled-in stack ${stack} failed to build` : `the compiled-in stack ${stack} builds in the background`,
  };
}

/** The stack rules of the tools' manifests: a tool that must sit above another (`stack.before`:
 * memcheck would watch overlap's private buffers); a tool's run flag (`run-flags`,
 * --memcheck-fatal) needs the tool in the stack, and sets options of each of its instances. */
export function applyToolRules(tools: ToolInstance[], flags: string[]): void {
  const names = tools.map((t) => t.name);
  for (const t of tools) {
    for (const [other, why] of Object.entries(t.manifest?.before ?? {})) {
      if (names.includes(other) && names.indexOf(t.name) > names.indexOf(other)) {
        throw new MpiiError(`${t.name} comes after ${other} in the tool stack`, `put ${t.name} first (--tools ${t.name},${other}): ${why}`);
      }
    }
  }
  for (const flag of flags) {
    const owner = builtinManifests().find((m) => m.runFlags.some((f) => f.flag === flag))!;
    const sets = owner.runFlags.find((f) => f.flag === flag)!.sets;
    const instances = tools.filter((t) => t.name === owner.name);
    if (!instances.length) throw new MpiiError(`${flag} but ${owner.name} is not in the tool stack`, `add it: --tools ${owner.name} (or drop ${flag})`);
    for (const t of instances) Object.assign(t.options, sets);
  }
}

/** The libraries every rank loads from mpii's cache or the configuration: what --copy-shim copies. */
const rankLibraries = (shim: Shim, tools: ToolInstance[]) => [shim.library, ...tools.filter((t) => t.kind === 'external').map((t) => t.path!)];

function chooseLauncher(args: RunArgs, flavor: FlavorName, env: NodeJS.ProcessEnv): Launcher {
  if (args.launcher === 'srun') return srunLauncher(flavor, args.launcherArgs, env);
  return mpirunLauncher(flavor, findLauncher(flavor, env), args.launcherArgs, env);
}

export async function runCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // a run that never got going (an error before the launch, a launch that failed, --dry-run)
  // leaves no empty output directory behind; a job that succeeded keeps it even when empty
  // (INJ_IGNORE, or the profile went to rank 0's host: the hint says to copy it there)
  const out: OutDirs = { created: [], keep: false, launched: false };
  // a signal before the launcher runs (say, Ctrl-C during a shim build) ends mpii with
  // 128+signal and takes back what this run made; from the launch on, runJob passes signals on
  const early = (sig: NodeJS.Signals) => () => {
    if (out.launched) return;
    if (out.mark) rmSync(out.mark, { force: true });
    removeIfEmpty(out.created);
    process.exit(bySignal(sig));
  };
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as NodeJS.Signals[]).map((s) => [s, early(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  try {
    return await runIn(argv, env, out);
  } finally {
    for (const [s, h] of handlers) process.off(s, h);
    if (!out.keep) removeIfEmpty(out.created);
  }
}

interface OutDirs {
  created: string[];
  keep: boolean;
  launched: boolean;
  mark?: string;
}

async function runIn(argv: string[], env: NodeJS.ProcessEnv, out: OutDirs): Promise<number> {
  const { created } = out;
  const args = parseRunArgs(argv, env);
  if (!args.program) throw new MpiiError('no program to run', 'usage: mpii run [mpii options] [launcher options] ./app [args]');
  if (args.copyShim && args.launcher !== 'srun') {
    throw new MpiiError(
      "--copy-shim copies with Slurm's sbcast and needs --launcher srun",
      'with mpirun, install the shim at the same path on every host (mpii install --prefix on a path every host has)',
    );
  }
  const cwd = process.cwd();
  const stack = resolveStack({ tools: args.tools, stack: args.stack, configFile: args.config, env, cwd, defaultsFile: DEFAULTS_FILE });
  applyToolRules(stack.tools, args.toolFlags);
  checkToolLibraries(stack.tools); // a .so the ranks could not load: one line now, not a failure in every rank
  const mpi = await detectMpi(args.program, env, args.mpi, cacheRoot(env));
  const launcher = chooseLauncher(args, mpi.flavor, env);
  const job = args.copyShim ? currentJob(env) : undefined;
  if (args.pvars.length) {
    // the names are checked with the library before anything runs (loaded only when asked)
    const { findInstall, askMpit } = await import('../mpit/library.js');
    const { checkSampled } = await import('../mpit/vars.js');
    checkSampled(await askMpit(await findInstall(mpi.flavor, env), { pvars: true }), args.pvars);
  }
  const outDir = prepareOutDir(args.out ?? defaultOutDir(args.program), args.force, args.dryRun, created);
  // a stack of built-in tools only runs compiled into one wrapper per function (--chained, or
  // MPII_SPECIALISE=0 for every run: not)
  const chained = args.chained ? '--chained' : env.MPII_SPECIALISE === '0' ? 'MPII_SPECIALISE=0' : unspecialisable(stack.tools);
  const specialise = chained === undefined ? stack.tools.map((t) => t.manifest!) : undefined;
  const built = await runShim(mpi.flavor, args, env, specialise);
  const shim = built.shim;
  const copies = job && planCopies(rankLibraries(shim, stack.tools), job);
  const placed = new Map(copies?.files);
  const vars = rankEnvironment(shim, stack.tools, outDir, env, (l) => placed.get(l) ?? l);
  if (args.pvars.length) vars.MPII_PVARS = [...new Set(args.pvars)].join(',');
  // the report options go into the profile: a later `mpii report` shows what this run shows
  const recorded = reportOptionsVariable(toolReportOptions(stack.tools).toolOptions ?? {});
  if (recorded !== '{}') vars.MPII_REPORT_OPTIONS = recorded;
  const pythonNote = mpi.python ? await pythonSites(mpi.python.include, vars, env) : undefined;
  // mpi4py's run-time settings (MPI4PY_RC_THREAD_LEVEL=single …) reach the ranks on both launchers
  if (mpi.python) for (const [k, v] of Object.entries(env)) if (k.startsWith('MPI4PY_') && v !== undefined) vars[k] = v;
  // mpi4py 4 picks its ABI by looking for MPI symbols in the process, where the shim's wrappers
  // would make any MPI look like MPICH: the ranks are told the choice mpi4py made without the shim
  if (mpi.python?.abi && env.MPI4PY_MPIABI === undefined && env.MPI4PY_LIBMPI === undefined) vars.MPI4PY_MPIABI = mpi.python.abi;
  const abiNote = mpi.python?.abiLink ? provideAbiName(mpi.python.abiLink, vars, env) : undefined;
  const plan = launcher(vars, [args.program, ...args.programArgs]);

  if (args.dryRun) {
    console.log(`# MPI: ${FLAVORS[mpi.flavor].label} (${mpi.how}); shim ${shim.library}${shim.fromCache ? ' (cached)' : ''}`);
    console.log(
      `# tools: ${stack.tools.map((t) => t.name).join(' ') || '(none)'} (from ${stack.source}); ${specialise && !built.chained ? 'specialised: compiled into one wrapper per function' : `chained (${chained ?? built.chained})`}`,
    );
    for (const [from, to] of copies?.files ?? []) console.log(`# --copy-shim: sbcast ${from} ${to}`);
    for (const [k, v] of Object.entries(vars)) console.log(`${k}=${shellQuote(v)}`);
    console.log([plan.command, ...plan.args].map(shellQuote).join(' '));
    return 0;
  }
  if (!args.quiet) {
    if (mpi.note) process.stderr.write(`mpii: note: ${mpi.note}\n`);
    if (pythonNote) process.stderr.write(`mpii: note: ${pythonNote}\n`);
    if (abiNote) process.stderr.write(`mpii: note: ${abiNote}\n`);
    process.stderr.write(
      `mpii: ${FLAVORS[mpi.flavor].label}${mpi.extension ? ` through ${mpi.extension}` : ''}, launcher: ${basename(plan.command)}, ` +
        `tools: ${stack.tools.map((t) => t.name).join(' → ') || '(none)'}, out: ${outDir}\n`,
    );
  }
  out.mark = vars.MPII_RUN_MARK;
  writeFileSync(vars.MPII_RUN_MARK, '');
  writeRunInfo(outDir, {
    mpii: mpiiVersion(ROOT),
    command: [args.program, ...args.programArgs],
    launcher: basename(plan.command),
    launcherArgs: args.launcherArgs,
    cwd,
    mpi: shim.mpiVersion,
    flavor: mpi.flavor,
    tools: stack.tools.map((t) => ({ name: t.name, options: t.options })),
    program: programIdentity([args.program, ...args.programArgs], cwd, env, cacheRoot(env)),
    started: new Date().toISOString(),
  });
  try {
    if (copies) copyToNodes(copies, env);
    out.launched = true;
    const code = await runJob(plan, args, stack.tools, outDir, env);
    out.keep = code === 0;
    return code;
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
async function pythonSites(include: string | undefined, vars: Record<string, string>, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (env.MPII_PYSITE !== undefined) {
    vars.MPII_PYSITE = env.MPII_PYSITE;
    return undefined;
  }
  const { buildPythonSites } = await import('../shim/python-sites.js'); // Python programs only
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
  // signals to mpii go on to the launcher (exit 128+signal), --timeout stops it (exit 124)
  const outcome = await supervise(
    child,
    (e) => new MpiiError(`cannot start ${launcher}: ${e.message}`, 'check the MPI installation with mpii doctor'),
    args.timeout,
  );
  const code = exitCodeOf(outcome);
  if (outcome.timedOut) {
    process.stderr.write(
      `mpii: the job ran past --timeout ${args.timeout} s and was stopped (exit ${TIMEOUT_EXIT}): its profile is partial, marked INCOMPLETE\n`,
    );
  }

  if (!args.quiet && injIgnored(env)) {
    process.stderr.write(`mpii: no profile: INJ_IGNORE=${env.INJ_IGNORE} switched the tools off on purpose (unset INJ_IGNORE to run them)\n`);
  } else if (!args.quiet) {
    try {
      // loaded only now: the job's start does not wait for the report code
      const { readProfile } = await import('../profile-file/read.js');
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

/** INJ_IGNORE as the shim reads it (preload/core/init.c): a whole number other than 0. */
export function injIgnored(env: NodeJS.ProcessEnv): boolean {
  const v = env.INJ_IGNORE?.trimStart(); // strtol skips leading blanks only
  return v !== undefined && /^[+-]?\d+$/.test(v) && Number(v) !== 0;
}

/** An empty output directory after a job that succeeded: no rank's host shares it with this one,
 * so rank 0 wrote the profile on its own host (and said so). */
function elsewhere(outDir: string): string {
  try {
    if (readdirSync(outDir).some((f) => !f.startsWith('.mpii-run-'))) return '';
  } catch {
    return '';
  }
  return (
    `; if no rank's host shares ${outDir} with this one (${hostname()}), rank 0 wrote profile.mpii on its ` +
    `own host (its message above says where): copy it into ${outDir} and run mpii report ${outDir}`
  );
}

/** The options the tools were run with, for their part of the report (their `top`, a `matrix`):
 * by tool name, the first instance's. */
function toolReportOptions(tools: ToolInstance[]): ReportOptions {
  const toolOptions: NonNullable<ReportOptions['toolOptions']> = {};
  for (const t of tools) toolOptions[t.name] ??= t.options;
  return { toolOptions };
}

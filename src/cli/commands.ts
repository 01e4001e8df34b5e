// The small commands: build, tools, doctor, report.
import type { OptionValue } from '../config/load.js';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { execa } from 'execa';
import chalk from 'chalk';
import { colorLevel } from '../color.js';
import { makeDirs } from '../fsdirs.js';
import { cacheRoot } from '../build/shim.js';
import { listStacks, listTools, resolveStack } from '../config/resolve.js';
import { unspecialisable } from '../tools/gen-spec.js';
import type { ToolManifest } from '../tools/manifest.js';
import { MpiiError } from '../errors.js';
import { FLAVORS, findTool, which, type FlavorName } from '../mpi/flavors.js';
import { SRUN_PLUGIN, srunPlugins } from '../launch/srun.js';
import { launcherFlavor } from '../mpi/detect.js';
import { profileBytes, readProfile, readProfileAsync, type Profile, type RankProfile, type ReadOptions } from '../profile-file/read.js';
import { formatSummary, summaryJson, wantColor } from '../report/summary.js';
import { reportFilter, type ReportFilter } from '../report/filter.js';
import type { ToolReportModule } from '../report/tools.js';
import { recordedReportOptions, withoutAsked } from '../profile-file/report-options.js';
import { buildWithSpinner, DEFAULTS_FILE } from './run.js';
import { BIG_PROFILE_BYTES, progressMode, progressWorthIt, startProgress, type ProgressMode } from './progress.js';
import { blockWriter, writeJson } from '../report/json-stream.js';
import { askMpit, findInstall } from '../mpit/library.js';
import { formatCvars, formatPvars, nameFilter } from '../mpit/vars.js';

function installedFlavors(env: NodeJS.ProcessEnv): FlavorName[] {
  return (Object.keys(FLAVORS) as FlavorName[]).filter((f) => findTool(f, FLAVORS[f].compilers, env));
}

export async function buildCommand(o: { mpi?: string; force?: boolean; quiet?: boolean; json?: boolean; tools?: string }): Promise<number> {
  const env = process.env;
  let flavors: FlavorName[];
  if (!o.mpi || o.mpi === 'all') flavors = installedFlavors(env);
  else if (o.mpi === 'openmpi' || o.mpi === 'mpich') flavors = [o.mpi];
  else throw new MpiiError(`unknown MPI '${o.mpi}' for --mpi`, 'use --mpi openmpi, mpich or all');
  if (flavors.length === 0) {
    throw new MpiiError('no MPI installation found', `install one: apt-get install -y ${FLAVORS.openmpi.packages} ${FLAVORS.mpich.packages}`);
  }
  // --tools: also that stack's specialised shim (made on its first run otherwise)
  let specialise: ToolManifest[] | undefined;
  if (o.tools !== undefined) {
    const stack = resolveStack({ tools: o.tools, env, cwd: process.cwd(), defaultsFile: DEFAULTS_FILE });
    const why = unspecialisable(stack.tools);
    if (why) throw new MpiiError(`the stack '${o.tools}' cannot be specialised: ${why}`, 'it runs through the QMPI chain of the general shim, which `mpii build` without --tools makes');
    specialise = stack.tools.map((t) => t.manifest!);
  }
  const built = [];
  for (const f of flavors) {
    const shim = await buildWithSpinner(f, !!o.quiet, env, !!o.force, specialise);
    built.push({ flavor: f, mpiVersion: shim.mpiVersion, library: shim.library, cached: shim.fromCache });
    if (!o.json) console.log(`${f}\t${shim.mpiVersion}\t${shim.library}${shim.fromCache ? '\t(cached)' : ''}`);
  }
  if (o.json) console.log(jsonText(built));
  return 0;
}

export async function toolsCommand(o: { config?: string; json?: boolean }): Promise<number> {
  chalk.level = colorLevel(process.stdout);
  const req = { configFile: o.config, env: process.env, cwd: process.cwd(), defaultsFile: DEFAULTS_FILE };
  if (o.json) {
    console.log(jsonText({ tools: listTools(req), stacks: listStacks(req) }));
    return 0;
  }
  console.log('Tools:');
  for (const t of listTools(req)) {
    const opts = t.options?.map((x) => `${x.name} (${x.summary})`).join(', ');
    console.log(`  ${t.name.padEnd(14)} ${t.kind.padEnd(8)} ${t.description ?? t.path ?? ''}${opts ? `\n  ${''.padEnd(24)}options: ${opts}` : ''}`);
  }
  console.log('Stacks:');
  for (const s of listStacks(req)) {
    console.log(`  ${s.name.padEnd(14)} [${s.entries.join(', ')}]${s.isDefault ? ' (default)' : ''}  ${chalk.dim(s.definedIn)}${s.problem ? `\n    ${chalk.red(s.problem)}` : ''}`);
  }
  return 0;
}

/** One line of `mpii doctor`: ok, a problem with its fix, or information (`--`). */
interface Check { status: 'ok' | 'fail' | 'info'; message: string; fix?: string }

export async function doctorCommand(o: { json?: boolean } = {}): Promise<number> {
  const env = process.env;
  chalk.level = colorLevel(process.stdout, env);
  const checks: Check[] = [];
  const show = (c: Check) => {
    checks.push(c);
    if (o.json) return;
    if (c.status === 'ok') console.log(`${chalk.green('ok')}    ${c.message}`);
    else if (c.status === 'info') console.log(`${chalk.yellow('--')}    ${c.message}`);
    else console.log(`${chalk.red('FAIL')}  ${c.message}\n      fix: ${c.fix}`);
  };
  const ok = (message: string) => show({ status: 'ok', message });
  const bad = (message: string, fix: string) => show({ status: 'fail', message, fix });
  for (const f of Object.keys(FLAVORS) as FlavorName[]) {
    const fl = FLAVORS[f];
    const cc = findTool(f, fl.compilers, env);
    const run = findTool(f, fl.launchers, env);
    if (cc && run) ok(`${fl.label}: compiler ${cc}, launcher ${run}`);
    else show({ status: 'info', message: `${fl.label}: not installed (apt-get install -y ${fl.packages})` });
  }
  if (installedFlavors(env).length === 0) bad('no MPI installed', `apt-get install -y ${FLAVORS.openmpi.packages}`);
  const lf = launcherFlavor(env);
  if (lf) ok(`mpirun on PATH is ${FLAVORS[lf].label} (used for programs whose MPI cannot be read from the binary)`);
  show(slurmCheck(env));
  for (const tool of ['cc', 'ar', 'ldd']) {
    const r = await execa('sh', ['-c', `command -v ${tool}`], { reject: false });
    if (r.exitCode === 0) ok(`${tool}: ${r.stdout.trim()}`);
    else bad(`${tool} not found`, 'apt-get install -y build-essential');
  }
  const cache = cacheRoot(env);
  try {
    makeDirs(cache);
    ok(`shim cache ${cache} is writable`);
  } catch {
    bad(`shim cache ${cache} is not writable`, 'set XDG_CACHE_HOME to a writable directory');
  }
  if (env.LD_PRELOAD) {
    const missing = env.LD_PRELOAD.split(/[:\s]+/).filter((p) => p && !existsSync(p));
    if (missing.length) bad(`LD_PRELOAD names missing libraries: ${missing.join(' ')}`, 'fix or unset LD_PRELOAD');
    else ok(`LD_PRELOAD=${env.LD_PRELOAD} is kept for the ranks, after the mpii shim`);
    if (/libmpii/.test(env.LD_PRELOAD)) bad('LD_PRELOAD already holds an mpii shim: the ranks would load it twice', 'unset LD_PRELOAD before mpii run');
  }
  for (const k of ['INJ_IGNORE', 'INJ_DEBUG', 'TOOLS']) if (env[k] !== undefined) ok(`${k}=${env[k]} is set and will be used`);
  const problems = checks.filter((c) => c.status === 'fail').length;
  if (o.json) console.log(jsonText({ problems, checks }));
  else console.log(problems ? chalk.red(`${problems} problem(s)`) : chalk.green('all good'));
  return problems ? 1 : 0;
}

/** Information only: mpirun works without Slurm, and inside an allocation it uses it by itself. */
function slurmCheck(env: NodeJS.ProcessEnv): Check {
  const srun = which('srun', env);
  if (!srun) return { status: 'info', message: 'Slurm: no srun on PATH (only needed for --launcher srun)' };
  try {
    const plugins = srunPlugins(srun, env);
    const usable = (Object.keys(SRUN_PLUGIN) as FlavorName[]).map((f) => `${FLAVORS[f].label} ${plugins.includes(SRUN_PLUGIN[f]) ? 'via' : 'needs'} --mpi=${SRUN_PLUGIN[f]}`);
    return { status: 'ok', message: `Slurm: ${srun}, MPI plugins ${plugins.join(', ')} (${usable.join(', ')})` };
  } catch (e) {
    return { status: 'info', message: `Slurm: ${srun} is there but ${(e as Error).message} (only needed for --launcher srun)` };
  }
}

/** Indented JSON, or one line when the indented text would pass V8's longest string (~512 MiB:
 * a job of a thousand ranks each talking to every peer, with --top 0). */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2);
  } catch (e) {
    if (e instanceof RangeError) return JSON.stringify(value);
    throw e;
  }
}

export interface ReportFlags { json?: boolean; top?: number; csv?: string; prof?: string; html?: string; force?: boolean; ranks?: string | boolean; sites?: string;
  /** the tools' options their own flags set (`--no-matrix`: the monitor's matrix=false), by tool */
  toolOptions?: Record<string, Record<string, OptionValue>> }

export async function reportCommand(dir: string, o: ReportFlags, dir2?: string): Promise<number> {
  if (o.top !== undefined && !(Number.isInteger(o.top) && o.top >= 0)) {
    throw new MpiiError('--top needs a whole number (0: every row)', 'e.g. --top 20');
  }
  if (o.top === 0) o = { ...o, top: Infinity }; // every row, in every format
  const filter = reportFilter(o);
  try {
    if (dir2 !== undefined) return await (await import('../report/diff-command.js')).diffCommand(dir, dir2, o, filter);
    return await report(dir, o, filter);
  } catch (e) {
    if (e instanceof MpiiError) throw e;
    // the reader of the output stopped early (`mpii report DIR --json | head`): nothing is wrong
    if ((e as NodeJS.ErrnoException).code === 'EPIPE') return 0;
    // a damaged file can fail in ways no check foresaw: still one line, never a stack trace
    throw new MpiiError(`cannot make the report of ${dir}: ${(e as Error).message ?? e}`,
      're-run the job; if the profile is intact, this is an mpii bug: please report it');
  }
}

async function report(dir: string, o: ReportFlags, filter: ReportFilter): Promise<number> {
  // an existing page is replaced only when asked (checked before the profile is read)
  if (o.html && existsSync(o.html) && !o.force) {
    throw new MpiiError(`${o.html} already exists`, 'add --force to replace it, or pass another --html FILE');
  }
  // long work (a big profile, the page of many ranks) shows progress on stderr; with --json,
  // only as a spinner on a terminal, never as lines in a script's log
  const mode = progressMode(process.stderr, process.env, { lines: !o.json });
  const { TOOL_REPORTS } = await import('../report/tools.js');
  // the terminal report alone: the tools take what it needs of each rank while it is read (a
  // big job's per-peer tables are then not kept)
  const hooks = o.json || o.html || o.csv || o.prof ? [] : TOOL_REPORTS.flatMap((t) => (t.report.digest ? [t.report.digest({ top: o.top })] : []));
  const onImage = hooks.length ? (r: RankProfile) => { for (const h of hooks) h(r); } : undefined;
  const p = await readWithProgress(dir, mode, !!o.json, { onImage });
  // the options the run was given (in its profile) are the defaults; --top and the tools' flags win
  const toolOptions = withoutAsked(recordedReportOptions(p), { top: o.top, toolOptions: o.toolOptions });
  // call-site rows in every format: the recorded `top` of the tool whose report takes the filter
  for (const t of TOOL_REPORTS) {
    const top = toolOptions[t.name]?.top;
    if (t.report.checkFilter && filter.top === undefined && typeof top === 'number') filter = { ...filter, top: top === 0 ? Infinity : top };
  }
  for (const t of TOOL_REPORTS) t.report.checkFilter?.(p, filter);
  writeToolFiles(dir, p, o, filter, TOOL_REPORTS);
  if (o.html) {
    const { htmlReport } = await import('../report/html.js');
    const progress = progressWorthIt({ htmlRanks: p.ranks.length }) && mode !== 'off'
      ? await startProgress(`mpii: writing the HTML report of ${p.ranks.length} ranks to ${o.html}`, mode) : undefined;
    progress?.show(); // the page is made in one synchronous go: the line is there, the spinner stands
    let html: string;
    try {
      html = htmlReport(p, { top: o.top, generated: new Date(), filter });
      await writeFile(o.html, html);
    } catch (e) {
      progress?.fail();
      if (!(e as NodeJS.ErrnoException).syscall) throw e;
      throw new MpiiError(`cannot write ${o.html} (${(e as NodeJS.ErrnoException).code ?? e})`, 'pass --html FILE in a writable directory');
    }
    const wrote = `wrote ${o.html} (${(html.length / 1024).toFixed(0)} KiB)`;
    if (progress && !o.json) progress.succeed(wrote);
    else if (progress) progress.stop();
    else if (!o.json) console.error(wrote);
  }
  if (o.json) {
    // indented, as JSON.stringify(…, null, 2), but on one line from a big profile on (a big job's
    // per-peer rows take a few lines each when indented); written as it is made
    const out = blockWriter(1);
    writeJson(summaryJson(p, filter), out.write, profileBytes(dir) <= BIG_PROFILE_BYTES);
    out.end();
  } else console.log(formatSummary(p, { top: o.top, color: wantColor(process.stdout), filter, toolOptions }));
  return 0;
}

/** --csv DIR and --prof PREFIX: the files of the tools that write them (their report modules'
 * `files`), none replaced without --force, none written when one is in the way. */
function writeToolFiles(dir: string, p: Profile, o: ReportFlags, filter: ReportFilter, tools: ToolReportModule[]): void {
  if (!o.csv && !o.prof) return;
  const outputs = tools.flatMap((t) => (t.report.files ? [{ name: t.name, out: t.report.files(p) }] : []));
  for (const kind of ['csv', 'prof'] as const) {
    if (!o[kind] || outputs.some((x) => x.out.has[kind])) continue;
    const names = outputs.filter((x) => x.out.provides.includes(kind)).map((x) => x.name);
    throw new MpiiError(`${dir} has no ${names.join(' or ')} data for --csv/--prof`, `run the job with ${names.map((n) => `--tools ${n}`).join(' or ')}`);
  }
  const asked = { csv: o.csv, prof: o.prof };
  if (!o.force) {
    const taken = outputs.flatMap((x) => x.out.planned(asked)).filter((f) => existsSync(f));
    if (taken.length) {
      throw new MpiiError(`${taken[0]} already exists${taken.length > 1 ? ` (and ${taken.length - 1} more of the files to write)` : ''}`,
        'add --force to replace them, or pass another --csv DIR / --prof PREFIX');
    }
  }
  for (const x of outputs) for (const line of x.out.write(asked, filter)) if (!o.json) console.error(line);
}

/** The profile of `dir`; one bigger than BIG_PROFILE_BYTES is read with progress shown (the
 * spinner leaves a last line, except with --json). */
async function readWithProgress(dir: string, mode: ProgressMode, json: boolean, ro: ReadOptions = {}): Promise<Profile> {
  const bytes = profileBytes(dir);
  if (mode === 'off' || !progressWorthIt({ profileBytes: bytes })) return readProfile(dir, ro);
  const size = `${(bytes / 1048576).toFixed(0)} MiB`;
  const what = `mpii: reading the profile of ${dir} (${size})`;
  const progress = await startProgress(what, mode);
  try {
    const p = await readProfileAsync(dir, (done, total) => progress.update(`${what}: ${Math.floor((100 * done) / Math.max(1, total))}%`), ro);
    if (json) progress.stop();
    else progress.succeed(`mpii: read the profile of ${dir} (${size}, ${p.ranks.length} rank${p.ranks.length === 1 ? '' : 's'})`);
    return p;
  } catch (e) {
    progress.fail();
    throw e;
  }
}

/** The MPI `mpii pvars/cvars` ask: --mpi, else the mpirun on PATH, else the one installed. */
function listedFlavor(mpi: string | undefined, env: NodeJS.ProcessEnv): FlavorName {
  if (mpi !== undefined) {
    if (mpi === 'openmpi' || mpi === 'mpich') return mpi;
    throw new MpiiError(`unknown MPI '${mpi}' for --mpi`, 'use --mpi openmpi or --mpi mpich');
  }
  const f = launcherFlavor(env) ?? installedFlavors(env)[0];
  if (!f) throw new MpiiError('no MPI installation found', `install one: apt-get install -y ${FLAVORS.openmpi.packages}`);
  return f;
}

export interface VarsFlags { mpi?: string; json?: boolean }

/** `mpii pvars [names…]` and `mpii cvars [names…]`: the MPI library's own MPI_T variables. */
export async function varsCommand(kind: 'pvars' | 'cvars', patterns: string[], o: VarsFlags): Promise<number> {
  const env = process.env;
  const inst = await findInstall(listedFlavor(o.mpi, env), env);
  const l = await askMpit(inst, { pvars: kind === 'pvars', cvars: kind === 'cvars' });
  const keep = nameFilter(patterns);
  const all: { name: string }[] = kind === 'pvars' ? l.pvars : l.cvars;
  const shown = all.filter((v) => keep(v.name));
  if (patterns.length && shown.length === 0) {
    const what = kind === 'pvars' ? 'performance' : 'control';
    throw new MpiiError(`no ${what} variable of ${l.version} matches ${patterns.map((p) => `'${p}'`).join(' or ')}`,
      `mpii ${kind} without a filter lists all ${all.length}`, 1);
  }
  if (o.json) {
    console.log(JSON.stringify({ mpi: l.version, flavor: l.flavor, library: l.library, [kind]: shown }, null, 2));
  } else {
    const lines = kind === 'pvars' ? formatPvars(l, shown as typeof l.pvars, patterns.length > 0)
      : formatCvars(l, shown as typeof l.cvars, patterns.length > 0);
    console.log(lines.join('\n'));
  }
  return 0;
}

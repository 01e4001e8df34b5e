// The small commands: build, tools, doctor, pvars, cvars (`mpii report` is in report.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import chalk from 'chalk';
import { colorLevel } from '../color.js';
import { makeDirs } from '../fsdirs.js';
import { cacheRoot, systemCacheRoot } from '../shim/shim.js';
import { PACKAGE_JSON, ROOT } from '../paths.js';
import { listStacks, listTools, resolveStack } from '../config/resolve.js';
import { unspecialisable } from '../gen/specialised-c.js';
import type { ToolManifest } from '../tools/manifest.js';
import { MpiiError } from '../errors.js';
import { FLAVORS, findTool, which, type FlavorName, type ShimFlavor } from '../mpi/flavors.js';
import { SRUN_PLUGIN, srunPlugins } from '../launch/srun.js';
import { launcherFlavor } from '../mpi/detect.js';
import { DEFAULTS_FILE } from './run.js';
import { buildWithSpinner } from './shim-build.js';
import { askMpit, findAbiInstall, findInstall, type MpiInstall } from '../mpit/library.js';
import { ABI_CHOICES, abiImplementationAsked } from '../mpi/abi.js';
import { loadKoffi } from '../mpit/koffi.js';
import { formatCvars, formatPvars, nameFilter } from '../mpit/vars.js';
import { ENV, ENV_PASSED_ON } from '../environment.gen.js';

function installedFlavors(env: NodeJS.ProcessEnv): FlavorName[] {
  return (Object.keys(FLAVORS) as FlavorName[]).filter((f) => findTool(f, FLAVORS[f].compilers, env));
}

export async function buildCommand(o: { mpi?: string; force?: boolean; quiet?: boolean; json?: boolean; tools?: string; system?: boolean }): Promise<number> {
  const env = process.env;
  let flavors: ShimFlavor[];
  if (!o.mpi || o.mpi === 'all') flavors = installedFlavors(env);
  // the standard ABI's one shim, for every implementation of it (asked for by name)
  else if (o.mpi === 'openmpi' || o.mpi === 'mpich' || o.mpi === 'abi') flavors = [o.mpi];
  else throw new MpiiError(`unknown MPI '${o.mpi}' for --mpi`, 'use --mpi openmpi, mpich, abi or all');
  if (flavors.length === 0) {
    throw new MpiiError('no MPI installation found', `install one: apt-get install -y ${FLAVORS.openmpi.packages} ${FLAVORS.mpich.packages}`);
  }
  // --tools: also that stack's specialised shim (made on its first run otherwise)
  let specialise: ToolManifest[] | undefined;
  if (o.tools !== undefined) {
    const stack = resolveStack({ tools: o.tools, env, cwd: process.cwd(), defaultsFile: DEFAULTS_FILE });
    const why = unspecialisable(stack.tools);
    if (why)
      throw new MpiiError(
        `the stack '${o.tools}' cannot be specialised: ${why}`,
        'it runs through the QMPI chain of the general shim, which `mpii build` without --tools makes',
      );
    specialise = stack.tools.map((t) => t.manifest!);
  }
  const built = [];
  for (const f of flavors) {
    const shim = await buildWithSpinner(f, !!o.quiet, env, !!o.force, specialise, undefined, !!o.system);
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
    console.log(
      `  ${s.name.padEnd(14)} [${s.entries.join(', ')}]${s.isDefault ? ' (default)' : ''}  ${chalk.dim(s.definedIn)}${s.problem ? `\n    ${chalk.red(s.problem)}` : ''}`,
    );
  }
  return 0;
}

/** One line of `mpii doctor`: ok, a problem with its fix, or information (`--`). */
interface Check {
  status: 'ok' | 'fail' | 'info';
  message: string;
  fix?: string;
}

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
  show(nodeCheck());
  const cache = cacheRoot(env);
  try {
    makeDirs(cache);
    ok(`shim cache ${cache} is writable: the shims and mpii's other caches are built there (nothing is written in ${ROOT})`);
  } catch {
    bad(`shim cache ${cache} is not writable`, 'set XDG_CACHE_HOME to a writable directory');
  }
  const system = systemCacheRoot(env);
  const prebuilt = existsSync(system) ? readdirSync(system).filter((d) => existsSync(join(system, d, 'shim.json'))) : [];
  ok(
    prebuilt.length
      ? `system shim cache ${system}: ${prebuilt.join(', ')} prebuilt, read before ${cache}`
      : `system shim cache ${system}: nothing prebuilt (\`mpii build --system\` as root fills it)`,
  );
  try {
    await loadKoffi();
    ok('koffi loads (mpii pvars, cvars and --pvar)');
  } catch (e) {
    bad((e as MpiiError).message, (e as MpiiError).fix ?? '');
  }
  if (env.LD_PRELOAD) {
    const missing = env.LD_PRELOAD.split(/[:\s]+/).filter((p) => p && !existsSync(p));
    if (missing.length) bad(`LD_PRELOAD names missing libraries: ${missing.join(' ')}`, 'fix or unset LD_PRELOAD');
    else ok(`LD_PRELOAD=${env.LD_PRELOAD} is kept for the ranks, after the mpii shim`);
    if (/libmpii/.test(env.LD_PRELOAD)) bad('LD_PRELOAD already holds an mpii shim: the ranks would load it twice', 'unset LD_PRELOAD before mpii run');
  }
  for (const k of [...ENV_PASSED_ON, ENV.TOOLS]) if (env[k] !== undefined) ok(`${k}=${env[k]} is set and will be used`);
  const problems = checks.filter((c) => c.status === 'fail').length;
  if (o.json) console.log(jsonText({ problems, checks }));
  else console.log(problems ? chalk.red(`${problems} problem(s)`) : chalk.green('all good'));
  return problems ? 1 : 0;
}

/** Where this mpii is, and whether the Node running it is one package.json's `engines` names
 * (the lines CI tests: docs/package.md). */
function nodeCheck(): Check {
  let majors: string[] = [];
  try {
    const engines = (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { engines?: { node?: string } }).engines?.node ?? '';
    majors = engines
      .split('||')
      .map((r) => r.trim().match(/^\^?(\d+)/)?.[1] ?? '')
      .filter(Boolean);
  } catch {
    /* no package.json: said below as an unsupported Node */
  }
  const where = `mpii in ${ROOT}, Node ${process.version}`;
  const major = process.versions.node.split('.')[0];
  return majors.includes(major)
    ? { status: 'ok', message: where }
    : { status: 'info', message: `${where}: not a Node line mpii is tested on (${majors.join(', ') || '?'})` };
}

/** Information only: mpirun works without Slurm, and inside an allocation it uses it by itself. */
function slurmCheck(env: NodeJS.ProcessEnv): Check {
  const srun = which('srun', env);
  if (!srun) return { status: 'info', message: 'Slurm: no srun on PATH (only needed for --launcher srun)' };
  try {
    const plugins = srunPlugins(srun, env);
    const usable = (Object.keys(SRUN_PLUGIN) as FlavorName[]).map(
      (f) => `${FLAVORS[f].label} ${plugins.includes(SRUN_PLUGIN[f]) ? 'via' : 'needs'} --mpi=${SRUN_PLUGIN[f]}`,
    );
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

/** The MPI `mpii pvars/cvars` ask: --mpi (an MPI, or an implementation of the standard ABI),
 *  else the mpirun on PATH, else the one installed. */
async function listedInstall(mpi: string | undefined, env: NodeJS.ProcessEnv): Promise<MpiInstall> {
  if (mpi !== undefined) {
    if (mpi === 'openmpi' || mpi === 'mpich') return findInstall(mpi, env);
    if (ABI_CHOICES.includes(mpi)) return findAbiInstall(abiImplementationAsked(mpi), env);
    throw new MpiiError(`unknown MPI '${mpi}' for --mpi`, `use --mpi openmpi, mpich, ${ABI_CHOICES.slice(0, -1).join(', ')} or ${ABI_CHOICES.at(-1)}`);
  }
  const f = launcherFlavor(env) ?? installedFlavors(env)[0];
  if (!f) throw new MpiiError('no MPI installation found', `install one: apt-get install -y ${FLAVORS.openmpi.packages}`);
  return findInstall(f, env);
}

export interface VarsFlags {
  mpi?: string;
  json?: boolean;
}

/** `mpii pvars [names…]` and `mpii cvars [names…]`: the MPI library's own MPI_T variables. */
export async function varsCommand(kind: 'pvars' | 'cvars', patterns: string[], o: VarsFlags): Promise<number> {
  const env = process.env;
  const inst = await listedInstall(o.mpi, env);
  const l = await askMpit(inst, { pvars: kind === 'pvars', cvars: kind === 'cvars' });
  const keep = nameFilter(patterns);
  const all: { name: string }[] = kind === 'pvars' ? l.pvars : l.cvars;
  const shown = all.filter((v) => keep(v.name));
  if (patterns.length && shown.length === 0) {
    const what = kind === 'pvars' ? 'performance' : 'control';
    throw new MpiiError(
      `no ${what} variable of ${l.version} matches ${patterns.map((p) => `'${p}'`).join(' or ')}`,
      `mpii ${kind} without a filter lists all ${all.length}`,
      1,
    );
  }
  if (o.json) {
    console.log(JSON.stringify({ mpi: l.version, flavor: l.flavor, library: l.library, [kind]: shown }, null, 2));
  } else {
    const lines =
      kind === 'pvars' ? formatPvars(l, shown as typeof l.pvars, patterns.length > 0) : formatCvars(l, shown as typeof l.cvars, patterns.length > 0);
    console.log(lines.join('\n'));
  }
  return 0;
}

// `mpii run`'s plan: from what was found out about the run (the facts: the stack, the MPI, the
// launcher, the shim, the output directory, a Python program's helper), everything the run will
// do, as data: the ranks' environment, the launcher's command line, the files and links to make,
// the libraries to copy to the nodes, the compiled-in shim to build in the background, the lines
// to print. planRun is pure (no file, process or clock), so a plan is tested without MPI;
// --dry-run prints it (describePlan) and the executor (execute.ts) carries it out.
import { basename } from 'node:path';
import type { ToolInstance } from '../config/resolve.js';
import { ENV } from '../environment.gen.js';
import type { Launcher, LaunchPlan } from '../launch/adapters.js';
import type { RunArgs } from '../launch/args.js';
import { planCopies, type NodeCopies, type SlurmJob } from '../launch/sbcast.js';
import type { Detected } from '../mpi/detect.js';
import { FLAVORS } from '../mpi/flavors.js';
import { reportOptionsVariable } from '../profile-file/report-options.js';
import type { ReportOptions } from '../report/summary.js';
import type { RunInfo } from '../report/run-info.js';
import { stackName } from '../gen/specialised-c.js';
import type { ToolManifest } from '../tools/manifest.js';
import type { Shim } from '../shim/shim.js';
import { abiPlan } from './abi.js';
import { rankEnvironment } from './environment.js';
import { listedTools, listNameNote } from './library-tools.js';
import { pythonPlan, type AbiLink, type SitesFact } from './python.js';
import type { ShimChoice } from './shim-choice.js';

/** What planRun needs, found out beforehand (probe.ts): tests make these up. */
export interface RunFacts {
  args: RunArgs;
  env: NodeJS.ProcessEnv;
  cwd: string;
  host: string;
  pid: number;
  /** mpii's cache (the Python ABI links go there) */
  cacheDir: string;
  stack: { tools: ToolInstance[]; source: string };
  mpi: Detected;
  /** the launcher, checked: the command line once the ranks' variables are known */
  launcher: Launcher;
  /** --copy-shim: the Slurm allocation to copy into */
  job?: SlurmJob;
  /** the output directory, checked and absolute */
  outDir: string;
  shim: ShimChoice;
  /** a Python program: its call-site helper */
  pythonSites?: SitesFact;
}

export interface RunPlan {
  outDir: string;
  /** the ranks' variables, in the order the launcher gets them */
  vars: Record<string, string>;
  /** the launcher's command, arguments and environment */
  launch: LaunchPlan;
  /** created before the launch, removed after it: the rank that writes the profile sees it */
  runMark: string;
  /** the run's description written into the output directory (the executor adds the program's
   *  identity, mpii's version and the start time) */
  runInfo: Omit<RunInfo, 'mpii' | 'program' | 'started'>;
  /** the program and its arguments */
  command: string[];
  /** links to make before the launch (a Python extension's MPI soname) */
  links: AbiLink[];
  /** --copy-shim: the libraries to copy to every node first, and remove after */
  copies?: NodeCopies;
  /** what to start building in the background: a stack's compiled-in shim, or on the first run
   *  on an MPI the general shim of cache key `general` (then the stack's, if `tools`) */
  background?: { shim: Shim; stack: string; tools: ToolManifest[]; general?: string };
  /** --dry-run's header lines */
  describe: string[];
  /** the banner on stderr (unless --quiet): notes first, then the line */
  notes: string[];
  banner: string;
  /** no banner, no report */
  quiet: boolean;
  /** --timeout SECONDS */
  timeout?: number;
  /** the stack (the report after the job reads their options) */
  tools: ToolInstance[];
}

/** The options the tools were run with, for their part of the report (their `top`, a `matrix`):
 * by tool name, the first instance's. */
export function toolReportOptions(tools: ToolInstance[]): ReportOptions {
  const toolOptions: NonNullable<ReportOptions['toolOptions']> = {};
  for (const t of tools) toolOptions[t.name] ??= t.options;
  return { toolOptions };
}

/** The libraries every rank loads from mpii's cache or the configuration: what --copy-shim copies. */
const rankLibraries = (library: string, tools: ToolInstance[]) => [library, ...tools.filter((t) => t.kind === 'external').map((t) => t.path!)];

export function planRun(f: RunFacts): RunPlan {
  const { args, env, mpi, shim: choice, outDir } = f;
  const { shim } = choice;
  const tools = f.stack.tools;
  const copies = f.job && planCopies(rankLibraries(shim.library, tools), f.job);
  const placed = new Map(copies?.files);
  const vars = rankEnvironment(shim, tools, outDir, env, (l) => placed.get(l) ?? l, { host: f.host, pid: f.pid });
  if (args.pvars.length) vars[ENV.MPII_PVARS] = [...new Set(args.pvars)].join(',');
  // the report options go into the profile: a later `mpii report` shows what this run shows
  const recorded = reportOptionsVariable(toolReportOptions(tools).toolOptions ?? {});
  if (recorded !== '{}') vars[ENV.MPII_REPORT_OPTIONS] = recorded;
  const python = mpi.python ? pythonPlan(mpi.python, f.pythonSites ?? { problem: 'not built' }, env, f.cacheDir) : undefined;
  Object.assign(vars, python?.vars);
  const abi = mpi.abi && abiPlan(mpi.abi, vars, env, f.cacheDir);
  Object.assign(vars, abi?.vars);
  const command = [args.program!, ...args.programArgs];
  const launch = f.launcher(vars, command);
  const label = mpi.abi ? `MPI standard ABI on ${FLAVORS[mpi.flavor].label}` : FLAVORS[mpi.flavor].label;
  // the library's own tool list: the shim runs it first, as tools 1 to N (library_tools.c)
  const listed = listedTools(env);
  const names = [...(listed?.names.map((n) => `${n} (${listed.variable})`) ?? []), ...tools.map((t) => t.name)];
  const form = choice.specialise && !choice.chained ? 'specialised: compiled into one wrapper per function' : `chained (${choice.chained})`;
  return {
    outDir,
    vars,
    launch,
    runMark: vars[ENV.MPII_RUN_MARK],
    runInfo: {
      command,
      launcher: basename(launch.command),
      launcherArgs: args.launcherArgs,
      cwd: f.cwd,
      // a standard-ABI shim serves every implementation: the run names the one it ran on
      mpi: mpi.abi ? `${shim.mpiVersion} on ${mpi.abi.version ?? FLAVORS[mpi.flavor].label}` : shim.mpiVersion,
      flavor: mpi.abi ? `abi:${mpi.flavor}` : mpi.flavor,
      tools: tools.map((t) => ({ name: t.name, options: t.options })),
    },
    command,
    links: [...(python?.links ?? []), ...(abi ? [abi.link] : [])],
    copies,
    background: choice.background && { shim, stack: stackName(choice.background), tools: choice.background, general: choice.general },
    describe: [
      `# MPI: ${label} (${mpi.how}); shim ${shim.library}${shim.fromCache ? ' (cached)' : ''}`,
      `# tools: ${names.join(' ') || '(none)'} (from ${f.stack.source}); ${form}`,
      ...(copies?.files ?? []).map(([from, to]) => `# --copy-shim: sbcast ${from} ${to}`),
    ],
    notes: [mpi.note, ...(python?.notes ?? []), listNameNote(env)].filter((n): n is string => !!n),
    banner:
      `mpii: ${label}${mpi.extension ? ` through ${mpi.extension}` : ''}, launcher: ${basename(launch.command)}, ` +
      `tools: ${names.join(' → ') || '(none)'}, out: ${outDir}`,
    quiet: args.quiet,
    timeout: args.timeout,
    tools,
  };
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** What `mpii run --dry-run` prints: the MPI and the shim, the stack and its form, the copies,
 * then the ranks' variables and the launcher's command line, as a shell would take them. */
export function describePlan(plan: RunPlan): string[] {
  return [
    ...plan.describe,
    ...Object.entries(plan.vars).map(([k, v]) => `${k}=${shellQuote(v)}`),
    [plan.launch.command, ...plan.launch.args].map(shellQuote).join(' '),
  ];
}

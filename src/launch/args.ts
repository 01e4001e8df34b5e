// Splits `mpii run` arguments into mpii's own options, the launcher's options, and the program.
import { MpiiError } from '../errors.js';
import { builtinManifests } from '../tools/manifest.js';
import { OWN_RUN_OPTIONS } from './run-options.js';
import { ENV } from '../environment.gen.js';

export type LauncherKind = 'mpirun' | 'srun';
export const LAUNCHERS: LauncherKind[] = ['mpirun', 'srun'];

export interface RunArgs {
  /** who starts the ranks: the MPI's own mpirun/mpiexec, or Slurm's srun */
  launcher: LauncherKind;
  /** srun: copy the shim and the tools' libraries to node-local /tmp with sbcast first */
  copyShim: boolean;
  tools?: string;
  stack?: string;
  config?: string;
  mpi?: string;
  out?: string;
  /** --pvar: MPI library performance variables to sample at MPI_Finalize (repeatable, a,b,c) */
  pvars: string[];
  dryRun: boolean;
  quiet: boolean;
  /** flags the tools' manifests add to `mpii run` (`run-flags`, e.g. --memcheck-fatal), as given */
  toolFlags: string[];
  /** replace the profile already in --out */
  force: boolean;
  /** --chained: the general shim's QMPI chain even for a stack that can be specialised */
  chained: boolean;
  /** --timeout SECONDS: stop the job after that long (exit 124) */
  timeout?: number;
  /** --version or -V before the program: print mpii's version, run nothing (after the program
   *  it is the program's) */
  version: boolean;
  /** everything mpii does not own, passed to the launcher untouched and in order */
  launcherArgs: string[];
  program?: string;
  programArgs: string[];
}

// which of mpii's options take a value: from their declaration (run-options.ts)
export const MPII_VALUED = new Set(OWN_RUN_OPTIONS.filter((o) => o.value).map((o) => o.flag));
export const MPII_FLAGS = new Set(OWN_RUN_OPTIONS.filter((o) => !o.value).map((o) => o.flag));

/** The flags the built-in tools add to `mpii run` (their manifests' `run-flags`). */
export function toolRunFlags(): Set<string> {
  return new Set(builtinManifests().flatMap((m) => m.runFlags.map((f) => f.flag)));
}
export const VERSION_FLAGS = new Set(['--version', '-V']);

// Launcher options that take values, so their values are not mistaken for the program; unknown
// options are assumed to be flags. Open MPI (mpirun: ORTE in 4.x, PRRTE in 5.x and 6.x, whose
// options are listed in its share/prte/help-prterun.txt) and MPICH (hydra) spellings:
const MPIRUN_ONE_VALUE = new Set([
  '-np',
  '-n',
  '-c',
  '--np',
  '-N',
  '--n',
  '-H',
  '--host',
  '-host',
  '--hostfile',
  '-hostfile',
  '--machinefile',
  '-machinefile',
  '--default-hostfile',
  '-x',
  '--map-by',
  '-map-by',
  '--bind-to',
  '-bind-to',
  '--rank-by',
  '--wdir',
  '-wdir',
  '--wd',
  '-wd',
  '--prefix',
  '--output-filename',
  '--npernode',
  '-npernode',
  '--npersocket',
  '--tune',
  '-am',
  '--app',
  '--path',
  '--preload-files',
  '--report-uri',
  '--personality',
  '--cpu-set',
  '--cpus-per-proc',
  '--cpus-per-rank',
  '--launch-agent',
  '--ompi-server',
  '--stdin',
  '--rankfile',
  '-rankfile',
  '-rf',
  '--slot-list',
  '--cpu-list',
  '-rank-by',
  '--max-vm-size',
  '-f',
  '-hosts',
  '-ppn',
  '-launcher',
  '-launcher-exec',
  '-genvlist',
  '-envlist',
  '-configfile',
  '-iface',
  '-errfile-pattern',
  '-outfile-pattern',
  '-rmk',
  '-demux',
  '-profile',
  '-bootstrap',
  '-bootstrap-exec',
  '-prepend-pattern',
  '-binding',
  '-topolib',
  '-ckpointlib',
  '-ckpoint-prefix',
  '-ckpoint-interval',
  // PRRTE's (Open MPI 5 and 6)
  '--add-host',
  '--add-hostfile',
  '--display',
  '--forward-signals',
  '--keepalive',
  '--output',
  '--ppr',
  '--pset',
  '--report-pid',
  '--runtime-options',
  '--singleton',
  '--spawn-timeout',
  '--tmpdir',
  '--xterm',
]);
const MPIRUN_TWO_VALUES = new Set(['--mca', '-mca', '--gmca', '-gmca', '-genv', '-env', '--prtemca', '--pmixmca', '--gpmixmca']);
// srun's (Slurm 22.05), whose short options differ: -q is a value there (--qos), a flag to mpirun.
// Its long options also take `--name=value`, which needs no entry. -np is mpirun's, translated.
const SRUN_ONE_VALUE = new Set([
  '-np',
  '--np',
  '-A',
  '--account',
  '-B',
  '--extra-node-info',
  '-c',
  '--cpus-per-task',
  '-C',
  '--constraint',
  '-d',
  '--dependency',
  '-D',
  '--chdir',
  '-e',
  '--error',
  '-G',
  '--gpus',
  '-i',
  '--input',
  '-J',
  '--job-name',
  '-L',
  '--licenses',
  '-m',
  '--distribution',
  '-n',
  '--ntasks',
  '-N',
  '--nodes',
  '-o',
  '--output',
  '-p',
  '--partition',
  '-q',
  '--qos',
  '-r',
  '--relative',
  '-S',
  '--core-spec',
  '-t',
  '--time',
  '-T',
  '--threads',
  '-w',
  '--nodelist',
  '-W',
  '--wait',
  '-x',
  '--exclude',
  '--export',
  '--jobid',
  '--mem',
  '--mem-per-cpu',
  '--gres',
  '--ntasks-per-node',
  '--cpu-bind',
  '--mem-bind',
  '--reservation',
  '--nodefile',
  '--time-min',
  '--begin',
  '--comment',
  '--cores-per-socket',
  '--sockets-per-node',
  '--threads-per-core',
  '--gpus-per-task',
  '--gpus-per-node',
  '--cpus-per-gpu',
  '--mem-per-gpu',
  '--ntasks-per-core',
  '--ntasks-per-socket',
  '--ntasks-per-gpu',
  '--signal',
  '--switches',
  '--tmp',
  '--uid',
  '--gid',
  '--cluster',
  '-M',
  '--clusters',
  '--open-mode',
  '--het-group',
  '--network',
  '--prolog',
  '--epilog',
  '--task-prolog',
  '--task-epilog',
  '--wckey',
  '--mail-type',
  '--mail-user',
  '--deadline',
  '--delay-boot',
  '--profile',
  '--power',
  '--priority',
  '--mincpus',
]); // (options whose value is optional, --nice[=n], -K/--kill-on-bad-exit[=n], -I[secs], take it only after `=`)
const VALUES: Record<LauncherKind, { one: Set<string>; two: Set<string> }> = {
  mpirun: { one: MPIRUN_ONE_VALUE, two: MPIRUN_TWO_VALUES },
  srun: { one: SRUN_ONE_VALUE, two: new Set() },
};

const MPI_NAMES = new Set(['openmpi', 'mpich', 'abi', 'abi:mpich', 'abi:openmpi']);

function isLauncher(v: string): v is LauncherKind {
  return (LAUNCHERS as string[]).includes(v);
}

/** The launcher when `--launcher` is not given: MPII_LAUNCHER (a site or a module file may set
 * srun), else the MPI's own mpirun, which inside a Slurm allocation starts the ranks through
 * Slurm by itself. */
export function defaultLauncher(env: NodeJS.ProcessEnv): LauncherKind {
  const v = env[ENV.MPII_LAUNCHER];
  if (v === undefined || v === '') return 'mpirun';
  if (!isLauncher(v)) throw new MpiiError(`unknown launcher '${v}' in MPII_LAUNCHER`, `set it to ${LAUNCHERS.join(' or ')}`);
  return v;
}

/** Which launcher's options these are decides which of them take values, so the arguments are
 * split with the default launcher's table first, then again if `--launcher` names another
 * (`--launcher` must come before the launcher's options, as mpii's options do). */
export function parseRunArgs(argv: string[], env: NodeJS.ProcessEnv = {}): RunArgs {
  const base = defaultLauncher(env);
  const first = split(argv, base);
  return first.launcher === base ? first : split(argv, first.launcher);
}

function split(argv: string[], launcher: LauncherKind): RunArgs {
  const r: RunArgs = {
    launcher,
    copyShim: false,
    pvars: [],
    dryRun: false,
    quiet: false,
    toolFlags: [],
    force: false,
    chained: false,
    version: false,
    launcherArgs: [],
    programArgs: [],
  };
  const { one, two } = VALUES[launcher];
  const toolFlags = toolRunFlags();
  let i = 0;
  const value = (opt: string): string => {
    if (i + 1 >= argv.length) throw new MpiiError(`${opt} needs a value`, `write ${opt} <value> before the program`);
    return argv[++i];
  };
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      i++;
      break;
    }
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    if (MPII_VALUED.has(name)) {
      const v = name === a ? value(a) : a.slice(eq + 1);
      if (name === '--pvar') {
        const names = v
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean);
        if (names.length === 0) throw new MpiiError('--pvar needs a variable name', 'e.g. --pvar pml_ob1_unexpected_msgq_length (mpii pvars lists them)');
        r.pvars.push(...names);
        continue;
      }
      if (name === '--mpi' && launcher === 'srun' && !MPI_NAMES.has(v)) {
        r.launcherArgs.push(`--mpi=${v}`); // srun's own --mpi=pmix: MPI names and plugin names never overlap
        continue;
      }
      if (name === '--timeout') {
        const t = /^\d+(\.\d+)?$/.test(v) ? Number(v) : Number.NaN;
        if (!(t > 0)) throw new MpiiError(`--timeout needs a number of seconds greater than 0, not '${v}'`, 'e.g. --timeout 600');
        r.timeout = t;
        continue;
      }
      if (name === '--launcher') {
        if (!isLauncher(v)) throw new MpiiError(`unknown launcher '${v}'`, `use --launcher ${LAUNCHERS.join(' or --launcher ')}`);
        r.launcher = v;
        continue;
      }
      const key = name.slice(2) as 'tools' | 'stack' | 'config' | 'mpi' | 'out';
      r[key] = v;
    } else if (MPII_FLAGS.has(a)) {
      if (a === '--dry-run') r.dryRun = true;
      else if (a === '--copy-shim') r.copyShim = true;
      else if (a === '--force') r.force = true;
      else if (a === '--chained') r.chained = true;
      else r.quiet = true;
    } else if (toolFlags.has(a)) {
      if (!r.toolFlags.includes(a)) r.toolFlags.push(a);
    } else if (VERSION_FLAGS.has(a)) {
      r.version = true; // mpii's, wherever it is among the options (the launchers' own is theirs to print)
    } else if (a.startsWith('-')) {
      r.launcherArgs.push(a);
      const n = two.has(a) ? 2 : one.has(a) ? 1 : 0;
      for (let k = 0; k < n; k++) r.launcherArgs.push(value(a));
    } else {
      break;
    }
  }
  if (i < argv.length) {
    r.program = argv[i];
    r.programArgs = argv.slice(i + 1);
  }
  return r;
}

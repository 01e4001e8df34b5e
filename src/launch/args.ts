// Splits `mpii run` arguments into mpii's own options, the launcher's options, and the program.
import { MpiiError } from '../errors.js';

export interface RunArgs {
  tools?: string;
  stack?: string;
  config?: string;
  mpi?: string;
  out?: string;
  /** --pvar: MPI library performance variables to sample at MPI_Finalize (repeatable, a,b,c) */
  pvars: string[];
  dryRun: boolean;
  quiet: boolean;
  /** stop the job at memcheck's first finding */
  memcheckFatal: boolean;
  /** everything mpii does not own, passed to the launcher untouched and in order */
  launcherArgs: string[];
  program?: string;
  programArgs: string[];
}

const MPII_VALUED = new Set(['--tools', '--stack', '--config', '--mpi', '--out', '--pvar']);
const MPII_FLAGS = new Set(['--dry-run', '--quiet', '--memcheck-fatal']);

// Launcher options that take values, so their values are not mistaken for the program.
// Open MPI (mpirun) and MPICH (hydra) spellings; unknown options are assumed to be flags.
const ONE_VALUE = new Set([
  '-np', '-n', '-c', '--np', '-N', '--n', '-H', '--host', '-host', '--hostfile', '-hostfile', '--machinefile',
  '-machinefile', '--default-hostfile', '-x', '--map-by', '-map-by', '--bind-to', '-bind-to', '--rank-by',
  '--wdir', '-wdir', '--wd', '-wd', '--prefix', '--output-filename', '--npernode', '-npernode', '--npersocket',
  '--timeout', '--tune', '-am', '--app', '--path', '--preload-files', '--report-uri', '--personality',
  '--cpu-set', '--cpus-per-proc', '--cpus-per-rank', '--launch-agent', '--ompi-server', '--stdin',
  '-f', '-hosts', '-ppn', '-launcher', '-launcher-exec', '-genvlist', '-envlist', '-configfile', '-iface',
  '-errfile-pattern', '-outfile-pattern', '-rmk', '-demux', '-profile', '-bootstrap', '-bootstrap-exec',
  '-prepend-pattern', '-binding', '-topolib', '-ckpointlib', '-ckpoint-prefix', '-ckpoint-interval',
]);
const TWO_VALUES = new Set(['--mca', '-mca', '--gmca', '-gmca', '-genv', '-env']);

export function parseRunArgs(argv: string[]): RunArgs {
  const r: RunArgs = { pvars: [], dryRun: false, quiet: false, memcheckFatal: false, launcherArgs: [], programArgs: [] };
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
        const names = v.split(',').map((x) => x.trim()).filter(Boolean);
        if (names.length === 0) throw new MpiiError('--pvar needs a variable name', 'e.g. --pvar pml_ob1_unexpected_msgq_length (mpii pvars lists them)');
        r.pvars.push(...names);
        continue;
      }
      const key = name.slice(2) as 'tools' | 'stack' | 'config' | 'mpi' | 'out';
      r[key] = v;
    } else if (MPII_FLAGS.has(a)) {
      if (a === '--dry-run') r.dryRun = true;
      else if (a === '--memcheck-fatal') r.memcheckFatal = true;
      else r.quiet = true;
    } else if (a.startsWith('-')) {
      r.launcherArgs.push(a);
      const n = TWO_VALUES.has(a) ? 2 : ONE_VALUE.has(a) ? 1 : 0;
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

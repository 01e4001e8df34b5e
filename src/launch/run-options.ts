// `mpii run`'s own options, declared once: the parser (args.ts) knows from here which take a
// value, `mpii run --help` prints their `help`, and the commander tree (src/cli/main.ts) declares
// them with their `summary`, from which the manual page (src/cli/man.ts) and the completion
// scripts (src/cli/completion.ts) are made. The tools' manifests add their `run-flags`
// (--memcheck-fatal) between the options and the last two. test/run-options.unit.test.ts checks
// that every option is in each of those.
import { builtinManifests } from '../tools/manifest.js';

export interface RunOption {
  flag: string;
  /** the value it takes, as commander names it (`--tools <tools>`); none for a flag */
  value?: string;
  /** the left column of `mpii run --help` (default: the flag) */
  usage?: string;
  /** one line for the commander tree: the man page, zsh's completion, `mpii --help` */
  summary: string;
  /** `mpii run --help`'s text: the first line, then the lines under it */
  help: string[];
}

const OWN: RunOption[] = [
  {
    flag: '--tools',
    value: 'tools',
    usage: '--tools a,b',
    summary: 'tool stack, outermost first (names or .so paths; options as name[key=val;key=val])',
    help: ['tool stack, outermost first (names or .so paths; options as name[key=val;key=val])'],
  },
  { flag: '--stack', value: 'name', usage: '--stack NAME', summary: 'a named stack from the configuration', help: ['a named stack from the configuration'] },
  { flag: '--config', value: 'file', usage: '--config FILE', summary: 'an extra YAML configuration file', help: ['an extra YAML configuration file'] },
  {
    flag: '--mpi',
    value: 'flavor',
    usage: '--mpi openmpi|mpich|abi[:mpich|:openmpi]',
    summary: 'override the MPI detected from the program',
    help: [
      'override the MPI detected from the program; abi:mpich, abi:openmpi: run a program',
      'of the MPI standard ABI on that implementation (default: the one libmpi_abi.so.1 is)',
    ],
  },
  {
    flag: '--out',
    value: 'dir',
    usage: '--out DIR',
    summary: 'where the profile goes',
    help: ['where the profile goes (default mpii-out/<app>-<time>-<pid>)'],
  },
  {
    flag: '--pvar',
    value: 'names',
    usage: '--pvar NAME[,NAME]',
    summary: 'MPI library performance variables to sample at MPI_Finalize',
    help: [
      'sample these MPI library performance variables on every rank at MPI_Finalize',
      '(and at each monitor flush) into the profile (mpii pvars lists them)',
    ],
  },
  {
    flag: '--launcher',
    value: 'launcher',
    usage: '--launcher mpirun|srun',
    summary: 'who starts the ranks: mpirun or srun',
    help: ["who starts the ranks (default: MPII_LAUNCHER, else the MPI's mpirun);", 'srun gets -np N as -n N and the --mpi= plugin the MPI needs'],
  },
  {
    flag: '--copy-shim',
    summary: 'srun: copy the shim to the nodes with sbcast first',
    help: [
      "srun, inside an allocation: copy the shim and tool libraries to each node's",
      '/tmp with sbcast first (no filesystem shared with the nodes), removed after',
    ],
  },
  {
    flag: '--timeout',
    value: 'seconds',
    usage: '--timeout SECONDS',
    summary: 'stop the job after that long (exit 124)',
    help: ['stop the job after that long: partial profile marked INCOMPLETE, exit 124'],
  },
  { flag: '--force', summary: 'replace the profile already in --out DIR', help: ['replace the profile already in --out DIR'] },
  {
    flag: '--chained',
    summary: 'run built-in tools through the QMPI chain, not compiled into one specialised wrapper',
    help: ['run built-in tools through the QMPI chain, not compiled into one wrapper'],
  },
];

// after the tools' flags
const LAST: RunOption[] = [
  { flag: '--dry-run', summary: 'print the launcher command and environment, run nothing', help: ['print the launcher command and environment, run nothing'] },
  { flag: '--quiet', summary: 'no progress, no report', help: ['no progress, no report'] },
];

/** mpii's own options of `mpii run` (the tools' flags apart). */
export const OWN_RUN_OPTIONS: readonly RunOption[] = [...OWN, ...LAST];

/** Every option of `mpii run` in the order --help shows them: mpii's, with the built-in tools'
 * `run-flags` before the last two. */
export function runOptions(): RunOption[] {
  const tools = builtinManifests()
    .flatMap((m) => m.runFlags)
    .map((f): RunOption => ({ flag: f.flag, summary: f.help, help: [f.help] }));
  return [...OWN, ...tools, ...LAST];
}

/** The options' lines of `mpii run --help`: the left column 19 wide, the text's further lines
 * under its first. */
export function runOptionsHelp(): string {
  return runOptions()
    .map((o) => {
      const left = o.usage ?? o.flag;
      const first = `  ${left.length < 18 ? `${left.padEnd(18)} ` : `${left}  `}${o.help[0]}`;
      return [first, ...o.help.slice(1).map((l) => `${' '.repeat(21)}${l}`)].join('\n');
    })
    .join('\n');
}

// mpii's command line. `run` parses its own arguments (everything it does not own goes to the
// launcher untouched); the other commands use commander.
// Only what `mpii run` needs is imported up front: every module costs launch time.
import { MpiiError, formatError } from '../errors.js';
import { runCommand } from './run.js';

const RUN_HELP = `Usage: mpii run [mpii options] [launcher options] [-np N] ./app [args]

mpii options (before the program):
  --tools a,b        tool stack, outermost first (names or .so paths; options as name[key=val;key=val])
  --stack NAME       a named stack from the configuration
  --config FILE      an extra YAML configuration file
  --mpi openmpi|mpich  override the MPI detected from the program
  --out DIR          where the profile goes (default mpii-out/<app>-<time>-<pid>)
  --pvar NAME[,NAME]  sample these MPI library performance variables on every rank at MPI_Finalize
                     (and at each monitor flush) into the profile (mpii pvars lists them)
  --launcher mpirun|srun  who starts the ranks (default: MPII_LAUNCHER, else the MPI's mpirun);
                     srun gets -np N as -n N and the --mpi= plugin the MPI needs
  --copy-shim        srun, inside an allocation: copy the shim and tool libraries to each node's
                     /tmp with sbcast first (no filesystem shared with the nodes), removed after
  --dry-run          print the launcher command and environment, run nothing
  --quiet            no progress, no report
Everything else is passed to the launcher unchanged (write --launcher before it). The exit code
is the job's.`;

export async function main(argv: string[]): Promise<number> {
  try {
    if (argv[0] === 'run') {
      if (argv[1] === '--help' || argv[1] === '-h') {
        console.log(RUN_HELP);
        return 0;
      }
      return await runCommand(argv.slice(1));
    }
    const { Command } = await import('commander');
    const { buildCommand, doctorCommand, reportCommand, toolsCommand, varsCommand } = await import('./commands.js');
    let code = 0;
    const program = new Command('mpii')
      .description('Run unmodified MPI programs through a stack of QMPI tools on Open MPI and MPICH')
      .exitOverride()
      .configureOutput({ writeErr: (s) => process.stderr.write(s) });
    program.command('run').description('launch an MPI program through the tool stack (mpii run --help)');
    program.command('build').description('generate and compile the shim (cached)')
      .option('--mpi <flavor>', 'openmpi, mpich or all (default: every MPI installed)')
      .option('--force', 'rebuild even when cached')
      .option('--quiet', 'no progress output')
      .action(async (o) => { code = await buildCommand(o); });
    program.command('tools').description('list the built-in tools and the resolved stacks')
      .option('--config <file>', 'an extra YAML configuration file')
      .action(async (o) => { code = await toolsCommand(o); });
    program.command('doctor').description('check MPIs, compilers, cache and LD_PRELOAD')
      .action(async () => { code = await doctorCommand(); });
    program.command('report').description('print the report of a finished (or crashed) run; with two runs, what changed from the first to the second')
      .argument('<dir>', 'the --out directory of the run')
      .argument('[dir2]', 'a second run of the same program: report what changed from <dir> to it')
      .option('--json', 'machine-readable output')
      .option('--top <n>', 'rows per table', (v) => Number.parseInt(v, 10))
      .option('--ranks [list]', 'profile: each call site per rank (mpiP\'s Callsite Time statistics), of these ranks (0,2-5; all without a list)')
      .option('--sites <list>', 'profile: only these call sites (numbers as printed, MPI functions, file:line)')
      .option('--no-matrix', 'do not draw the monitor communication matrix')
      .option('--csv <dir>', 'write the monitor count and byte matrices per class as CSV files into <dir>')
      .option('--prof <prefix>', "write the monitor data as Open MPI .prof files: <prefix>.<rank>.prof")
      .option('--html <file>', 'write every tool\'s results as one self-contained HTML page')
      .action(async (dir, dir2, o) => { code = await reportCommand(dir, o, dir2); });
    program.command('install').description('install the shim for every user: a library the MPI compiler wrappers link (sysadmin)')
      .option('--prefix <dir>', 'where the library, headers and defaults go (default /usr/local)')
      .option('--mpi <flavor>', 'openmpi, mpich or all (default: every MPI installed)')
      .option('--default-stack <name>', 'the stack programs built with the wrappers run (default: the configured default-stack)')
      .option('--config <file>', 'an extra YAML configuration file to find the stack in')
      .option('--wrappers <mode>', 'system: change the MPI\'s own wrapper files (backed up); separate: <wrapper>-mpii.<mpi> scripts under the prefix', 'system')
      .option('--make-default', 'MPICH: /etc/profile.d/mpii.sh makes -profile=mpii the default')
      .option('--out-base <dir>', 'where linked programs put their profiles (default ./mpii-out)')
      .option('--dry-run', 'show the diff of every file that would change, change nothing')
      .action(async (o) => {
        const { installCommand } = await import('./install.js');
        code = await installCommand(o);
      });
    program.command('uninstall').description('undo `mpii install`: restore every MPI file it changed, remove what it added')
      .option('--prefix <dir>', 'the prefix given to mpii install (default /usr/local)')
      .option('--dry-run', 'show the diff of every file that would change, change nothing')
      .option('--force', 'restore the backups even over files changed since the install')
      .action(async (o) => {
        const { uninstallCommand } = await import('./install.js');
        code = await uninstallCommand(o);
      });
    for (const kind of ['pvars', 'cvars'] as const) {
      program.command(kind)
        .description(`list the MPI library's MPI_T ${kind === 'pvars' ? 'performance' : 'control'} variables (asked through MPI_T, no MPI_Init)`)
        .argument('[names...]', 'only names containing one of these (or matching a glob with * and ?)')
        .option('--mpi <flavor>', 'openmpi or mpich (default: the mpirun on PATH)')
        .option('--json', 'machine-readable output')
        .action(async (names: string[], o) => { code = await varsCommand(kind, names, o); });
    }
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof MpiiError) {
      process.stderr.write(`${formatError(e)}\n`);
      return e.exitCode;
    }
    const ce = e as { code?: string; exitCode?: number };
    if (typeof ce.code === 'string' && ce.code.startsWith('commander.')) return ce.exitCode ?? 2;
    throw e;
  }
}

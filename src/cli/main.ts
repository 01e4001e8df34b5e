// mpii's command line. `run` parses its own arguments (everything it does not own goes to the
// launcher untouched); the other commands use commander. The commander tree also describes
// `run`'s options, for `mpii completion` and `mpii --help`.
// Every command imports what it needs when it runs (`mpii run` its launcher, `mpii report` the
// report's code, the others commands.ts): every module costs start-up time.
import { readFileSync } from 'node:fs';
import { PACKAGE_JSON } from '../paths.js';
import type { Command as CommandType } from 'commander';
import { MpiiError, formatError } from '../errors.js';
import { parseRunArgs, VERSION_FLAGS } from '../launch/args.js';
import { builtinManifests, type RunFlag } from '../tools/manifest.js';
import { runOptions, runOptionsHelp } from '../launch/run-options.js';
import type { OptionValue } from '../config/options.js';
import { EXAMPLES } from './examples.js';

/** mpii's version, from its package.json. */
export function version(): string {
  try {
    return (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

const examples = (of: keyof typeof EXAMPLES) =>
  EXAMPLES[of].list.map(([c, what]) => `  ${c}${' '.repeat(Math.max(3, EXAMPLES[of].width - c.length))}${what}`).join('\n');

export const runHelp = () => `Usage: mpii run [mpii options] [launcher options] [-np N] ./app [args]

mpii options (before the program):
${runOptionsHelp()}
  -V, --version      print mpii's version (anywhere before the program; after it, the program's)
Everything else is passed to the launcher unchanged (write --launcher before it). The exit code
is the job's (128+signal when mpii is sent one: Ctrl-C 130, SIGTERM 143); 2 for a usage or
input error, 124 when --timeout stopped the job.

Examples:
${examples('run')}`;

/** The command tree; `setCode` receives each action's exit code. */
export async function buildProgram(setCode: (c: number) => void, shownCommand: () => string): Promise<CommandType> {
  const { Argument, Command } = await import('commander');
  const commands = () => import('./commands.js');
  const program = new Command('mpii')
    .description('Run unmodified MPI programs through a stack of QMPI tools on Open MPI and MPICH')
    .version(version(), '-V, --version', "print mpii's version")
    .exitOverride()
    .configureOutput({
      writeErr: (s) => process.stderr.write(s),
      // commander's usage errors as mpii's: one line, what is wrong — what to do
      outputError: (s, write) => write(`${commanderLine(s, shownCommand())}\n`),
    })
    .addHelpText('after', `\nExamples:\n${examples('mpii')}`);
  const run = program
    .command('run')
    .description('launch an MPI program through the tool stack (mpii run --help)')
    .usage('[mpii options] [launcher options] [-np N] ./app [args]');
  // run parses its own arguments (src/launch/args.ts); its options are declared here for --help,
  // the man page and completion, from the same declaration (src/launch/run-options.ts)
  for (const o of runOptions()) run.option(o.value ? `${o.flag} <${o.value}>` : o.flag, o.summary);
  program
    .command('build')
    .description('generate and compile the shim (cached)')
    .option('--mpi <flavor>', 'openmpi, mpich or all (default: every MPI installed)')
    .option('--force', 'rebuild even when cached')
    .option('--tools <tools>', 'also the specialised shim of this stack of built-in tools (else made on its first run)')
    .option('--system', "into the system-wide cache every user's run reads first (MPII_SYSTEM_CACHE, default /var/cache/mpii)")
    .option('--quiet', 'no progress output')
    .option('--json', "machine-readable output: each MPI's shim (flavor, MPI version, library, cached)")
    .action(async (o) => {
      setCode(await (await commands()).buildCommand(o));
    });
  program
    .command('tools')
    .description('list the built-in tools and the resolved stacks')
    .option('--config <file>', 'an extra YAML configuration file')
    .option('--json', 'machine-readable output: the tools with their options, the stacks')
    .action(async (o) => {
      setCode(await (await commands()).toolsCommand(o));
    });
  program
    .command('doctor')
    .description('check MPIs, compilers, cache and LD_PRELOAD')
    .option('--json', 'machine-readable output: every check with its status and fix')
    .action(async (o) => {
      setCode(await (await commands()).doctorCommand(o));
    });
  const reportFlags = builtinManifests().flatMap((m) => (m.report?.flags ?? []).map((f) => ({ tool: m.name, ...f })));
  const report = program
    .command('report')
    .description('print the report of a finished (or crashed) run; with two runs, what changed from the first to the second')
    .argument('<dir>', 'the --out directory of the run (or its profile.mpii)')
    .argument('[dir2]', 'a second run of the same program: report what changed from <dir> to it')
    .option('--json', 'machine-readable output')
    .option(
      '--top <n>',
      "rows per table in every format: text, --json, --csv, --html (default: the tools' top the run was given, else 15; 0: every row)",
      (v) => Number.parseInt(v, 10),
    )
    .option('--ranks [list]', "each call site per rank (mpiP's Callsite Time statistics), of these ranks (0,2-5; all without a list)")
    .option('--sites <list>', 'only these call sites (numbers as printed, MPI functions, file:line)')
    .option('--csv <dir>', "write the tools' tables as CSV files into <dir> (what each writes: mpii tools)")
    .option('--prof <prefix>', 'write the per-peer traffic as Open MPI .prof files: <prefix>.<rank>.prof')
    .option('--html <file>', "write every tool's results as one self-contained HTML page")
    .option('--force', 'replace the files --html, --csv or --prof would write when they exist')
    .addHelpText('after', `\nExamples:\n${examples('report')}`)
    .action(async (dir, dir2, o, cmd: CommandType) => {
      const { reportCommand } = await import('./report.js');
      setCode(await reportCommand(dir, { ...o, toolOptions: askedToolOptions(cmd, reportFlags) }, dir2));
    });
  for (const f of reportFlags) report.option(f.flag, f.help); // the tools' own (--no-matrix)
  program
    .command('install')
    .description('install the shim for every user: a library the MPI compiler wrappers link (sysadmin)')
    .option('--prefix <dir>', 'where the library, headers, defaults and the manual page go (default /usr/local)')
    .option('--mpi <flavor>', 'openmpi, mpich or all (default: every MPI installed)')
    .option('--default-stack <name>', 'the stack programs built with the wrappers run (default: the configured default-stack)')
    .option('--config <file>', 'an extra YAML configuration file to find the stack in')
    .option('--wrappers <mode>', "system: change the MPI's own wrapper files (backed up); separate: <wrapper>-mpii.<mpi> scripts under the prefix", 'system')
    .option('--make-default', 'MPICH: /etc/profile.d/mpii.sh makes -profile=mpii the default')
    .option('--out-base <dir>', 'where linked programs put their profiles (default ./mpii-out)')
    .option('--dry-run', 'show the diff of every file that would change, change nothing')
    .action(async (o) => {
      const { installCommand } = await import('./install.js');
      setCode(await installCommand(o));
    });
  program
    .command('uninstall')
    .description('undo `mpii install`: restore every MPI file it changed, remove what it added')
    .option('--prefix <dir>', 'the prefix given to mpii install (default /usr/local)')
    .option('--dry-run', 'show the diff of every file that would change, change nothing')
    .option('--force', 'restore the backups even over files changed since the install')
    .action(async (o) => {
      const { uninstallCommand } = await import('./install.js');
      setCode(await uninstallCommand(o));
    });
  for (const kind of ['pvars', 'cvars'] as const) {
    program
      .command(kind)
      .description(`list the MPI library's MPI_T ${kind === 'pvars' ? 'performance' : 'control'} variables (asked through MPI_T, no MPI_Init)`)
      .argument('[names...]', 'only names containing one of these (or matching a glob with * and ?)')
      .option('--mpi <flavor>', 'openmpi or mpich (default: the mpirun on PATH)')
      .option('--json', 'machine-readable output')
      .action(async (names: string[], o) => {
        setCode(await (await commands()).varsCommand(kind, names, o));
      });
  }
  program
    .command('completion')
    .description('print a shell completion script: source <(mpii completion bash)')
    .addArgument(new Argument('<shell>', 'bash or zsh').choices(['bash', 'zsh']))
    .action(async (shell: 'bash' | 'zsh') => {
      const { completionScript } = await import('./completion.js');
      process.stdout.write(completionScript(program, shell));
      setCode(0);
    });
  program
    .command('man')
    .description('print the manual page mpii(1) in roff (mpii man | man -l -)')
    .action(async () => {
      const { manPage } = await import('./man.js');
      process.stdout.write(manPage(program));
      setCode(0);
    });
  // every command answers --version (intercepted in main before commander parses)
  for (const c of program.commands) c.option('-V, --version', "print mpii's version");
  return program;
}

/** `mpii run … --version …`: a --version or -V among the options before the program (after it,
 * it is the program's). Arguments that do not parse are left for runCommand to report. */
function runWantsVersion(argv: string[]): boolean {
  try {
    return parseRunArgs(argv, process.env).version;
  } catch {
    return false;
  }
}

/** A commander error message as one mpii line: `mpii: <what> — <fix>`. */
export function commanderLine(message: string, command: string): string {
  const text = message.trim().replace(/^error: /, '');
  const similar = /\n\(Did you mean (.+)\?\)\s*$/.exec(text);
  const what = text.replace(/\n\(Did you mean .+\?\)\s*$/, '').replace(/\s*\n\s*/g, ' ');
  const help = `mpii ${command ? `${command} ` : ''}--help`;
  return formatError(new MpiiError(what, similar ? `did you mean ${similar[1]}? (${help})` : `see ${help}`));
}

export async function main(argv: string[]): Promise<number> {
  try {
    const untilEnd = argv.indexOf('--') < 0 ? argv : argv.slice(0, argv.indexOf('--'));
    if (argv[0] === 'run') {
      if (argv[1] === '--help' || argv[1] === '-h') {
        console.log(runHelp());
        return 0;
      }
      if (VERSION_FLAGS.has(argv[1]) || runWantsVersion(argv.slice(1))) {
        console.log(version());
        return 0;
      }
      const { runCommand } = await import('./run.js');
      return await runCommand(argv.slice(1));
    }
    let code = 0;
    const known = (n: string | undefined) => n !== undefined && !n.startsWith('-');
    const program = await buildProgram(
      (c) => {
        code = c;
      },
      () => (known(argv[0]) && program.commands.some((c) => c.name() === argv[0]) ? argv[0] : ''),
    );
    if (known(argv[0]) && program.commands.some((c) => c.name() === argv[0]) && untilEnd.slice(1).some((a) => VERSION_FLAGS.has(a))) {
      console.log(version());
      return 0;
    }
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof MpiiError) {
      process.stderr.write(`${formatError(e)}\n`);
      return e.exitCode;
    }
    // commander's own exits: help and --version 0, every usage error 2 (as mpii's own)
    const ce = e as { code?: string; exitCode?: number };
    if (typeof ce.code === 'string' && ce.code.startsWith('commander.')) return ce.exitCode === 0 ? 0 : 2;
    throw e;
  }
}

/** The tools' options set by their own flags of `mpii report` (manifest `report.flags`), by tool
 *  name. Commander pairs `--x` with `--no-x` into one value (the last given wins); a flag counts
 *  when that value came from the command line and is the one the flag gives. */
function askedToolOptions(cmd: CommandType, flags: (RunFlag & { tool: string })[]): Record<string, Record<string, OptionValue>> {
  const out: Record<string, Record<string, OptionValue>> = {};
  for (const f of flags) {
    const option = cmd.options.find((o) => o.long === f.flag)!;
    const key = option.attributeName();
    if (cmd.getOptionValueSource(key) !== 'cli' || cmd.getOptionValue(key) !== !option.negate) continue;
    out[f.tool] = { ...out[f.tool], ...f.sets };
  }
  return out;
}

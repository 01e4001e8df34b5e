// The examples of `mpii --help`, `mpii run --help` and `mpii report --help`, and of the man page
// (man.ts): a module of their own, so the man page does not import the command line that imports it.

/** The examples --help ends with, per command (`mpii` for the program itself); the man page's
 * EXAMPLES too. `width`: the column the explanations start at. */
export const EXAMPLES: Record<'mpii' | 'run' | 'report', { width: number; list: [command: string, what: string][] }> = {
  mpii: {
    width: 34,
    list: [
      ['mpii run -np 4 ./app', 'run through the default tool stack (mpii run --help)'],
      ['mpii report mpii-out/app-…', "print a run's report again (mpii report --help)"],
      ['mpii build --force', 'rebuild the shims'],
      ['source <(mpii completion bash)', 'tab completion for this shell'],
    ],
  },
  run: {
    width: 54,
    list: [
      ['mpii run -np 4 ./app', 'the default stack, report after the run'],
      ['mpii run --tools monitor,profile -np 16 ./app', 'traffic matrix and call-site profile'],
      ["mpii run --tools 'profile[depth=3]' --out prof -np 4 ./app arg1", 'profile into ./prof'],
      ['mpii run --mpi mpich --tools trace-count -np 2 python3 app.py', 'an mpi4py program'],
      ['mpii run --timeout 600 --tools profile -np 8 ./app', 'stop it after 10 minutes (exit 124)'],
      ['mpii run --dry-run --tools memcheck -np 2 ./app', 'show the launcher command only'],
    ],
  },
  report: {
    width: 55,
    list: [
      ['mpii report mpii-out/app-20250101-120000-4242', 'the text report again'],
      ['mpii report prof/profile.mpii --top 30', 'the profile file names its directory too'],
      ['mpii report prof --json > prof.json', 'everything, for scripts'],
      ['mpii report prof --html report.html [--force]', 'one self-contained web page'],
      ['mpii report prof --csv matrices/ --prof prof/phase_1', 'monitor matrices and Open MPI .prof files'],
    ],
  },
};

// Generated from preload/spec/environment.yaml by `npm run gen` (src/gen/env-emit.ts): do not edit; change the YAML and run it.

/** Every variable of the environment mpii sets or reads, by the name src/ spells it with. */
export const ENV = {
  /** LD_PRELOAD (list; set by cli; read by loader): the shim, then your own `LD_PRELOAD` (a legacy PMPI library such as mpiP's stays *below* the shim); with `--launcher srun` only the tasks get it, never `srun` */
  LD_PRELOAD: 'LD_PRELOAD',
  /** TOOLS (list; set by cli-or-user; read by shim, cli): the tool stack, outermost first: built-in names or paths of tool `.so` files, separated by colons. `mpii run` reads yours as the stack when `--tools` is not given; programs linked with `mpii install`'s wrappers read it too */
  TOOLS: 'TOOLS',
  /** MPII_OPT_<n> (key=value;…; set by cli; read by shim): the options of the n-th tool instance of `TOOLS` (n from 1), when it has any; the tool's id is n too, unless the MPI library's tool list went on top of the stack ([qmpi.md](qmpi.md)) */
  MPII_OPT: 'MPII_OPT_',
  /** MPII_OUT (path; set by cli; read by shim): the output directory: each process keeps its image in a slot of its host's `node-<host>.live` there, one rank gathers `profile.mpii`. Set, it also tells a shim linked by `mpii install` that `mpii run` started the job */
  MPII_OUT: 'MPII_OUT',
  /** MPII_RUN_MARK (path; set by cli; read by shim): `<out>/.mpii-run-<host>-<pid>`, a file `mpii run` creates for the job: the rank that writes the profile is one that sees it ([multihost.md](multihost.md)) */
  MPII_RUN_MARK: 'MPII_RUN_MARK',
  /** MPII_PVARS (list; set by cli; read by shim): `--pvar`'s MPI_T performance variables, separated by commas, sampled at `MPI_Finalize` ([mpi-t.md](mpi-t.md)) */
  MPII_PVARS: 'MPII_PVARS',
  /** MPII_REPORT_OPTIONS (json; set by cli; read by shim): the tools' report options of the run (their `top`, `matrix`), recorded in the profile so that a later `mpii report` shows what this run showed */
  MPII_REPORT_OPTIONS: 'MPII_REPORT_OPTIONS',
  /** MPII_PYSITE (path; set by cli-or-user; read by shim): a Python program's call-site helper, built for its interpreter: call sites name Python lines. Yours wins (a path, or empty for none) */
  MPII_PYSITE: 'MPII_PYSITE',
  /** MPI4PY_MPIABI (text; set by cli-or-user; read by mpi4py): a Python program's ranks: the MPI ABI mpi4py 4 chose without the shim (whose wrappers would make any MPI look like MPICH); not set when you set it or `MPI4PY_LIBMPI`. Your other `MPI4PY_*` variables are passed on too */
  MPI4PY_MPIABI: 'MPI4PY_MPIABI',
  /** LD_LIBRARY_PATH (list; set by cli-or-user; read by loader): a Python program whose extension asks for the MPI library under another name: mpii's `abi-names` folder in its cache (a link under that name) before yours */
  LD_LIBRARY_PATH: 'LD_LIBRARY_PATH',
  /** INJ_IGNORE (int; set by user; read by shim, cli): not 0: no tool is loaded, every MPI call goes straight to the MPI library; rank 0's value decides for every rank. `mpii run` then says in one line that there is no profile */
  INJ_IGNORE: 'INJ_IGNORE',
  /** INJ_DEBUG (int; set by user; read by shim): the shim's debug output: `-1` off, `-2` from every rank, `N` from rank `N` only */
  INJ_DEBUG: 'INJ_DEBUG',
  /** MPIR_CVAR_QMPI_TOOL_LIST (list; set by user; read by shim, cli): MPICH's list of QMPI tools for the library to run (names the tools registered, outermost first). With mpii's stack on, mpii runs them first, as tools 1 to N as the library numbers them, then its own, on every MPI, and the library is not given the list; with `INJ_IGNORE=1` the library gets them as without mpii ([qmpi.md](qmpi.md)) */
  MPIR_CVAR_QMPI_TOOL_LIST: 'MPIR_CVAR_QMPI_TOOL_LIST',
  /** MPIR_PARAM_QMPI_TOOL_LIST (list; set by user; read by shim, cli): MPICH's older name of `MPIR_CVAR_QMPI_TOOL_LIST`, read as MPICH reads it (`MPIR_CVAR_` wins over `MPIR_PARAM_`, which wins over `MPICH_`) */
  MPIR_PARAM_QMPI_TOOL_LIST: 'MPIR_PARAM_QMPI_TOOL_LIST',
  /** MPICH_QMPI_TOOL_LIST (list; set by user; read by shim, cli): MPICH's oldest name of `MPIR_CVAR_QMPI_TOOL_LIST` */
  MPICH_QMPI_TOOL_LIST: 'MPICH_QMPI_TOOL_LIST',
  /** QMPI_TOOL_LIST (list; set by user; read by cli): not read by MPICH 4.0–5.0 nor by mpii (the name in the cvar's `alias` line, which MPICH's generator does not read): `mpii run` says to use `MPIR_CVAR_QMPI_TOOL_LIST` */
  QMPI_TOOL_LIST: 'QMPI_TOOL_LIST',
  /** MPII_DEFAULTS (path; set by user; read by shim): a program linked by `mpii install`'s wrappers and started without `mpii run`: the defaults file to read instead of the `mpii-defaults` next to the library */
  MPII_DEFAULTS: 'MPII_DEFAULTS',
  /** MPII_OUT_BASE (path; set by defaults; read by shim): a key of the `mpii-defaults` file only, not read from the environment: where programs linked by `mpii install` put their profiles */
  MPII_OUT_BASE: 'MPII_OUT_BASE',
  /** MPII_CLOCK (word; set by user; read by shim): `frozen`: the clock the tools' decisions read stands still (for tests), so that they rest on counts alone, whatever the machine's load: overlap's adaptive decisions (a site whose background receives are touched at once is given up; the timed comparisons never decide; its wait times read 0) and memcheck's sampling (a call site's first 16 operations are checked, then none). The times profile and monitor report are not affected */
  MPII_CLOCK: 'MPII_CLOCK',
  /** MPII_LAUNCHER (word; set by user; read by cli): the launcher when `--launcher` is not given */
  MPII_LAUNCHER: 'MPII_LAUNCHER',
  /** MPII_BUILD (word; set by user; read by cli): `wait`: a run waits for the shim it needs (the MPI's general shim on the very first run, a stack's compiled-in shim) instead of starting on a quick shim or chained while it builds in the background */
  MPII_BUILD: 'MPII_BUILD',
  /** MPII_SYSTEM_CACHE (path; set by user; read by cli): the system-wide cache of prebuilt shims, which every run reads before the user's own and never writes; `mpii build --system` and `mpii install` fill it (docs/install.md) */
  MPII_SYSTEM_CACHE: 'MPII_SYSTEM_CACHE',
  /** MPII_OBJECT_CACHE (path; set by user; read by cli): a directory of compiled objects shared between shim builds (several users' caches, a container rebuilt from nothing, a test suite's private caches): a source compiled the same way as before (the same compiler, flags and preprocessed text) is taken from it instead of compiled again; unset, every build compiles everything. Never pruned: remove it to reclaim its space */
  MPII_OBJECT_CACHE: 'MPII_OBJECT_CACHE',
  /** MPII_SPECIALISE (word; set by user; read by cli): `0`: every run as with `--chained` (the QMPI chain, no compiled-in stack) */
  MPII_SPECIALISE: 'MPII_SPECIALISE',
  /** MPII_DEBUG_DIR (list; set by user; read by cli): folders searched before `/usr/lib/debug` for the separate debug files of stripped programs and libraries (`mpii report`'s `file:line`) */
  MPII_DEBUG_DIR: 'MPII_DEBUG_DIR',
  /** MPII_MPI_LIBRARY (path; set by user; read by cli): the MPI library `mpii pvars`/`cvars` and `--pvar` ask through MPI_T (another build of the same MPI) */
  MPII_MPI_LIBRARY: 'MPII_MPI_LIBRARY',
} as const;

/** What an unset `int` variable means (src/run/env-int.ts reads them). */
export const ENV_INT_DEFAULT = { INJ_IGNORE: 0, INJ_DEBUG: -1 } as const;

/** The user's variables `mpii run` passes on to the ranks when they are set. */
export const ENV_PASSED_ON = [ENV.INJ_IGNORE, ENV.INJ_DEBUG, ENV.MPIR_CVAR_QMPI_TOOL_LIST, ENV.MPIR_PARAM_QMPI_TOOL_LIST, ENV.MPICH_QMPI_TOOL_LIST, ENV.MPII_CLOCK] as const;

/* Generated from preload/spec/environment.yaml by `npm run gen` (src/gen/env-emit.ts): do not edit; change the YAML and run it. */

#ifndef MPII_ENV_H
#define MPII_ENV_H

/* The variables the shim reads (getenv at MPI_Init and MPI_Finalize only). */
/* TOOLS (list; set by cli-or-user; read by shim, cli): the tool stack, outermost first: built-in names or paths of tool `.so` files, separated by colons. `mpii run` reads yours as the stack when `--tools` is not given; programs linked with `mpii install`'s wrappers read it too */
#define MPII_ENV_TOOLS "TOOLS"
/* MPII_OPT_<n> (key=value;…; set by cli; read by shim): the options of the n-th tool instance of `TOOLS` (n from 1), when it has any; the tool's id is n too, unless the MPI library's tool list went on top of the stack ([qmpi.md](qmpi.md)) */
#define MPII_ENV_OPT_PREFIX "MPII_OPT_"
/* MPII_OUT (path; set by cli; read by shim): the output directory: each process keeps its image in a slot of its host's `node-<host>.live` there, one rank gathers `profile.mpii`. Set, it also tells a shim linked by `mpii install` that `mpii run` started the job */
#define MPII_ENV_OUT "MPII_OUT"
/* MPII_RUN_MARK (path; set by cli; read by shim): `<out>/.mpii-run-<host>-<pid>`, a file `mpii run` creates for the job: the rank that writes the profile is one that sees it ([multihost.md](multihost.md)) */
#define MPII_ENV_RUN_MARK "MPII_RUN_MARK"
/* MPII_PVARS (list; set by cli; read by shim): `--pvar`'s MPI_T performance variables, separated by commas, sampled at `MPI_Finalize` ([mpi-t.md](mpi-t.md)) */
#define MPII_ENV_PVARS "MPII_PVARS"
/* MPII_REPORT_OPTIONS (json; set by cli; read by shim): the tools' report options of the run (their `top`, `matrix`), recorded in the profile so that a later `mpii report` shows what this run showed */
#define MPII_ENV_REPORT_OPTIONS "MPII_REPORT_OPTIONS"
/* MPII_PYSITE (path; set by cli-or-user; read by shim): a Python program's call-site helper, built for its interpreter: call sites name Python lines. Yours wins (a path, or empty for none) */
#define MPII_ENV_PYSITE "MPII_PYSITE"
/* INJ_IGNORE (int; set by user; read by shim, cli): not 0: no tool is loaded, every MPI call goes straight to the MPI library; rank 0's value decides for every rank. `mpii run` then says in one line that there is no profile */
#define MPII_ENV_INJ_IGNORE "INJ_IGNORE"
#define MPII_ENV_INJ_IGNORE_DEFAULT 0
/* INJ_DEBUG (int; set by user; read by shim): the shim's debug output: `-1` off, `-2` from every rank, `N` from rank `N` only */
#define MPII_ENV_INJ_DEBUG "INJ_DEBUG"
#define MPII_ENV_INJ_DEBUG_DEFAULT -1
/* MPIR_CVAR_QMPI_TOOL_LIST (list; set by user; read by shim, cli): MPICH's list of QMPI tools for the library to run (names the tools registered, outermost first). With mpii's stack on, mpii runs them first, as tools 1 to N as the library numbers them, then its own, on every MPI, and the library is not given the list; with `INJ_IGNORE=1` the library gets them as without mpii ([qmpi.md](qmpi.md)) */
#define MPII_ENV_MPIR_CVAR_QMPI_TOOL_LIST "MPIR_CVAR_QMPI_TOOL_LIST"
/* MPIR_PARAM_QMPI_TOOL_LIST (list; set by user; read by shim, cli): MPICH's older name of `MPIR_CVAR_QMPI_TOOL_LIST`, read as MPICH reads it (`MPIR_CVAR_` wins over `MPIR_PARAM_`, which wins over `MPICH_`) */
#define MPII_ENV_MPIR_PARAM_QMPI_TOOL_LIST "MPIR_PARAM_QMPI_TOOL_LIST"
/* MPICH_QMPI_TOOL_LIST (list; set by user; read by shim, cli): MPICH's oldest name of `MPIR_CVAR_QMPI_TOOL_LIST` */
#define MPII_ENV_MPICH_QMPI_TOOL_LIST "MPICH_QMPI_TOOL_LIST"
/* MPII_DEFAULTS (path; set by user; read by shim): a program linked by `mpii install`'s wrappers and started without `mpii run`: the defaults file to read instead of the `mpii-defaults` next to the library */
#define MPII_ENV_DEFAULTS "MPII_DEFAULTS"
/* MPII_OUT_BASE (path; set by defaults; read by shim): a key of the `mpii-defaults` file only, not read from the environment: where programs linked by `mpii install` put their profiles */
#define MPII_ENV_OUT_BASE "MPII_OUT_BASE"
/* MPII_CLOCK (word; set by user; read by shim): `frozen`: the clock the tools' decisions read stands still (for tests), so that they rest on counts alone, whatever the machine's load: overlap's adaptive decisions (a site whose background receives are touched at once is given up; the timed comparisons never decide; its wait times read 0) and memcheck's sampling (a call site's first 16 operations are checked, then none). The times profile and monitor report are not affected */
#define MPII_ENV_CLOCK "MPII_CLOCK"

#endif

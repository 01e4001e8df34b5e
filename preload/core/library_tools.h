/* library_tools.c: the tools the MPI library itself was asked to run (MPICH's QMPI tool list) */
#ifndef MPII_LIBRARY_TOOLS_H
#define MPII_LIBRARY_TOOLS_H

/* Who runs the listed tools in this process, once settled. */
enum mpii_listed_owner {
    MPII_LISTED_NONE,    /* no list: nothing to decide */
    MPII_LISTED_STACK,   /* mpii's stack runs them, below its own tools; the library sees no list */
    MPII_LISTED_LIBRARY, /* the library runs them: every QMPI_ call is forwarded to it */
};

/* Settles it, once per process, before the library first reads its variables (MPI_Init,
 * MPI_Init_thread, MPI_Session_init, MPI_T_init_thread): `stack_runs`, whether mpii's stack runs
 * here (INJ_IGNORE unset). Later calls change nothing. */
void mpii_library_tools_settle(int stack_runs);
enum mpii_listed_owner mpii_library_tools_owner(void);
/* The list mpii's stack runs (names separated by ':') and the variable it came from; NULL unless
 * the owner is MPII_LISTED_STACK. */
const char *mpii_library_tools_list(const char **var);
#endif

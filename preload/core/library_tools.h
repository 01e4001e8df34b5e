/* library_tools.c: the tools the MPI library itself was asked to run (MPICH's QMPI tool list) */
#ifndef MPII_LIBRARY_TOOLS_H
#define MPII_LIBRARY_TOOLS_H

/* Who runs the listed tools in this process, once settled. */
enum mpii_listed_owner {
    MPII_LISTED_NONE,    /* no list: nothing to decide */
    MPII_LISTED_STACK,   /* mpii's stack runs them, as its first tools; the library sees no list */
    MPII_LISTED_LIBRARY, /* the library runs them: every QMPI_ call is forwarded to it */
};

/* Settles it, once per process, at the first MPI call (mpii_resolve_all, and MPI_T_init_thread,
 * which does not pass there): an MPICH with QMPI reads its tool list at any first call, even
 * MPI_Initialized. mpii's stack runs here unless INJ_IGNORE is set. Later calls change nothing; a
 * copy of the shim that another copy shadows settles nothing (the tools registered with that one). */
void mpii_library_tools_settle_first(void);
enum mpii_listed_owner mpii_library_tools_owner(void);
/* What was settled, under INJ_DEBUG (called once the debug rank is known). */
void mpii_library_tools_log(void);
/* The list mpii's stack runs (names separated by ':') and the variable it came from; NULL unless
 * the owner is MPII_LISTED_STACK. */
const char *mpii_library_tools_list(const char **var);
#endif

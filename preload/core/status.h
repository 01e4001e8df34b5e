/* The standard's empty status, made whole below every tool. A null or inactive request completes
 * with an empty status: MPI_SOURCE = MPI_ANY_SOURCE, MPI_TAG = MPI_ANY_TAG, MPI_ERROR = MPI_SUCCESS,
 * count 0, not cancelled (MPI-4.1 §3.7.3). Open MPI 4.1 leaves MPI_ERROR as it was (whatever the
 * program's stack held: a program that checks it passes plain or not by the luck of its stack,
 * and a preloaded shim changes that luck), MPICH 4.0 too for MPI_Wait/MPI_Test/MPI_Waitany, and
 * MPICH 4.0's MPI_Testany writes no status at all when no request is active. The chain bottoms of
 * the completion functions (src/gen/emit.ts) call these after a successful call, so every stack,
 * an empty one included, hands the program the standard's status. */
#ifndef MPII_STATUS_H
#define MPII_STATUS_H
#include "mpii_gen.h"

/* A status the library left empty but for MPI_ERROR: source and tag are both wildcards only in an
 * empty status (a received message has a real source; MPI_PROC_NULL's status has source
 * MPI_PROC_NULL). Two loads and a compare on the completion's path. */
static inline void mpii_status_whole(MPI_Status *st)
{
    if (st != MPI_STATUS_IGNORE && st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG)
        st->MPI_ERROR = MPI_SUCCESS;
}

static inline void mpii_statuses_whole(int n, MPI_Status *sts)
{
    if (sts == MPI_STATUSES_IGNORE) return;
    for (int i = 0; i < n; i++) mpii_status_whole(&sts[i]);
}

/* The whole empty status, count and cancelled flag through the library (no tool sees the calls). */
void mpii_status_set_empty(MPI_Status *st);

/* MPI_Waitany/MPI_Testany (flag true): no active request (index MPI_UNDEFINED) gives an empty
 * status, whatever the library wrote. */
static inline void mpii_status_any(int index, MPI_Status *st)
{
    if (index == MPI_UNDEFINED) mpii_status_set_empty(st);
    else
        mpii_status_whole(st);
}
#endif

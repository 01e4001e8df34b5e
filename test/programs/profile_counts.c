/* profile_counts.c - exact counts and bytes far past a site's first timed calls, and calls that
 * fail and return. 2 ranks.
 * Phase 1 (errors abort, the default): ROUNDS rounds; rank 0 sends from one call site: for the first
 * quarter 8 doubles (64 B) and one `pair` (2 doubles, 16 B) in turn, then one `pair` per round,
 * then (the last quarter) 8 doubles again. Half-way `pair` is freed and replaced by a 3-double type
 * (24 B), which the MPI may give the same handle: a size or a call's signature remembered for the
 * handle would be wrong. Rank 1 receives into 8 doubles. Then rank 0 sends 8 doubles ROUNDS times
 * from a new site whose first call goes to MPI_PROC_NULL, and ROUNDS times to MPI_PROC_NULL from a
 * third site. Then one site (in send_to) sends SHORT single doubles, another SHORT x 8 doubles, and
 * the first again: one call to MPI_PROC_NULL, then SHORT x 8 doubles (what the other site knew of
 * 64-byte sends is not this site's: its largest send must become 64 B). Last, a fourth site sends
 * SHORT x 8 doubles, the last one to MPI_PROC_NULL (its smallest send must become 0 B). Then
 * both ranks send and receive ROUNDS x 8 doubles from one site each with recording off
 * (MPI_Pcontrol(0)) for the middle third, and rank 0 sends SHORT x 8 doubles in send_to again,
 * whose site is then the latest (its tail path must not survive a change of the error handler).
 * Then ROUNDS MPI_Info_set calls from one site; rank 0 prints "info <value>" (the last one set,
 * as MPI_Info_get reads it back).
 * Phase 2: MPI_ERRORS_RETURN on MPI_COMM_WORLD; ROUNDS more 64-byte sends from another site, then
 * BAD sends to rank `size` (no such rank: each fails and returns) from there and BAD from send_to.
 * Rank 0 prints "failed <n>" (how many of the bad sends returned an error). */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 1000
#define BAD 100
#define SHORT 100

static __attribute__((noinline)) int send_to(int dest, int count)
{
    return MPI_Send((double[8]) { 0 }, count, MPI_DOUBLE, dest, 3, MPI_COMM_WORLD); /* site:send-back */
}

int main(int argc, char **argv)
{
    int rank, size, failed = 0;
    double v[8] = { 0 };
    MPI_Datatype pair;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    for (int i = 0; i < ROUNDS; i++) {
        if (i == ROUNDS / 2) {
            MPI_Type_free(&pair);
            MPI_Type_contiguous(3, MPI_DOUBLE, &pair);
            MPI_Type_commit(&pair);
        }
        int single = i < ROUNDS / 4 ? i % 2 : i < ROUNDS * 3 / 4;
        if (rank == 0)
            MPI_Send(v, single ? 1 : 8, single ? pair : MPI_DOUBLE, 1, 0, MPI_COMM_WORLD); /* site:send-mixed */
        else if (rank == 1)
            MPI_Recv(v, 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:recv */
    }
    MPI_Type_free(&pair);
    for (int i = 0; i < ROUNDS; i++) {
        if (rank == 0) MPI_Send(v, 8, MPI_DOUBLE, i == 0 ? MPI_PROC_NULL : 1, 2, MPI_COMM_WORLD); /* site:send-null-first */
        else if (rank == 1 && i > 0) MPI_Recv(v, 8, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:recv-2 */
    }
    for (int i = 0; i < ROUNDS && rank == 0; i++)
        MPI_Send(v, 8, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD); /* site:send-null */
    if (rank == 0) {
        for (int i = 0; i < SHORT; i++) send_to(1, 1);
        for (int i = 0; i < SHORT; i++) MPI_Send(v, 8, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD); /* site:send-between */
        send_to(MPI_PROC_NULL, 8);
        for (int i = 0; i < SHORT; i++) send_to(1, 8);
        int dest[SHORT]; /* in memory, so the compiler cannot give the last call its own site */
        for (int i = 0; i < SHORT; i++) dest[i] = i == SHORT - 1 ? MPI_PROC_NULL : 1;
        for (int i = 0; i < SHORT; i++) MPI_Send(v, 8, MPI_DOUBLE, dest[i], 3, MPI_COMM_WORLD); /* site:send-last-null */
    } else if (rank == 1) {
        for (int i = 0; i < 4 * SHORT - 1; i++) MPI_Recv(v, 8, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < ROUNDS; i++) {
        if (i == ROUNDS / 3) MPI_Pcontrol(0);
        if (i == 2 * ROUNDS / 3) MPI_Pcontrol(1);
        if (rank == 0) MPI_Send(v, 8, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD); /* site:send-paused */
        else if (rank == 1) MPI_Recv(v, 8, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:recv-paused */
    }
    for (int i = 0; i < SHORT; i++) {
        if (rank == 0) send_to(1, 8);
        else if (rank == 1) MPI_Recv(v, 8, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    /* a function whose parameter shares a name with a wrapper's own local (MPI_Info_set's `key`)
     * must get its own argument on the tail path too: the value read back is the last one set */
    MPI_Info info;
    char value[16];
    int found = 0;
    MPI_Info_create(&info);
    for (int i = 0; i < ROUNDS; i++) {
        snprintf(value, sizeof value, "%d", i);
        MPI_Info_set(info, "mpii", value);
    }
    MPI_Info_get(info, "mpii", sizeof value - 1, value, &found);
    if (rank == 0) printf("info %s\n", found ? value : "(none)");
    MPI_Info_free(&info);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 0; i < ROUNDS; i++) {
        if (rank == 0) MPI_Send(v, 8, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD); /* site:send-after */
        else if (rank == 1) MPI_Recv(v, 8, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:recv-after */
    }
    if (rank == 0) { /* MPI_DOUBLE's size is known by now: counting these needs no MPI call */
        for (int i = 0; i < BAD; i++)
            failed += MPI_Send(v, 8, MPI_DOUBLE, size, 0, MPI_COMM_WORLD) != MPI_SUCCESS; /* site:send-bad */
        for (int i = 0; i < BAD; i++) failed += send_to(size, 8) != MPI_SUCCESS;
        printf("failed %d\n", failed);
    }
    MPI_Finalize();
    return 0;
}

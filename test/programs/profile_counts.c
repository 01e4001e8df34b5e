/* profile_counts.c - exact counts and bytes far past a site's first timed calls, and calls that
 * fail and return. 2 ranks.
 * Phase 1 (errors abort, the default): ROUNDS rounds; rank 0 sends, from one call site, 8 doubles
 * (64 B) on even rounds and one `pair` (2 doubles, 16 B) on odd ones, then sends to MPI_PROC_NULL;
 * rank 1 receives into 8 doubles. Half-way `pair` is freed and replaced by a 3-double type (24 B),
 * which the MPI may give the same handle: a size remembered for the handle would be wrong.
 * Phase 2: MPI_ERRORS_RETURN on MPI_COMM_WORLD; ROUNDS more 64-byte sends from another site, then
 * BAD sends to rank `size` (no such rank: each fails and returns).
 * Rank 0 prints "failed <n>" (how many of the bad sends returned an error). */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 1000
#define BAD 100

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
        if (rank == 0) {
            MPI_Send(v, i % 2 ? 1 : 8, i % 2 ? pair : MPI_DOUBLE, 1, 0, MPI_COMM_WORLD); /* site:send-mixed */
            MPI_Send(v, 8, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD); /* site:send-null */
        } else if (rank == 1) {
            MPI_Recv(v, 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:recv */
        }
    }
    MPI_Type_free(&pair);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 0; i < ROUNDS; i++) {
        if (rank == 0) MPI_Send(v, 8, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD); /* site:send-after */
        else if (rank == 1) MPI_Recv(v, 8, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:recv-after */
    }
    if (rank == 0) { /* MPI_DOUBLE's size is known by now: counting these needs no MPI call */
        for (int i = 0; i < BAD; i++)
            failed += MPI_Send(v, 8, MPI_DOUBLE, size, 0, MPI_COMM_WORLD) != MPI_SUCCESS; /* site:send-bad */
        printf("failed %d\n", failed);
    }
    MPI_Finalize();
    return 0;
}

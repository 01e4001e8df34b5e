/* bench/comms.c - the cost of making and freeing communicators (MPICH's test suite: comm/ctxalloc
 * dups 200 at a time and frees them, 1,000 times; comm/ctxsplit splits 100,000 times).
 *
 * Usage: comms [rounds=50] [live=200]
 *   rounds x `live` MPI_Comm_dup of MPI_COMM_WORLD, all `live` held, then freed in order;
 *   then rounds x live / 4 MPI_Comm_split + MPI_Comm_free.
 * Prints (rank 0) "comms dup_free_us=<cpu µs per dup+free> split_free_us=<…> made=<n>": the
 * process's CPU time, not wall time, so that a busy machine's waiting does not count. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 50, live = argc > 2 ? atoi(argv[2]) : 200, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm *held = malloc(sizeof *held * (size_t) live);
    double t0 = cpu_seconds();
    for (int i = 0; i < rounds; i++) {
        for (int j = 0; j < live; j++) MPI_Comm_dup(MPI_COMM_WORLD, &held[j]);
        for (int j = 0; j < live; j++) MPI_Comm_free(&held[j]);
    }
    double t1 = cpu_seconds();
    int splits = rounds * live / 4;
    for (int i = 0; i < splits; i++) {
        MPI_Comm part;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &part);
        MPI_Comm_free(&part);
    }
    double t2 = cpu_seconds();
    if (rank == 0)
        printf("comms dup_free_us=%.3f split_free_us=%.3f made=%d\n", (t1 - t0) / (rounds * live) * 1e6,
               (t2 - t1) / splits * 1e6, rounds * live + splits);
    free(held);
    MPI_Finalize();
    return 0;
}

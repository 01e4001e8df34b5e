/* crash.c - generates a few hundred MPI calls, then dies without
 * MPI_Finalize so tests can check that partial profiles survive a crash.
 * Rank 1 (rank 0 when run alone) calls abort(); all other ranks block in
 * MPI_Barrier until the launcher tears them down. Exit status is whatever
 * the launcher reports (non-zero); nothing is printed on success paths.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, x = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* ~100 iterations x (send+recv+barrier) = a few hundred calls per rank. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < 100; i++) {
        if (size > 1) {
            /* Even ranks send first, odd ranks receive first: no deadlock
             * even for odd sizes because rank 0 and rank size-1 differ. */
            if (rank % 2 == 0) {
                MPI_Send(&i, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
                MPI_Recv(&x, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&x, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&i, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    int victim = size > 1 ? 1 : 0;
    if (rank == victim) {
        fprintf(stderr, "crash: rank %d aborting after traffic\n", rank);
        fflush(stderr);
        abort(); /* deliberately no MPI_Finalize / MPI_Abort */
    }
    MPI_Barrier(MPI_COMM_WORLD); /* never completes: victim is gone */
    MPI_Finalize();
    return 0;
}

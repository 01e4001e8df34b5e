/* E6: reading the buffer of a pending Isend: allowed since MPI-2.2, reported in strict mode. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define N 512
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *shadow = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++) shadow[i] = i;
    volatile long v = 0;
    if (rank == 0) {
        MPI_Request req;
        MPI_Isend(shadow, N, MPI_INT, 1, 0, MPI_COMM_WORLD, &req); /* MEMCHECK-CALL */
        v += shadow[10]; /* MEMCHECK-ACCESS */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(shadow, N, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++) v += shadow[i];
    }
    printf("rank %d: %ld\n", rank, (long) v);
    free(shadow);
    MPI_Finalize();
    return 0;
}

/* E2: the receive extent runs one element past the allocation (the message itself fits).
 * Expect: receive buffer overrun (4 B). */
#include <mpi.h>
#include <stdlib.h>
#define N 250
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *b = calloc(N + 1, sizeof(int));
    if (rank == 0) {
        MPI_Send(b, N, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        int *small = malloc(N * sizeof(int));
        MPI_Recv(small, N + 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MEMCHECK-CALL */
        volatile long s = 0;
        for (int i = 0; i < N; i++) s += small[i];
        free(small);
    }
    free(b);
    MPI_Finalize();
    return 0;
}

/* E3: the data sent was never written (only Valgrind can see definedness). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *b = malloc(10 * sizeof(int));
    if (rank == 0) {
        MPI_Send(b, 10, MPI_INT, 1, 0, MPI_COMM_WORLD); /* MEMCHECK-CALL */
    } else if (rank == 1) {
        MPI_Recv(b, 10, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        long s = 0;
        for (int i = 0; i < 10; i++) s += b[i];
        printf("sum %s\n", s ? "nonzero" : "zero");
    }
    free(b);
    MPI_Finalize();
    return 0;
}

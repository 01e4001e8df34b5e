/* E7: received data overwritten before it is read (b[0]). Expect: write before read. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *b = malloc(2);
    if (rank == 0) {
        b[0] = 1, b[1] = 2;
        MPI_Send(b, 2, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(b, 2, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MEMCHECK-CALL */
        b[0] = sizeof(long); /* MEMCHECK-ACCESS */
        int r = b[1] * 1000;
        printf("r %d\n", r);
    }
    free(b);
    MPI_Finalize();
    return 0;
}

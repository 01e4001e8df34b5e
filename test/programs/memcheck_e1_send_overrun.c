/* E1: the send extent runs one byte past the allocation. Expect: send buffer overrun (1 B). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#define SIZE 1000
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        char *b = malloc(SIZE);
        memset(b, 0, SIZE);
        MPI_Send(b, SIZE + 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD); /* MEMCHECK-CALL */
        free(b);
    } else if (rank == 1) {
        char *b = malloc(SIZE + 1);
        MPI_Recv(b, SIZE + 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        volatile char sink = b[0] + b[SIZE];
        (void) sink;
        free(b);
    }
    MPI_Finalize();
    return 0;
}

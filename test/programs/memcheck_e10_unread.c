/* E10: b[0] of every message is transmitted and never read. Expect: received data never read,
 * 1 byte per receive, at the receive's call site. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define ROUNDS 10
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *b = malloc(2);
    long sum = 0;
    for (int k = 0; k < ROUNDS; k++) {
        if (rank == 0) {
            b[0] = 'x', b[1] = (char) k;
            MPI_Send(b, 2, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(b, 2, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MEMCHECK-CALL */
            sum += b[1];
        }
    }
    if (rank == 1) printf("sum %ld\n", sum);
    free(b);
    MPI_Finalize();
    return 0;
}

/* E5: writing the buffer of a pending operation. argv[1]: isend | irecv | persistent.
 * Expect one finding on the rank that writes, at the MEMCHECK-ACCESS line. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define N 512
int main(int argc, char **argv)
{
    int rank;
    const char *mode = argc > 1 ? argv[1] : "isend";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *b = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++) b[i] = i;
    MPI_Request req;
    if (!strcmp(mode, "isend")) {
        if (rank == 0) {
            MPI_Isend(b, N, MPI_INT, 1, 0, MPI_COMM_WORLD, &req); /* MEMCHECK-CALL */
            b[7] = 4711; /* MEMCHECK-ACCESS */
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(b, N, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (!strcmp(mode, "irecv")) {
        if (rank == 1) {
            MPI_Irecv(b, N, MPI_INT, 0, 0, MPI_COMM_WORLD, &req); /* MEMCHECK-CALL */
            b[100] = 4711; /* MEMCHECK-ACCESS */
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Send(b, N, MPI_INT, 1, 0, MPI_COMM_WORLD);
        }
    } else { /* persistent send, started twice; the second start's buffer is written */
        if (rank == 0) {
            MPI_Send_init(b, N, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
            for (int round = 0; round < 2; round++) {
                MPI_Start(&req);
                if (round == 1) b[3] = round; /* MEMCHECK-ACCESS */
                MPI_Wait(&req, MPI_STATUS_IGNORE);
                b[3] = 0; /* completed: allowed */
            }
            MPI_Request_free(&req);
        } else {
            for (int round = 0; round < 2; round++) {
                MPI_Recv(b, N, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                volatile long s = 0;
                for (int i = 0; i < N; i++) s += b[i]; /* every message is used */
            }
        }
    }
    volatile long s = 0;
    for (int i = 0; i < N; i++) s += b[i];
    free(b);
    MPI_Finalize();
    return 0;
}

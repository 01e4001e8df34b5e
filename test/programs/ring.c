/* ring.c - token ring over MPI_COMM_WORLD using blocking MPI_Send/MPI_Recv.
 *
 * Rank 0 starts an int token at 0 and passes it around the ring `iters`
 * times (argv[1], default 3); every rank (rank 0 included) adds 1 each time
 * the token passes through it, so the final value must be iters*size.
 * Prints "ring ok size=<N> token=<V>" from rank 0; exits non-zero on mismatch.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, iters = 3, token = 0, ok = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        iters = atoi(argv[1]);
    if (iters < 1)
        iters = 1;

    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i < iters; i++) {
        if (size == 1) { /* no one to talk to: just count ourselves */
            token++;
        } else if (rank == 0) {
            token++;
            MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token++;
            MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
        }
    }

    if (rank == 0) {
        ok = (token == iters * size);
        if (ok)
            printf("ring ok size=%d token=%d\n", size, token);
        else
            fprintf(stderr, "ring FAIL size=%d token=%d expected=%d\n", size, token, iters * size);
        fflush(stdout);
    }
    /* Share the verdict so every rank exits with the same status. */
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return ok ? 0 : 1;
}

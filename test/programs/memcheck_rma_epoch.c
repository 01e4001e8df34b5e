/* An RMA epoch of many operations on one origin buffer (the pattern of MPICH's rma/manyrma2):
 * epoch 1 makes `n` MPI_Accumulate calls from one small buffer and changes nothing in it, epoch 2
 * writes the buffer right after its third Accumulate (an error: the buffer is the origin of all
 * three until the fence). Under memcheck with pending=all every operation is guarded; a guard
 * held across more than 64 MPI calls is given up (each progressing call lifts and lowers every
 * guard), so epoch 1 gives up n - 64 guards, and epoch 2's write is still found.
 * usage: memcheck_rma_epoch [n=2000] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 2000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *buf = malloc(2 * sizeof(int)), *target = calloc(2, sizeof(int));
    buf[0] = 1, buf[1] = 2;
    MPI_Win win;
    MPI_Win_create(target, 2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        for (int i = 0; i < n; i++) MPI_Accumulate(buf, 2, MPI_INT, 1, 0, 2, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    if (rank == 1) printf("after epoch 1: %d %d\n", target[0], target[1]);
    if (rank == 0)
        for (int i = 0; i < 3; i++) {
            MPI_Accumulate(buf, 2, MPI_INT, 1, 0, 2, MPI_INT, MPI_SUM, win); /* MEMCHECK-CALL */
            if (i == 2) buf[1] = 0; /* MEMCHECK-ACCESS */
        }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    free(target);
    free(buf);
    MPI_Finalize();
    return 0;
}

/* E8: touching an active Accumulate origin buffer before the closing fence: a read (strict mode
 * only) and a write (always). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define NROWS 16
#define NCOLS 16
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int (*A)[NCOLS] = malloc(sizeof(int) * NROWS * NCOLS);
    int *target = calloc(NROWS * NCOLS, sizeof(int));
    for (int i = 0; i < NROWS; i++)
        for (int j = 0; j < NCOLS; j++) A[i][j] = i * NCOLS + j;
    MPI_Win win;
    MPI_Win_create(target, NROWS * NCOLS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Accumulate(A, NROWS * NCOLS, MPI_INT, 1, 0, NROWS * NCOLS, MPI_INT, MPI_SUM, win); /* MEMCHECK-CALL */
        printf("%d\n", A[0][0]); /* MEMCHECK-READ */
        A[0][1] = 4711; /* MEMCHECK-ACCESS */
    }
    MPI_Win_fence(0, win);
    if (rank == 1) printf("target[5] = %d\n", target[5]);
    MPI_Win_free(&win);
    free(target);
    free(A);
    MPI_Finalize();
    return 0;
}

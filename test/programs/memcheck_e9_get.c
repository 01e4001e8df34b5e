/* E9: writing an active Get buffer before the closing fence. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define NROWS 16
#define NCOLS 16
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int (*A)[NCOLS] = calloc(NROWS * NCOLS, sizeof(int));
    int *exposed = malloc(NROWS * NCOLS * sizeof(int));
    for (int i = 0; i < NROWS * NCOLS; i++) exposed[i] = rank * 1000 + i;
    MPI_Win win;
    MPI_Win_create(exposed, NROWS * NCOLS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Get(A, NROWS * NCOLS, MPI_INT, 1, 0, NROWS * NCOLS, MPI_INT, win); /* MEMCHECK-CALL */
        A[1][0] = 4711; /* MEMCHECK-ACCESS */
    }
    MPI_Win_fence(0, win);
    if (rank == 0) printf("A[0][5] = %d\n", A[0][5]);
    MPI_Win_free(&win);
    free(exposed);
    free(A);
    MPI_Finalize();
    return 0;
}

/* Errors apart from hints (issue 31). Hints: a broadcast whose receiver overwrites part of what
 * arrived before reading it (Quantum ESPRESSO's MPI_Bcast pattern), at two different lines, and a
 * receive of which part is never read. Correct programs both: a hint is waste, not an error.
 * With the argument `error`, rank 0 then writes to the buffer of its pending MPI_Isend: an error.
 * Expect (2 ranks, ROUNDS 8), rank 1's hints, one group per call site and kind:
 *   write before read of received data 8x (one double each: 64 B) at the MPI_Bcast,
 *   received data never read, overwritten by a later receive 7x (3 ints each: 84 B) and
 *   received data never read 1x (12 B) at the MPI_Recv;
 * with `error`: write to a pending send buffer 1x on rank 0 (under --memcheck-fatal the job stops
 * there, after the first barrier: the hints of the loop are all in the profile by then, and rank 1
 * waits in the second until it is stopped, so it never prints nor frees its buffers). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define ROUNDS 8

/* Two writers of received data, so the hint at the broadcast has two faulting instructions. */
static __attribute__((noinline)) void reset_first(double *b)
{
    b[0] = -1.0; /* MEMCHECK-ACCESS */
}

static __attribute__((noinline)) void reset_last(double *b)
{
    b[7] = -1.0; /* MEMCHECK-ACCESS */
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int error = argc > 1 && !strcmp(argv[1], "error");
    double *b = malloc(8 * sizeof *b);
    int *n = malloc(4 * sizeof *n);
    double sum = 0;
    for (int k = 0; k < ROUNDS; k++) {
        if (rank == 0)
            for (int i = 0; i < 8; i++) b[i] = k + i;
        MPI_Bcast(b, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* MEMCHECK-CALL */
        if (rank == 1) {
            if (k % 2) {
                reset_first(b);
                for (int i = 1; i < 8; i++) sum += b[i];
            } else {
                reset_last(b);
                for (int i = 0; i < 7; i++) sum += b[i];
            }
        }
        if (rank == 0) {
            for (int i = 0; i < 4; i++) n[i] = k * i;
            MPI_Send(n, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(n, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MEMCHECK-CALL */
            sum += n[0];
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (error) {
        int *e = malloc(sizeof *e);
        if (rank == 0) {
            MPI_Request req;
            *e = 42;
            MPI_Isend(e, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &req); /* MEMCHECK-CALL */
            *e = 43; /* MEMCHECK-ACCESS */
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(e, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += *e;
        }
        free(e);
        MPI_Barrier(MPI_COMM_WORLD); /* under --memcheck-fatal rank 0 never comes: rank 1 stops here */
    }
    if (rank == 1) printf("rank 1 sum %g\n", sum);
    free(n);
    free(b);
    MPI_Finalize();
    return 0;
}

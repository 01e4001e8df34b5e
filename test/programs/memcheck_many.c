/* memcheck_many.c - many small nonblocking messages, for memcheck's sampling: ranks 0 and 1
 * bounce an 8-byte message ITERS times (argv[1], default 20000) with MPI_Irecv/MPI_Isend +
 * MPI_Wait, each reading what it received. Correct: memcheck must find nothing. Rank 0 prints
 * "memcheck_many ok sum=<S>". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    long iters = argc > 1 ? atol(argv[1]) : 20000, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long *out = malloc(sizeof *out), *in = malloc(sizeof *in);
    MPI_Request r;
    for (long i = 0; i < iters && rank < 2; i++) {
        *out = i;
        if (rank == 0) {
            MPI_Isend(out, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            MPI_Irecv(in, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            MPI_Irecv(in, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            MPI_Isend(out, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        sum += *in;
    }
    if (rank == 0) printf("memcheck_many ok sum=%ld\n", sum);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}

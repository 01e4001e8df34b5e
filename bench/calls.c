/* calls.c - the cost of a tool per MPI call, without a network: one process calls MPI_Send to
 * MPI_PROC_NULL `iters` times (argv[1], default 10000000; MPI returns at once) and prints
 *     calls iters=<n> ns_per_call=<float>
 * Any -np works; every rank does the same, rank 0 prints. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    long iters = argc > 1 ? atol(argv[1]) : 10000000;
    char buf[8] = { 0 };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (long i = 0; i < 100000; i++) MPI_Send(buf, 8, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD); /* warm-up */
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) MPI_Send(buf, 8, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    if (rank == 0) printf("calls iters=%ld ns_per_call=%.2f\n", iters, t * 1e9 / (double) iters);
    MPI_Finalize();
    return 0;
}

/* alltoall.c - collective micro-benchmark used to measure the monitor tool's cost.
 * Every rank calls MPI_Alltoall with `bytes` bytes per peer (argv[2], default 8)
 * `iters` times (argv[1], default 20000) after 200 warm-up calls. The timed loop
 * sits between two barriers, so all ranks start together; each rank's time
 * covers the whole loop and the slowest rank's time (MPI_Reduce, MPI_MAX) is
 * what counts, since a collective is only done when every rank is. Rank 0
 * prints one machine-readable line:
 *     alltoall bytes_per_peer=<bytes> iters=<n> ns_per_call=<float>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, nranks;
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    int bytes = argc > 2 ? atoi(argv[2]) : 8;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (iters < 1 || bytes < 1) {
        if (rank == 0)
            fprintf(stderr, "alltoall: need iters >= 1, bytes >= 1\n");
        MPI_Finalize();
        return 1;
    }
    /* send and receive buffers hold `bytes` per peer */
    char *sbuf = calloc((size_t)bytes * nranks, 1);
    char *rbuf = calloc((size_t)bytes * nranks, 1);
    if (!sbuf || !rbuf)
        MPI_Abort(MPI_COMM_WORLD, 2);

    for (long i = 0; i < 200; i++) /* warm-up: connections, caches */
        MPI_Alltoall(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, MPI_COMM_WORLD);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++)
        MPI_Alltoall(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    if (rank == 0)
        printf("alltoall bytes_per_peer=%d iters=%ld ns_per_call=%.1f\n", bytes, iters,
               tmax * 1e9 / (double)iters);
    fflush(stdout);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}

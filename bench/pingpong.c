/* pingpong.c - latency micro-benchmark used to measure mpii's overhead.
 * Ranks 0 and 1 bounce a `size`-byte message (argv[2], default 8) back and
 * forth `iters` times (argv[1], default 200000) after argv[3] (default 1000) warm-up rounds;
 * other ranks just wait at the final barrier. Rank 0 prints one
 * machine-readable line:
 *     pingpong size=<bytes> iters=<n> half_rtt_ns=<float>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "pingpong.h"

static void bounce(int rank, char *buf, int size, long n) { PP_ROUND_TRIPS(MPI_Send, MPI_Recv, rank, buf, size, n) }

int main(int argc, char **argv)
{
    int rank, nranks;
    long iters = argc > 1 ? atol(argv[1]) : 200000;
    int size = argc > 2 ? atoi(argv[2]) : 8;
    long warmup = argc > 3 ? atol(argv[3]) : 1000; /* fewer for large messages on a slow link */

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks < 2 || iters < 1 || size < 0) {
        if (rank == 0)
            fprintf(stderr, "pingpong: need >= 2 ranks, iters >= 1, size >= 0\n");
        MPI_Finalize();
        return 1;
    }
    char *buf = calloc((size_t)size + 1, 1);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 2);

    if (rank < 2) {
        bounce(rank, buf, size, warmup); /* warm-up: connections, caches */
        double t0 = MPI_Wtime();
        bounce(rank, buf, size, iters);
        double t = MPI_Wtime() - t0;
        if (rank == 0)
            printf("pingpong size=%d iters=%ld half_rtt_ns=%.1f\n", size, iters,
                   t * 1e9 / (2.0 * (double)iters));
    }
    fflush(stdout);
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}

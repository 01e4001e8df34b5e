/* pingpong_plain.c - the per-call cost of a preloaded stack as a user's own ping-pong measures it.
 *
 * Written the plain way, unlike pingpong_paired.c: MPI_Send/MPI_Recv called directly from one call
 * site in one function, PMPI_Send/PMPI_Recv directly from another, chunks of `chunk` round trips,
 * the two kinds of chunk alternating in a fixed order. Its ratios are what a user who writes this
 * first gets, so the stacks' cost goals must hold on it too. `order` says which kind of chunk comes
 * first in a pair (mpi: the stack's, pmpi: the library's, random: drawn alike on both ranks, as
 * pingpong_paired does); a run without mpii (MPI_ is the library then too) shows what the method
 * itself reads as cost: its null ratio.
 *
 * usage: pingpong_plain [pairs=200] [chunk=1000] [size=8] [order=mpi|pmpi|random]
 * Rank 0 prints one line:
 *   pingpong_plain size=<B> chunk=<n> pairs=<n> order=<o> direct_ns=<f> stack_ns=<f> ratio=<f> ratio_q1=<f> ratio_q3=<f>
 * ratio: median over the pairs of (MPI_ chunk time / PMPI_ chunk time); *_ns: median half round trip. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "quantile.h"

static double chunk_mpi(int rank, char *buf, int size, long n)
{
    double t0 = PMPI_Wtime();
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return PMPI_Wtime() - t0;
}

static double chunk_pmpi(int rank, char *buf, int size, long n)
{
    double t0 = PMPI_Wtime();
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            PMPI_Send(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            PMPI_Recv(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            PMPI_Recv(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            PMPI_Send(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return PMPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    int pairs = argc > 1 ? atoi(argv[1]) : 200;
    long chunk = argc > 2 ? atol(argv[2]) : 1000;
    int size = argc > 3 ? atoi(argv[3]) : 8, rank, nranks;
    const char *order = argc > 4 ? argv[4] : "mpi";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int random = strcmp(order, "random") == 0, pmpi_first = strcmp(order, "pmpi") == 0;
    if (nranks < 2 || pairs < 1 || chunk < 1 || size < 0 || (!random && !pmpi_first && strcmp(order, "mpi") != 0)) {
        if (rank == 0) fprintf(stderr, "pingpong_plain: need >= 2 ranks, pairs >= 1, chunk >= 1, size >= 0, order mpi|pmpi|random\n");
        MPI_Finalize();
        return 1;
    }
    char *buf = calloc((size_t) size + 1, 1);
    double *direct = malloc(sizeof(double) * (size_t) pairs), *stack = malloc(sizeof(double) * (size_t) pairs);
    double *ratio = malloc(sizeof(double) * (size_t) pairs);
    if (!buf || !direct || !stack || !ratio) MPI_Abort(MPI_COMM_WORLD, 2);
    if (rank < 2) {
        chunk_mpi(rank, buf, size, chunk); /* warm-up */
        chunk_pmpi(rank, buf, size, chunk);
        uint64_t rng = 0x9E3779B97F4A7C15ull;
        for (int p = 0; p < pairs; p++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            int mpi_first = random ? (int) (rng >> 63) : !pmpi_first;
            if (mpi_first) {
                stack[p] = chunk_mpi(rank, buf, size, chunk);
                direct[p] = chunk_pmpi(rank, buf, size, chunk);
            } else {
                direct[p] = chunk_pmpi(rank, buf, size, chunk);
                stack[p] = chunk_mpi(rank, buf, size, chunk);
            }
            ratio[p] = stack[p] / direct[p];
        }
    }
    if (rank == 0) {
        double q1 = quantile(ratio, pairs, 0.25), q3 = quantile(ratio, pairs, 0.75), r = quantile(ratio, pairs, 0.5);
        double d = quantile(direct, pairs, 0.5) / (2.0 * chunk) * 1e9, s = quantile(stack, pairs, 0.5) / (2.0 * chunk) * 1e9;
        printf("pingpong_plain size=%d chunk=%ld pairs=%d order=%s direct_ns=%.1f stack_ns=%.1f ratio=%.4f ratio_q1=%.4f ratio_q3=%.4f\n",
               size, chunk, pairs, order, d, s, r, q1, q3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf), free(direct), free(stack), free(ratio);
    MPI_Finalize();
    return 0;
}

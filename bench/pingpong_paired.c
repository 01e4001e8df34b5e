/* pingpong_paired.c - what a preloaded stack adds to a ping-pong, measured side by side in one run.
 *
 * Ranks 0 and 1 bounce a `size`-byte message in chunks of `chunk` round trips. The chunks come
 * in pairs: one chunk calls MPI_Send/MPI_Recv (through whatever is preloaded: mpii's shim and
 * its tools), the other PMPI_Send/PMPI_Recv (the MPI library directly: mpii's shim defines no
 * PMPI_ symbols, so these calls pass no tool). Which one runs first in a pair is drawn from a
 * generator both ranks seed alike, so they always agree without talking. The two chunks of a
 * pair run a millisecond apart on the same cores, caches and host placement: their ratio is
 * the stack's cost without the run-to-run swings of a shared VM (whole runs land ~2x slower
 * now and then), and the median over the pairs leaves out pairs a time slice cut through.
 *
 * usage: pingpong_paired [pairs=200] [chunk=1000] [size=8]
 * Rank 0 prints one machine-readable line:
 *   pingpong_paired size=<B> chunk=<n> pairs=<n> direct_ns=<f> stack_ns=<f> ratio=<f> ratio_q1=<f> ratio_q3=<f>
 * direct_ns/stack_ns: median half round trip of each kind of chunk; ratio: median over the pairs
 * of (stack chunk / direct chunk), q1/q3 its quartiles. Other ranks wait at the final barrier. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "quantile.h"

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);

/* One chunk of round trips; rank 0's wall time in seconds (PMPI_Wtime: no tool sees the clock). */
static double bounce(int rank, char *buf, int size, long n, send_fn send, recv_fn recv)
{
    double t0 = PMPI_Wtime();
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            send(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            recv(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            recv(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            send(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return PMPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    int pairs = argc > 1 ? atoi(argv[1]) : 200;
    long chunk = argc > 2 ? atol(argv[2]) : 1000;
    int size = argc > 3 ? atoi(argv[3]) : 8, rank, nranks;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks < 2 || pairs < 1 || chunk < 1 || size < 0) {
        if (rank == 0) fprintf(stderr, "pingpong_paired: need >= 2 ranks, pairs >= 1, chunk >= 1, size >= 0\n");
        MPI_Finalize();
        return 1;
    }
    char *buf = calloc((size_t) size + 1, 1);
    double *direct = malloc(sizeof(double) * (size_t) pairs), *stack = malloc(sizeof(double) * (size_t) pairs);
    double *ratio = malloc(sizeof(double) * (size_t) pairs);
    if (!buf || !direct || !stack || !ratio) MPI_Abort(MPI_COMM_WORLD, 2);

    if (rank < 2) {
        bounce(rank, buf, size, chunk, MPI_Send, MPI_Recv); /* warm-up: connections, caches, */
        bounce(rank, buf, size, chunk, PMPI_Send, PMPI_Recv); /* the tools' call sites */
        uint64_t rng = 0x9E3779B97F4A7C15ull;
        for (int p = 0; p < pairs; p++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17; /* the same draw on both ranks */
            if (rng & 1) {
                stack[p] = bounce(rank, buf, size, chunk, MPI_Send, MPI_Recv);
                direct[p] = bounce(rank, buf, size, chunk, PMPI_Send, PMPI_Recv);
            } else {
                direct[p] = bounce(rank, buf, size, chunk, PMPI_Send, PMPI_Recv);
                stack[p] = bounce(rank, buf, size, chunk, MPI_Send, MPI_Recv);
            }
            ratio[p] = stack[p] / direct[p];
        }
    }
    if (rank == 0) {
        double half = 1e9 / (2.0 * (double) chunk); /* seconds per chunk -> ns per half round trip */
        double r1 = quantile(ratio, pairs, 0.25), r3 = quantile(ratio, pairs, 0.75), r = quantile(ratio, pairs, 0.5);
        printf("pingpong_paired size=%d chunk=%ld pairs=%d direct_ns=%.1f stack_ns=%.1f ratio=%.4f ratio_q1=%.4f ratio_q3=%.4f\n",
               size, chunk, pairs, quantile(direct, pairs, 0.5) * half, quantile(stack, pairs, 0.5) * half, r, r1, r3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf), free(direct), free(stack), free(ratio);
    MPI_Finalize();
    return 0;
}

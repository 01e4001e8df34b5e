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
#include <stdint.h>
#include <stdio.h>
#include "pingpong.h"

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);

/* One chunk of round trips through send and recv. */
static double bounce(int rank, char *buf, int size, long n, send_fn send, recv_fn recv)
{
    double t0 = PMPI_Wtime();
    PP_ROUND_TRIPS(send, recv, rank, buf, size, n)
    return PMPI_Wtime() - t0;
}

static double stack_chunk(int rank, char *buf, int size, long n) { return bounce(rank, buf, size, n, MPI_Send, MPI_Recv); }
static double direct_chunk(int rank, char *buf, int size, long n) { return bounce(rank, buf, size, n, PMPI_Send, PMPI_Recv); }
static int low_bit(uint64_t draw) { return (int) (draw & 1); }

int main(int argc, char **argv)
{
    struct pp_run r;
    if (pp_init(&r, &argc, &argv)) {
        if (r.rank == 0) fprintf(stderr, "pingpong_paired: need >= 2 ranks, pairs >= 1, chunk >= 1, size >= 0\n");
        MPI_Finalize();
        return 1;
    }
    pp_pairs(&r, stack_chunk, direct_chunk, low_bit);
    if (r.rank == 0) {
        double half = 1e9 / (2.0 * (double) r.chunk); /* seconds per chunk -> ns per half round trip */
        double r1 = quantile(r.ratio, r.pairs, 0.25), r3 = quantile(r.ratio, r.pairs, 0.75), m = quantile(r.ratio, r.pairs, 0.5);
        printf("pingpong_paired size=%d chunk=%ld pairs=%d direct_ns=%.1f stack_ns=%.1f ratio=%.4f ratio_q1=%.4f ratio_q3=%.4f\n", r.size, r.chunk,
               r.pairs, quantile(r.direct, r.pairs, 0.5) * half, quantile(r.stack, r.pairs, 0.5) * half, m, r1, r3);
    }
    pp_finish(&r);
    return 0;
}

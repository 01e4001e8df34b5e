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
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "pingpong.h"

/* The two kinds of chunk on purpose apart, each calling its functions by name (PP_ROUND_TRIPS
 * expands to direct calls): a user's ping-pong calls MPI_Send, not a pointer to it. */
static double chunk_mpi(int rank, char *buf, int size, long n)
{
    double t0 = PMPI_Wtime();
    PP_ROUND_TRIPS(MPI_Send, MPI_Recv, rank, buf, size, n)
    return PMPI_Wtime() - t0;
}

static double chunk_pmpi(int rank, char *buf, int size, long n)
{
    double t0 = PMPI_Wtime();
    PP_ROUND_TRIPS(PMPI_Send, PMPI_Recv, rank, buf, size, n)
    return PMPI_Wtime() - t0;
}

static int random_order, pmpi_first;
static int mpi_first(uint64_t draw) { return random_order ? (int) (draw >> 63) : !pmpi_first; }

int main(int argc, char **argv)
{
    const char *order = argc > 4 ? argv[4] : "mpi";
    struct pp_run r;
    int bad = pp_init(&r, &argc, &argv);
    random_order = strcmp(order, "random") == 0, pmpi_first = strcmp(order, "pmpi") == 0;
    if (bad || (!random_order && !pmpi_first && strcmp(order, "mpi") != 0)) {
        if (r.rank == 0) fprintf(stderr, "pingpong_plain: need >= 2 ranks, pairs >= 1, chunk >= 1, size >= 0, order mpi|pmpi|random\n");
        MPI_Finalize();
        return 1;
    }
    pp_pairs(&r, chunk_mpi, chunk_pmpi, mpi_first);
    if (r.rank == 0) {
        double q1 = quantile(r.ratio, r.pairs, 0.25), q3 = quantile(r.ratio, r.pairs, 0.75), m = quantile(r.ratio, r.pairs, 0.5);
        double d = quantile(r.direct, r.pairs, 0.5) / (2.0 * r.chunk) * 1e9, s = quantile(r.stack, r.pairs, 0.5) / (2.0 * r.chunk) * 1e9;
        printf("pingpong_plain size=%d chunk=%ld pairs=%d order=%s direct_ns=%.1f stack_ns=%.1f ratio=%.4f ratio_q1=%.4f ratio_q3=%.4f\n", r.size,
               r.chunk, r.pairs, order, d, s, m, q1, q3);
    }
    pp_finish(&r);
    return 0;
}

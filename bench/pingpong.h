/* pingpong.h - the ping-pong of the bench programs: the round trips (bench/pingpong.c and the two
 * programs below), and the pairs of chunks that pingpong_paired.c and pingpong_plain.c time side by
 * side. Header-only: each program is compiled alone from its one .c file (mpicc bench/X.c).
 *
 * PP_ROUND_TRIPS is a macro, not a function taking the send and receive as pointers, so that a
 * program can name MPI_Send or PMPI_Send and get a direct call at one call site per expansion:
 * pingpong_plain.c measures the calls as a user's own code makes them. */
#ifndef MPII_BENCH_PINGPONG_H
#define MPII_BENCH_PINGPONG_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include "quantile.h"

/* n round trips of a size-byte message between ranks 0 and 1 through SEND and RECV. */
#define PP_ROUND_TRIPS(SEND, RECV, rank, buf, size, n)                                                                 \
    for (long pp_i = 0; pp_i < (n); pp_i++) {                                                                          \
        if ((rank) == 0) {                                                                                             \
            SEND(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);                                                           \
            RECV(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);                                        \
        } else {                                                                                                       \
            RECV(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);                                        \
            SEND(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);                                                           \
        }                                                                                                              \
    }

/* A run of pairs of chunks: the arguments [pairs=200] [chunk=1000] [size=8], the message, and per
 * pair the time of the chunk through the stack (MPI_), of the chunk through the library (PMPI_),
 * and their ratio. */
struct pp_run {
    int pairs, size, rank, nranks;
    long chunk;
    char *buf;
    double *direct, *stack, *ratio;
};

/* One chunk of round trips; rank 0's wall time in seconds (PMPI_Wtime: no tool sees the clock). */
typedef double (*pp_chunk_fn)(int rank, char *buf, int size, long n);

/* MPI_Init and the arguments; 0 when they are usable (else the caller says why and ends). */
static inline int pp_init(struct pp_run *r, int *argc, char ***argv)
{
    r->pairs = *argc > 1 ? atoi((*argv)[1]) : 200;
    r->chunk = *argc > 2 ? atol((*argv)[2]) : 1000;
    r->size = *argc > 3 ? atoi((*argv)[3]) : 8;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r->nranks);
    return r->nranks < 2 || r->pairs < 1 || r->chunk < 1 || r->size < 0;
}

/* The warm-up chunks (connections, caches, the tools' call sites), then the pairs: which chunk of a
 * pair runs first, stack_first(draw), takes a draw of a generator both ranks seed alike, so they
 * always agree without talking. Ranks past 1 take no part. */
static inline void pp_pairs(struct pp_run *r, pp_chunk_fn stack, pp_chunk_fn direct, int (*stack_first)(uint64_t draw))
{
    r->buf = calloc((size_t) r->size + 1, 1);
    r->direct = malloc(sizeof(double) * (size_t) r->pairs), r->stack = malloc(sizeof(double) * (size_t) r->pairs);
    r->ratio = malloc(sizeof(double) * (size_t) r->pairs);
    if (!r->buf || !r->direct || !r->stack || !r->ratio) MPI_Abort(MPI_COMM_WORLD, 2);
    if (r->rank >= 2) return;
    stack(r->rank, r->buf, r->size, r->chunk);
    direct(r->rank, r->buf, r->size, r->chunk);
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    for (int p = 0; p < r->pairs; p++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        if (stack_first(rng)) {
            r->stack[p] = stack(r->rank, r->buf, r->size, r->chunk);
            r->direct[p] = direct(r->rank, r->buf, r->size, r->chunk);
        } else {
            r->direct[p] = direct(r->rank, r->buf, r->size, r->chunk);
            r->stack[p] = stack(r->rank, r->buf, r->size, r->chunk);
        }
        r->ratio[p] = r->stack[p] / r->direct[p];
    }
}

/* The final barrier (other ranks wait there), the buffers freed, MPI_Finalize. */
static inline void pp_finish(struct pp_run *r)
{
    MPI_Barrier(MPI_COMM_WORLD);
    free(r->buf), free(r->direct), free(r->stack), free(r->ratio);
    MPI_Finalize();
}

#endif

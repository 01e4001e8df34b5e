/* What every overlap_*.c test program shares: its rank, the checksum of the values it checked
 * (so runs with and without mpii can be compared line by line), and how it fails: one line
 * naming the program, the rank and the difference, then MPI_Abort.
 * Define OVERLAP_PROGRAM ("overlap_x") before including it. */
#ifndef OVERLAP_CHECK_H
#define OVERLAP_CHECK_H
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int g_rank;
static unsigned long long g_ck = 14695981039346656037ULL; /* FNV-1a 64 of every checked value */

static inline void ck_mix(unsigned long long v)
{
    for (int i = 0; i < 8; i++) {
        g_ck ^= (v >> (8 * i)) & 0xffu;
        g_ck *= 1099511628211ULL;
    }
}

static inline void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void die(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, OVERLAP_PROGRAM " rank %d: %s\n", g_rank, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* element i of `what` must be exp; the value goes into the checksum */
static inline void check_int(const char *what, long i, long long exp, long long got)
{
    if (exp != got)
        die("expected %lld got %lld at %s[%ld]", exp, got, what, i);
    ck_mix((unsigned long long)got);
}

/* MPI_Init, this rank in g_rank; returns the number of ranks, which must be even when `pairs` (the
 * programs that exchange with rank ^ 1). */
static inline int overlap_init(int *argc, char ***argv, int pairs)
{
    int size;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (pairs && size % 2 != 0)
        die("needs an even number of processes, got %d", size);
    return size;
}

/* argv[1] as a count of iterations (else `dflt`), at least 1 */
static inline int overlap_iters(int argc, char **argv, int dflt)
{
    int iters = argc > 1 ? atoi(argv[1]) : dflt;
    return iters < 1 ? 1 : iters;
}

/* The last line of a run that passed (the rank, OK, the checksum), then MPI_Finalize. */
static inline int overlap_pass(void)
{
    printf(OVERLAP_PROGRAM " rank %d: OK %016llx\n", g_rank, g_ck);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}

#define SENTINEL(i) (-1 - (i))
/* Blocking exchange of n ints with `partner` (even ranks send first): the pattern overlap
 * converts, shared by the programs that exchange in pairs. */
static inline void pair_exchange(const int *sb, int *rb, int n, int partner, int tag, MPI_Comm comm)
{
    if (g_rank % 2 == 0) {
        MPI_Send(sb, n, MPI_INT, partner, tag, comm);
        MPI_Recv(rb, n, MPI_INT, partner, tag, comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(rb, n, MPI_INT, partner, tag, comm, MPI_STATUS_IGNORE);
        MPI_Send(sb, n, MPI_INT, partner, tag, comm);
    }
}

/* The partner's message `tag` received into rb (n ints) by pair_exchange, from a send buffer of its
 * own whose element i is msg(g_rank, tag, i). */
static inline void pair_exchange_msg(int *rb, int n, int tag, int partner, MPI_Comm comm, int (*msg)(int, int, int))
{
    int *sb = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        sb[i] = msg(g_rank, tag, i);
    pair_exchange(sb, rb, n, partner, tag, comm);
    free(sb);
}

#endif

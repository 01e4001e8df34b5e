/* What every overlap_*.c test program shares: its rank, the checksum of the values it checked
 * (so runs with and without mpii can be compared line by line), and how it fails: one line
 * naming the program, the rank and the difference, then MPI_Abort.
 * Define OVERLAP_PROGRAM ("overlap_x") before including it. */
#ifndef OVERLAP_CHECK_H
#define OVERLAP_CHECK_H
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>

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

#endif

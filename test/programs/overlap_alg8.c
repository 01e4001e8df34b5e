/* overlap_alg8.c - the failure case of Natvig's chaining method
 * ("Algorithm 8") as a test (overlap tool test).
 *
 * Usage: overlap_alg8 [iters=10]          -np 2 or 3 (any np >= 1 works).
 *
 * Four unsigned 64-bit variables a, b, c, d, each in its own heap buffer
 * malloc'd after MPI_Init; a = 1, c = 2, b = d = 0. Every iteration:
 *     send c to rank+1;   recv d from rank+1;
 *     c = a;  a = c + d + b;
 *     send a to rank-1;   recv b from rank-1;
 * After the loop b is read (first) and printed as the checksum.
 *
 * Topology: a NON-periodic line: rank+1 of the last rank and rank-1 of rank
 * 0 are MPI_PROC_NULL (as in the thesis). A periodic ring would deadlock
 * even without the tool: every rank would wait in "recv d" for its right
 * neighbour, which sends a only after its own "recv d". On the line the last
 * rank's "recv d" returns at once and the chain unwinds leftwards.
 *
 * Why it breaks chaining: after a few iterations the learned chain is
 * SendA -> RecvB -> SendC -> RecvD -> (compute touches d). On the last
 * iteration RecvB is started in place expecting SendC/RecvD to follow, but
 * the loop exits and the program reads b: a tool that trusts the chain
 * prints a stale b. The paging method alone must get it right (reading b
 * faults and waits). Expected values come from a sequential simulation of
 * all ranks in the same program (exact unsigned arithmetic, wrapping).
 * Success: "overlap_alg8 rank R: OK <b as 16 hex digits>" on every rank.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define OVERLAP_PROGRAM "overlap_alg8"
#include "overlap_check.h"

typedef unsigned long long u64;


enum { TAG_C = 1, TAG_A = 2 };

int main(int argc, char **argv)
{
    int size, iters = 10;

    size = overlap_init(&argc, &argv, 0);
    iters = overlap_iters(argc, argv, iters);
    const int right = g_rank + 1 < size ? g_rank + 1 : MPI_PROC_NULL;
    const int left = g_rank > 0 ? g_rank - 1 : MPI_PROC_NULL;

    u64 *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    u64 *c = malloc(sizeof *c), *d = malloc(sizeof *d);
    if (!a || !b || !c || !d)
        die("malloc failed");
    *a = 1;
    *c = 2;
    *b = 0;
    *d = 0;

    for (int it = 0; it < iters; it++) {
        MPI_Send(c, 1, MPI_UNSIGNED_LONG_LONG, right, TAG_C, MPI_COMM_WORLD);
        MPI_Recv(d, 1, MPI_UNSIGNED_LONG_LONG, right, TAG_A, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        *c = *a;
        *a = *c + *d + *b;
        MPI_Send(a, 1, MPI_UNSIGNED_LONG_LONG, left, TAG_A, MPI_COMM_WORLD);
        MPI_Recv(b, 1, MPI_UNSIGNED_LONG_LONG, left, TAG_C, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    const u64 bv = *b; /* the first access after the loop, as in the thesis */

    /* Sequential simulation of all ranks. */
    u64 *sa = malloc(size * sizeof(u64)), *sb = malloc(size * sizeof(u64));
    u64 *sc = malloc(size * sizeof(u64)), *sd = malloc(size * sizeof(u64));
    u64 *cold = malloc(size * sizeof(u64));
    for (int r = 0; r < size; r++) {
        sa[r] = 1;
        sc[r] = 2;
        sb[r] = sd[r] = 0;
    }
    for (int it = 0; it < iters; it++) {
        for (int r = 0; r < size; r++)
            cold[r] = sc[r]; /* "send c to rank+1" happens first everywhere */
        for (int r = size - 1; r >= 0; r--) { /* d needs rank+1's new a */
            if (r + 1 < size)
                sd[r] = sa[r + 1];
            sc[r] = sa[r];
            sa[r] = sc[r] + sd[r] + sb[r];
        }
        for (int r = 1; r < size; r++)
            sb[r] = cold[r - 1];
    }

    if (bv != sb[g_rank])
        die("expected b=%llu got b=%llu at the end of %d iterations", sb[g_rank], bv, iters);
    if (*a != sa[g_rank] || *c != sc[g_rank] || *d != sd[g_rank])
        die("expected a,c,d=%llu,%llu,%llu got %llu,%llu,%llu at the end of %d iterations",
            sa[g_rank], sc[g_rank], sd[g_rank], *a, *c, *d, iters);

    printf("overlap_alg8 rank %d: OK %016llx\n", g_rank, bv);
    fflush(stdout);
    free(a);
    free(b);
    free(c);
    free(d);
    free(sa);
    free(sb);
    free(sc);
    free(sd);
    free(cold);
    MPI_Finalize();
    return 0;
}

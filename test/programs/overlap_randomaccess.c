/* overlap_randomaccess.c - the pattern of HPCC's MPIRandomAccess on a power of two of ranks, for
 * the overlap tool's adaptive give-up rule (issue 22): many small messages from one call site, each
 * used the moment it arrives, no computation to hide them behind.
 *
 * Usage: overlap_randomaccess [iters=3000]   -np 2 (any even count).
 * Each iteration, every rank generates 64 pseudo-random updates, exchanges them with its partner
 * (rank ^ 1) through one MPI_Sendrecv into a heap buffer (page-exclusive under mpii), and at once
 * applies the partner's updates to its table (XOR into table[u % N], as RandomAccess does).
 * In the background the receive is touched as soon as MPI_Sendrecv returns: the method can only
 * add its costs, so `adaptive` must switch the site off after a few calls (the test checks the
 * counts: a handful of receives converted, the site given up), and the table must be the same.
 * Success: "overlap_randomaccess rank R: OK <checksum>" on every rank.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

#define OVERLAP_PROGRAM "overlap_randomaccess"
#include "overlap_check.h"

#define UPDATES 64
#define TABLE 4096

int main(int argc, char **argv)
{
    int size, iters = argc > 1 ? atoi(argv[1]) : 3000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2 || iters < 1) die("needs an even -np and iters >= 1");
    /* after MPI_Init and a page or more: on the page-exclusive heap, eligible for the background */
    uint64_t *out = malloc(1024 * sizeof *out), *in = malloc(1024 * sizeof *in);
    uint64_t *table = malloc(TABLE * sizeof *table);
    if (!out || !in || !table) die("out of memory");
    for (int i = 0; i < TABLE; i++) table[i] = (uint64_t) i;
    uint64_t ran = 0x9e3779b97f4a7c15ull * (uint64_t) (g_rank + 1);
    int partner = g_rank ^ 1;
    for (int it = 0; it < iters; it++) {
        for (int k = 0; k < UPDATES; k++) {
            ran = (ran << 1) ^ ((int64_t) ran < 0 ? 7u : 0u); /* RandomAccess's LFSR */
            out[k] = ran;
        }
        MPI_Sendrecv(out, UPDATES, MPI_UINT64_T, partner, 0, in, UPDATES, MPI_UINT64_T, partner, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int k = 0; k < UPDATES; k++) table[in[k] % TABLE] ^= in[k]; /* used at once */
    }
    for (int i = 0; i < TABLE; i += 61) ck_mix(table[i]);
    printf(OVERLAP_PROGRAM " rank %d: OK %016llx\n", g_rank, g_ck);
    free(out);
    free(in);
    free(table);
    MPI_Finalize();
    return 0;
}

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
 * Then, as in HPCC (which polls MPI_Testany for its updates: 68 million calls in a 2-rank run),
 * after a receive has left its status unread in the frame of a function that returned and a send
 * is still in flight (HPCC's other tests leave both), iters × POLLS calls of MPI_Testany (on an
 * inactive request): once the receives are done, they must not go through the tool's checks
 * (the test counts "calls checked"; a status remembered for ever, or a send in flight, sent
 * every poll through them).
 * Success: "overlap_randomaccess rank R: OK <checksum>" on every rank.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define OVERLAP_PROGRAM "overlap_randomaccess"
#include "overlap_check.h"

#define UPDATES 64
#define TABLE 4096
#define POLLS 4

/* One exchange with the partner whose status dies with this frame, unread. The odd rank comes
 * late, so the even rank's receive is still on its way when MPI_Sendrecv returns under mpii
 * (its status remembered until the receive is done). */
__attribute__((noinline)) static void exchange_status_unread(uint64_t *out, uint64_t *in, int partner)
{
    MPI_Status st;
    if (g_rank % 2) usleep(50000);
    MPI_Sendrecv(out, UPDATES, MPI_UINT64_T, partner, 1, in, UPDATES, MPI_UINT64_T, partner, 1, MPI_COMM_WORLD, &st);
}

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
    /* What HPCC's other tests leave behind: a status unread in a frame gone, */
    exchange_status_unread(out, in, partner);
    for (int k = 0; k < UPDATES; k++) table[in[k] % TABLE] ^= in[k];
    /* and a send in flight: the odd rank receives first, so its send is its last converted call,
     * pending until MPI_Finalize (nothing needs checking against a send: it is packed). */
    pair_exchange((const int *) out, (int *) in, 2 * UPDATES, partner, 2, MPI_COMM_WORLD);
    for (int k = 0; k < UPDATES; k++) table[in[k] % TABLE] ^= in[k];
    /* then the polling */
    MPI_Request idle = MPI_REQUEST_NULL;
    for (int p = 0; p < iters * POLLS; p++) {
        int index, flag;
        MPI_Status st;
        MPI_Testany(1, &idle, &index, &flag, &st);
        if (!flag || index != MPI_UNDEFINED) die("expected an inactive request got flag %d index %d", flag, index);
    }
    for (int i = 0; i < TABLE; i += 61) ck_mix(table[i]);
    printf(OVERLAP_PROGRAM " rank %d: OK %016llx\n", g_rank, g_ck);
    free(out);
    free(in);
    free(table);
    MPI_Finalize();
    return 0;
}

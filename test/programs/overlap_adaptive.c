/* overlap_adaptive.c - a receive whose wait the background method hides (overlap tool test).
 *
 * Usage: overlap_adaptive [iters=150]  -np 2.
 * Rank 0, each iteration: ~1 ms of work, then MPI_Send of message i (1024 ints, heap), then
 * MPI_Recv of rank 1's reply. Rank 1, each iteration: MPI_Recv of message i into its heap
 * buffer, ~1 ms of work that does not touch that buffer, MPI_Send of the reply, and only then
 * reads message i (checked, folded into the checksum).
 * Without the method rank 1 waits for message i before its work, so an iteration costs both
 * ranks' work (~2 ms); with the receive in the background rank 1 works while rank 0 does, and
 * reading the buffer after the reply finds the message there (~1 ms). So `adaptive` must keep
 * rank 1's receive site on: the test checks that most of its receives ran in the background.
 * Success: "overlap_adaptive rank R: OK <checksum>" on both ranks.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

#define OVERLAP_PROGRAM "overlap_adaptive"
#include "overlap_check.h"

#define N 1024

/* ~1 ms of work that touches no message buffer (a clock spin: the same on any machine load) */
static void work(void)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 1000000L);
}

int main(int argc, char **argv)
{
    int size, iters = argc > 1 ? atoi(argv[1]) : 150;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || iters < 1) die("needs -np 2 and iters >= 1");
    int *msg = malloc(N * sizeof *msg), *reply = malloc(N * sizeof *reply); /* after MPI_Init: page-exclusive */
    if (!msg || !reply) die("out of memory");
    for (int i = 0; i < iters; i++) {
        if (g_rank == 0) {
            work();
            for (int k = 0; k < N; k++) msg[k] = i * N + k;
            MPI_Send(msg, N, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(reply, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            check_int("reply", i, i, reply[0]);
        } else {
            MPI_Recv(msg, N, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            work();
            reply[0] = i;
            MPI_Send(reply, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
            for (int k = 0; k < N; k += 97) check_int("msg", k, (long long) i * N + k, msg[k]);
        }
    }
    printf(OVERLAP_PROGRAM " rank %d: OK %016llx\n", g_rank, g_ck);
    free(msg);
    free(reply);
    MPI_Finalize();
    return 0;
}

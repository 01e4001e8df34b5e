/* profile_sites.c - MPI calls at known places, for the profile tool. Every MPI call that the
 * test checks is on a line marked `site:<name>`; the test finds those lines in this file.
 *
 *   ring         ITERS × MPI_Send + MPI_Recv of 100 ints to the next / from the previous rank
 *   exchange()   one MPI_Sendrecv of 8 doubles, called from two places (sites differ only
 *                with a call-site stack depth of 2): 3 times from `first`, 2 times from `second`
 *   allreduce    5 × MPI_Allreduce of 4 doubles
 *   bcast        3 × MPI_Bcast of 16 bytes from rank 0
 *   barrier      1 MPI_Barrier after rank 0 slept SLEEP_MS: the others wait inside MPI
 *   hidden       MPI_Pcontrol(0), 7 × MPI_Barrier, MPI_Pcontrol(1): none of them recorded
 * Prints "profile_sites ok" from rank 0. Argument: ITERS (default 10). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SLEEP_MS 300

static void __attribute__((noinline)) exchange(int next, int prev)
{
    double out[8] = { 0 }, in[8];
    MPI_Sendrecv(out, 8, MPI_DOUBLE, next, 1, in, 8, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:exchange */
}

int main(int argc, char **argv)
{
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 10;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int msg[100] = { 0 };

    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(msg, 100, MPI_INT, next, 0, MPI_COMM_WORLD); /* site:ring-send-0 */
            MPI_Recv(msg, 100, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:ring-recv-0 */
        } else {
            MPI_Recv(msg, 100, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:ring-recv */
            MPI_Send(msg, 100, MPI_INT, next, 0, MPI_COMM_WORLD); /* site:ring-send */
        }
    }
    for (int i = 0; i < 3; i++) exchange(next, prev); /* site:first */
    for (int i = 0; i < 2; i++) exchange(next, prev); /* site:second */

    double v[4] = { 1, 2, 3, 4 }, sum[4];
    for (int i = 0; i < 5; i++) MPI_Allreduce(v, sum, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* site:allreduce */
    char text[16] = "hello";
    for (int i = 0; i < 3; i++) MPI_Bcast(text, 16, MPI_CHAR, 0, MPI_COMM_WORLD); /* site:bcast */

    if (rank == 0) {
        struct timespec ts = { 0, SLEEP_MS * 1000000L };
        nanosleep(&ts, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* site:barrier */

    MPI_Pcontrol(0);
    for (int i = 0; i < 7; i++) MPI_Barrier(MPI_COMM_WORLD); /* site:hidden */
    MPI_Pcontrol(1);

    if (rank == 0) printf("profile_sites ok\n");
    MPI_Finalize();
    return 0;
}

/* profile_sampled.c - receives whose time the program measures itself, for the profile tool's
 * sampled timing. Rank 0 sleeps ~1 ms before each of ITERS sends; rank 1 times each of its
 * receives with MPI_Wtime (not profiled) and prints "recv seconds <total>". The receives take
 * turns between two call sites of MPI_Recv, so each site's countdown must survive the other
 * site's calls. Then both ranks exchange HOT (default 100,000) 8-byte MPI_Sendrecv from one site
 * (site:hot): past its first timed calls a hot site is timed more rarely. Arguments: ITERS
 * (default 600), HOT. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Two functions with different tags: the compiler cannot fold them into one call site. */
static __attribute__((noinline)) void recv_even(double *v)
{
    MPI_Recv(v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static __attribute__((noinline)) void recv_odd(double *v)
{
    MPI_Recv(v, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank, iters = argc > 1 ? atoi(argv[1]) : 600, hot = argc > 2 ? atoi(argv[2]) : 100000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double v = 0, waited = 0;
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            struct timespec ts = { 0, 1000000L };
            nanosleep(&ts, NULL);
            MPI_Send(&v, 1, MPI_DOUBLE, 1, i % 2, MPI_COMM_WORLD);
        } else if (rank == 1) {
            double t = MPI_Wtime();
            if (i % 2 == 0) recv_even(&v);
            else recv_odd(&v);
            waited += MPI_Wtime() - t;
        }
    }
    if (rank == 1) printf("recv seconds %.6f\n", waited);
    double out = rank, in = 0;
    for (int i = 0; i < hot && rank < 2; i++)
        MPI_Sendrecv(&out, 1, MPI_DOUBLE, 1 - rank, 2, &in, 1, MPI_DOUBLE, 1 - rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:hot */
    MPI_Finalize();
    return 0;
}

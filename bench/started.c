/* bench/started.c - says when the rank started (milliseconds of the wall clock, before MPI_Init),
 * for bench/cold-build.mjs: the time a user waits for the first rank. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    printf("started %lld\n", (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
    fflush(stdout);
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}

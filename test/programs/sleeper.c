/* sleeper.c - an MPI job that runs until it is killed: used to check that mpii passes
 * SIGTERM on to the launcher and the whole job goes away. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("sleeper ready\n");
        fflush(stdout);
    }
    for (;;) {
        MPI_Barrier(MPI_COMM_WORLD);
        usleep(100000);
    }
    MPI_Finalize(); /* not reached */
    return 0;
}

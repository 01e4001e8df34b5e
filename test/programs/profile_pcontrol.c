/* profile_pcontrol.c - MPI_Pcontrol around phases, for the report's timeline. Every rank calls
 * MPI_Pcontrol with the levels 0, 1, 2, 0, 0, 1 in that order, a barrier and some traffic between
 * each (the phases); rank 0 then calls MPI_Pcontrol(1) EXTRA more times, beyond the events a rank
 * keeps (256): the report counts them as dropped. */
#include <mpi.h>

#define EXTRA 300

int main(int argc, char **argv)
{
    static const int levels[] = { 0, 1, 2, 0, 0, 1 };
    int rank;
    double x = 1, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (unsigned i = 0; i < sizeof levels / sizeof *levels; i++) {
        for (int k = 0; k < 10; k++) MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Pcontrol(levels[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < EXTRA && rank == 0; i++) MPI_Pcontrol(1);
    MPI_Finalize();
    return 0;
}

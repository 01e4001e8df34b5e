/* init_thread.c - initialises with MPI_Init_thread(MPI_THREAD_FUNNELED)
 * instead of MPI_Init, so a tool must intercept both entry points.
 * Checks provided >= FUNNELED (both MPIs grant at least that) and that an
 * Allreduce works afterwards. Rank 0 prints "init_thread ok provided=<p>".
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int provided = -1, rank, size, one = 1, sum = 0, ok, all_ok = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    ok = (sum == size) && (provided >= MPI_THREAD_FUNNELED);
    if (!ok)
        fprintf(stderr, "init_thread FAIL rank=%d sum=%d provided=%d\n", rank, sum, provided);

    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0 && all_ok)
        printf("init_thread ok provided=%d\n", provided);
    fflush(stdout);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}

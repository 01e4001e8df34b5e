/* split.c - communicator management.
 * MPI_Comm_split MPI_COMM_WORLD into even and odd ranks, Allreduce the world
 * ranks inside each half and check the sum, then MPI_Comm_dup the half,
 * check the dup has the same size/rank, and MPI_Comm_free both.
 * Exercises communicator creation/destruction paths a tool must track.
 * Rank 0 prints "split ok size=<N>".
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, ok = 1, all_ok = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int color = rank % 2;
    MPI_Comm half, dup;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);

    int hrank, hsize, sum = -1, expect = 0, nmembers = 0;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    for (int r = color; r < size; r += 2) { /* members of my half */
        expect += r;
        nmembers++;
    }
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
    /* key = world rank keeps order, so sub-rank is rank/2. */
    if (sum != expect || hsize != nmembers || hrank != rank / 2) {
        fprintf(stderr, "split FAIL rank=%d sum=%d/%d size=%d/%d\n", rank, sum, expect, hsize, nmembers);
        ok = 0;
    }

    MPI_Comm_dup(half, &dup);
    int drank, dsize;
    MPI_Comm_rank(dup, &drank);
    MPI_Comm_size(dup, &dsize);
    if (drank != hrank || dsize != hsize) {
        fprintf(stderr, "split FAIL rank=%d dup mismatch\n", rank);
        ok = 0;
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    if (dup != MPI_COMM_NULL || half != MPI_COMM_NULL) {
        fprintf(stderr, "split FAIL rank=%d comm_free did not null handle\n", rank);
        ok = 0;
    }

    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0 && all_ok)
        printf("split ok size=%d\n", size);
    fflush(stdout);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}

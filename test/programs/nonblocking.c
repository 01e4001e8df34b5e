/* nonblocking.c - nonblocking point-to-point and a nonblocking collective.
 *   1. MPI_Isend/MPI_Irecv exchange with both ring neighbours, MPI_Waitall.
 *   2. One Isend/Irecv pair completed by polling MPI_Test until done.
 *   3. MPI_Ibarrier completed with MPI_Wait.
 * Every rank verifies the payloads; verdicts are combined with Allreduce(MIN).
 * Rank 0 prints "nonblocking ok size=<N>".
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, ok = 1, all_ok = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;

    /* 1. Neighbour exchange: send rank to both sides, receive theirs.
     * Distinct tags keep the two messages apart when left == right (size 2)
     * or when both neighbours are ourselves (size 1). */
    int out = rank, from_left = -1, from_right = -1;
    MPI_Request reqs[4];
    MPI_Irecv(&from_left, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(&from_right, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &reqs[1]);
    MPI_Isend(&out, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &reqs[2]);
    MPI_Isend(&out, 1, MPI_INT, left, 2, MPI_COMM_WORLD, &reqs[3]);
    /* A real status array rather than MPI_STATUSES_IGNORE: with MPICH's
     * headers GCC >= 11 reports a bogus -Wstringop-overflow for the latter. */
    MPI_Status sts[4];
    MPI_Waitall(4, reqs, sts);
    if (from_left != left || from_right != right) {
        fprintf(stderr, "nonblocking FAIL rank=%d waitall got %d/%d\n", rank, from_left, from_right);
        ok = 0;
    }

    /* 2. Poll with MPI_Test so a profiler sees a burst of Test calls. */
    int val = rank * 7 + 1, got = -1, done = 0;
    MPI_Request r[2];
    MPI_Irecv(&got, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&val, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &r[1]);
    while (!done)
        MPI_Test(&r[0], &done, MPI_STATUS_IGNORE);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    if (got != left * 7 + 1) {
        fprintf(stderr, "nonblocking FAIL rank=%d test got %d\n", rank, got);
        ok = 0;
    }

    /* 3. Nonblocking barrier. */
    MPI_Request br;
    MPI_Ibarrier(MPI_COMM_WORLD, &br);
    MPI_Wait(&br, MPI_STATUS_IGNORE);

    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0 && all_ok)
        printf("nonblocking ok size=%d\n", size);
    fflush(stdout);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}

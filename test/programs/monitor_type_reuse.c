/* monitor_type_reuse.c - monitor's latest-send signature after MPI_Type_free.
 *
 * Rank 0 sends 3 messages of a 2-int contiguous type to rank 1 from one call site, frees the type,
 * makes a 4-int contiguous type (MPI often hands it the freed handle) and sends 3 more from the same
 * call site: monitor must count 3 x 8 + 3 x 16 = 72 bytes in 6 messages to rank 1, not 6 x 8.
 * Rank 0 prints whether the second type got the first one's handle (reused=1), which is the case
 * the test is about. Any -np >= 2; ranks above 1 only take part in the final barrier. */
#include <mpi.h>
#include <stdio.h>

static void send_three(MPI_Datatype t, const int *buf) /* one call site for both types */
{
    for (int i = 0; i < 3; i++) MPI_Send(buf, 1, t, 1, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, size, buf[4] = { 1, 2, 3, 4 }, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype two, four;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    MPI_Datatype first = two;
    if (rank == 0) send_three(two, buf);
    else if (rank == 1)
        for (int i = 0; i < 3; i++) MPI_Recv(buf, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&two);
    MPI_Type_contiguous(4, MPI_INT, &four);
    MPI_Type_commit(&four);
    if (rank == 0) send_three(four, buf);
    else if (rank == 1)
        for (int i = 0; i < 3; i++) {
            MPI_Recv(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            ok = ok && buf[3] == 4;
        }
    int reused = four == first;
    MPI_Type_free(&four);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) printf("monitor_type_reuse %s reused=%d size=%d\n", ok ? "ok" : "FAILED", reused, size);
    MPI_Finalize();
    return ok ? 0 : 1;
}

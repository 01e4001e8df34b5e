/* recv_unread_repeat.c - large receives, again and again, into one buffer the program does not
 * read between them (MPICH's test suite caught this under memcheck: a tool that guards received
 * data until its first read must open it before the next receive, because the library's
 * single-copy transfer (UCX's cma under MPICH, Open MPI's vader CMA: process_vm_readv into the
 * receiver's buffer) is the kernel writing it, and the kernel fails on a protected page (EFAULT)
 * instead of faulting). Rank 1 receives ROUNDS rendezvous-sized messages from rank 0 into one
 * buffer, by MPI_Recv and by MPI_Irecv + MPI_Wait in turn, and reads only the last; rank 0 checks
 * nothing but sends different contents each round. Correct program: a tool may at most advise
 * (memcheck's hint: received data overwritten before it was read).
 *
 * Usage: recv_unread_repeat              -np 2 (ranks above 1 only take part in the Barrier)
 * Success: "recv_unread_repeat ok rounds=<R> last=<V>" from rank 1; exit 1 on a wrong value.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 16384 /* ints: 64 KiB, above both MPIs' eager limits */
#define ROUNDS 12

int main(int argc, char **argv)
{
    int rank, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *buf = malloc(sizeof(int) * N);
    if (rank == 0) {
        for (int r = 0; r < ROUNDS; r++) {
            for (int i = 0; i < N; i++) buf[i] = r * N + i;
            MPI_Send(buf, N, MPI_INT, 1, r, MPI_COMM_WORLD);
        }
    } else if (rank == 1) {
        for (int r = 0; r < ROUNDS; r++) {
            if (r % 2) {
                MPI_Request req;
                MPI_Irecv(buf, N, MPI_INT, 0, r, MPI_COMM_WORLD, &req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, N, MPI_INT, 0, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
        for (int i = 0; i < N; i++) bad += buf[i] != (ROUNDS - 1) * N + i;
        if (!bad) printf("recv_unread_repeat ok rounds=%d last=%d\n", ROUNDS, buf[N - 1]);
        else fprintf(stderr, "recv_unread_repeat: %d wrong ints in the last message\n", bad);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    MPI_Finalize();
    return bad != 0;
}

/* A receive into the buffer of a pending send (MPICH's own test pt2pt/sendrecv3 does this with
 * 40,000 B messages): MPI forbids it (a send buffer must not be modified until the send
 * completes), but both MPIs run it. Rank 0 sends 40,000 B from a + 1 page to rank 1 and, while
 * that send is pending, receives a larger message from rank 1 into a (covering the pending send
 * buffer, whose first page is inside the received range). Then it tells rank 1 to go on (a small
 * message) and computes outside MPI while rank 1 receives the pending send: a rendezvous rank 1
 * completes with a single-copy read of rank 0's buffer (process_vm_readv: UCX's cma under MPICH,
 * vader's CMA under Open MPI) while rank 0 is not inside MPI.
 * memcheck must report the receive as an error (once per round, on rank 0) and must never make
 * that read fail: before the fix it watched the received data with PROT_NONE pages, the read
 * failed with EFAULT and UCX aborted the job (MPICH), Open MPI printed "Read -1 … errno = 14". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define N 10000   /* ints sent: 40,000 B, above both MPIs' eager limits */
#define OFF 1024  /* ints: the send starts one page into the received range */
#define ROUNDS 16 /* memcheck checks a call site's first 16 operations */

static void busy(void)
{
    volatile double s = 0; /* outside MPI, touching nothing the transfers use */
    for (int i = 0; i < 2000000; i++) s += (double) i * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "run with 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int *a = malloc((N + 2 * OFF) * sizeof *a), *b = malloc((N + 2 * OFF) * sizeof *b);
    long sum = 0;
    for (int round = 0; round < ROUNDS; round++) {
        int go = round;
        if (rank == 0) {
            MPI_Request r;
            for (int i = 0; i < N + 2 * OFF; i++) a[i] = round + i;
            MPI_Isend(a + OFF, N, MPI_INT, 1, 1, MPI_COMM_WORLD, &r); /* MEMCHECK-CALL */
            MPI_Recv(a, N + 2 * OFF, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MEMCHECK-ACCESS */
            MPI_Send(&go, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
            busy(); /* rank 1 reads the pending send now */
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            for (int i = 0; i < N + 2 * OFF; i++) sum += a[i];
        } else {
            for (int i = 0; i < N + 2 * OFF; i++) b[i] = 2 * i - round;
            MPI_Send(b, N + 2 * OFF, MPI_INT, 0, 2, MPI_COMM_WORLD);
            MPI_Recv(&go, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(b, N, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < N; i++) sum += b[i];
        }
    }
    /* rank 1 reads the pending send after rank 0's receive overwrote it, so it gets part of its
     * own message back (both MPIs send 40,000 B by rendezvous, not from a copy made at MPI_Isend) */
    printf("rank %d sum %ld\n", rank, sum);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}

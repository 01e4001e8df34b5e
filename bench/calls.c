/* calls.c - the cost of a tool per MPI call, without a network: one process calls MPI_Send to
 * MPI_PROC_NULL `iters` times (argv[1], default 10000000; MPI returns at once) and prints
 *     calls iters=<n> ns_per_call=<float>
 * With argv[2] = "self", each iteration is instead an 8-byte message to the rank itself: MPI_Isend,
 * MPI_Recv, MPI_Wait (the library's real point-to-point path, datatype size and all; ns_per_call
 * is then per iteration of three calls). With argv[2] = "poll", each iteration is one MPI_Testany
 * on an inactive request with a status: the polling call HPCC RandomAccess makes tens of millions
 * of times. argv[3]: the warm-up iterations before the timed loop (default 100000). Any -np
 * works; every rank does the same, rank 0 prints. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SEND = -1, POLL = -2 }; /* the modes other than "self" (which is the rank) */

static void once(char *buf, int self)
{
    if (self == POLL) {
        MPI_Request idle = MPI_REQUEST_NULL;
        MPI_Status st;
        int index, flag;
        MPI_Testany(1, &idle, &index, &flag, &st);
        return;
    }
    if (self == SEND) {
        MPI_Send(buf, 8, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        return;
    }
    char in[8];
    MPI_Request req;
    MPI_Isend(buf, 8, MPI_BYTE, self, 0, MPI_COMM_WORLD, &req); /* a blocking send to oneself may wait for the receive */
    MPI_Recv(in, 8, MPI_BYTE, self, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank;
    long iters = argc > 1 ? atol(argv[1]) : 10000000;
    char buf[8] = { 0 };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 2 ? argv[2] : "send";
    int self = strcmp(mode, "self") == 0 ? rank : strcmp(mode, "poll") == 0 ? POLL : SEND;
    long warmup = argc > 3 ? atol(argv[3]) : 100000;
    for (long i = 0; i < warmup; i++) once(buf, self);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) once(buf, self);
    double t = MPI_Wtime() - t0;
    if (rank == 0) printf("calls iters=%ld ns_per_call=%.2f\n", iters, t * 1e9 / (double) iters);
    MPI_Finalize();
    return 0;
}

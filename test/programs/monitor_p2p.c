/* monitor_p2p.c - user point-to-point traffic of every flavour, for the monitor fidelity test
 * (mpii's E lines must equal Open MPI's own pml monitoring on this program).
 *
 * Every rank talks to its ring neighbours (next = rank+1, prev = rank-1) with: blocking sends of
 * 0 B, 4 B and 1 MiB; a halo exchange of a 16x16 grid's column (derived vector type) and row with
 * MPI_Sendrecv; persistent Send_init/Ssend_init + Startall; Bsend, Ssend, Rsend (after a
 * handshake), Issend, Sendrecv_replace; wildcard receives at rank 0 (ANY_SOURCE/ANY_TAG) of
 * Isend/Irsend-free messages from everybody; traffic inside MPI_Comm_split and MPI_Comm_dup
 * communicators; sends to MPI_PROC_NULL (never counted). No collectives are called by the
 * program itself. Prints "monitor_p2p ok size=<N>" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 16
#define BIG (1 << 20)

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    char *big = calloc(BIG, 1), *big_in = calloc(BIG, 1);
    int token = rank, in = -1;

    /* 1. blocking ring: 0 B, 4 B, 1 MiB */
    MPI_Sendrecv(NULL, 0, MPI_BYTE, next, 1, NULL, 0, MPI_BYTE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 3; i++)
        MPI_Sendrecv(&token, 1, MPI_INT, next, 2, &in, 1, MPI_INT, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank % 2 == 0) {
        MPI_Send(big, BIG, MPI_CHAR, next, 3, MPI_COMM_WORLD);
        MPI_Recv(big_in, BIG, MPI_CHAR, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(big_in, BIG, MPI_CHAR, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(big, BIG, MPI_CHAR, next, 3, MPI_COMM_WORLD);
    }

    /* 2. halo exchange with a derived column type (16 doubles = 128 B) and a contiguous row */
    double grid[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) grid[i][j] = rank * 1000 + i * N + j;
    MPI_Datatype column;
    MPI_Type_vector(N, 1, N, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    MPI_Sendrecv(&grid[0][N - 2], 1, column, next, 4, &grid[0][0], 1, column, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&grid[N - 2][0], N, MPI_DOUBLE, next, 5, &grid[0][0], N, MPI_DOUBLE, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&column);

    /* 3. persistent requests, started 4 times: 10 ints to next, 3 doubles synchronous to prev */
    int pout[10] = { 0 }, pin[10];
    double sout[3] = { 1, 2, 3 }, sin_[3];
    MPI_Request pr[4];
    MPI_Send_init(pout, 10, MPI_INT, next, 6, MPI_COMM_WORLD, &pr[0]);
    MPI_Recv_init(pin, 10, MPI_INT, prev, 6, MPI_COMM_WORLD, &pr[1]);
    MPI_Ssend_init(sout, 3, MPI_DOUBLE, prev, 7, MPI_COMM_WORLD, &pr[2]);
    MPI_Recv_init(sin_, 3, MPI_DOUBLE, next, 7, MPI_COMM_WORLD, &pr[3]);
    for (int it = 0; it < 4; it++) {
        MPI_Startall(4, pr);
        MPI_Waitall(4, pr, MPI_STATUSES_IGNORE);
    }
    MPI_Start(&pr[0]); /* one more, alone */
    MPI_Start(&pr[1]);
    MPI_Wait(&pr[0], MPI_STATUS_IGNORE);
    MPI_Wait(&pr[1], MPI_STATUS_IGNORE);
    for (int i = 0; i < 4; i++) MPI_Request_free(&pr[i]);

    /* 4. buffered, synchronous, ready, nonblocking-synchronous, replace */
    int bsize = 0;
    MPI_Pack_size(5, MPI_INT, MPI_COMM_WORLD, &bsize);
    bsize += MPI_BSEND_OVERHEAD;
    void *bbuf = malloc((size_t) bsize);
    MPI_Buffer_attach(bbuf, bsize);
    int five[5] = { 0 }, five_in[5];
    MPI_Bsend(five, 5, MPI_INT, next, 8, MPI_COMM_WORLD);
    MPI_Recv(five_in, 5, MPI_INT, prev, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Buffer_detach(&bbuf, &bsize);
    free(bbuf);

    MPI_Request r;
    MPI_Irecv(five_in, 5, MPI_INT, prev, 9, MPI_COMM_WORLD, &r);
    if (rank % 2 == 0) MPI_Ssend(five, 5, MPI_INT, next, 9, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rank % 2 == 1) MPI_Ssend(five, 5, MPI_INT, next, 9, MPI_COMM_WORLD);

    MPI_Irecv(&in, 1, MPI_INT, prev, 10, MPI_COMM_WORLD, &r); /* ready send needs this first */
    MPI_Send(NULL, 0, MPI_BYTE, prev, 11, MPI_COMM_WORLD);    /* "my receive is posted" */
    MPI_Recv(NULL, 0, MPI_BYTE, next, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Rsend(&token, 1, MPI_INT, next, 10, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);

    MPI_Request rs[2];
    MPI_Irecv(big_in, 100, MPI_SHORT, next, 12, MPI_COMM_WORLD, &rs[0]);
    MPI_Issend(big, 100, MPI_SHORT, prev, 12, MPI_COMM_WORLD, &rs[1]);
    MPI_Waitall(2, rs, MPI_STATUSES_IGNORE);

    MPI_Sendrecv_replace(five, 5, MPI_INT, next, 13, prev, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    /* 5. wildcard receives: everybody else sends rank 0 two messages (8 B and 3000 B) */
    if (rank == 0) {
        for (int i = 0; i < 2 * (size - 1); i++)
            MPI_Recv(big_in, BIG, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Isend(big, 8, MPI_CHAR, 0, 14, MPI_COMM_WORLD, &rs[0]);
        MPI_Isend(big, 3000, MPI_CHAR, 0, 15, MPI_COMM_WORLD, &rs[1]);
        MPI_Waitall(2, rs, MPI_STATUSES_IGNORE);
    }

    /* 6. sub-communicators: ring inside each parity half (peers must be translated), and a dup */
    MPI_Comm half, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    if (hs > 1)
        MPI_Sendrecv(big, 64, MPI_BYTE, (hr + 1) % hs, 16, big_in, 64, MPI_BYTE, (hr + hs - 1) % hs, 16, half, MPI_STATUS_IGNORE);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Sendrecv(big, 7, MPI_BYTE, prev, 17, big_in, 7, MPI_BYTE, next, 17, dup, MPI_STATUS_IGNORE);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);

    /* 7. never counted: MPI_PROC_NULL */
    MPI_Send(big, 100, MPI_BYTE, MPI_PROC_NULL, 18, MPI_COMM_WORLD);
    MPI_Sendrecv(big, 100, MPI_BYTE, MPI_PROC_NULL, 18, big_in, 100, MPI_BYTE, MPI_PROC_NULL, 18, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    if (rank == 0) printf("monitor_p2p ok size=%d\n", size);
    free(big);
    free(big_in);
    MPI_Finalize();
    return 0;
}

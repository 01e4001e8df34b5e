/* monitor_coll.c - collectives, one-sided and inter-communicator traffic with known sizes, for
 * the monitor tool's accounting tests (test/monitor.test.ts computes the expected per-peer C/S/R
 * values and per-communicator totals from the same constants). Any number of ranks >= 2.
 * Prints "monitor_coll ok size=<N>" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int *ibuf = calloc(1024, sizeof(int)), *ibuf2 = calloc(1024, sizeof(int));
    double *dbuf = calloc(1024, sizeof(double)), *dbuf2 = calloc(1024, sizeof(double));
    int *counts = calloc((size_t) n, sizeof(int)), *displs = calloc((size_t) n, sizeof(int));
    int *rcounts = calloc((size_t) n, sizeof(int)), *rdispls = calloc((size_t) n, sizeof(int));

    /* one-to-all */
    MPI_Bcast(ibuf, 10, MPI_INT, 1, MPI_COMM_WORLD);                 /* root 1: 40 B to each */
    for (int i = 0, d = 0; i < n; d += i + 1, i++) counts[i] = i + 1, displs[i] = d;
    MPI_Scatterv(dbuf, counts, displs, MPI_DOUBLE, dbuf2, rank + 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* (i+1)*8 B to i */
    MPI_Request req;
    MPI_Ibcast(dbuf, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req);         /* root 0: 8 B to each */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Bcast(ibuf, 0, MPI_INT, 0, MPI_COMM_WORLD);                   /* moves nothing: not counted */

    /* all-to-one */
    MPI_Gather(ibuf, 2, MPI_INT, ibuf2, 2, MPI_INT, n - 1, MPI_COMM_WORLD); /* root n-1 gets 8 B from each */
    if (rank == 0) MPI_Reduce(MPI_IN_PLACE, dbuf, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); /* root 0: 24 B from each */
    else MPI_Reduce(dbuf, NULL, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

    /* all-to-all */
    MPI_Allreduce(MPI_IN_PLACE, ibuf, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD); /* 4 B to each */
    for (int i = 0, d = 0; i < n; i++) {
        counts[i] = (rank + 1) * (i + 1);  /* bytes to i */
        displs[i] = d;
        d += counts[i];
    }
    for (int i = 0, d = 0; i < n; i++) {
        rcounts[i] = (i + 1) * (rank + 1); /* what i sends me */
        rdispls[i] = d;
        d += rcounts[i];
    }
    MPI_Alltoallv(ibuf, counts, displs, MPI_BYTE, ibuf2, rcounts, rdispls, MPI_BYTE, MPI_COMM_WORLD);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ibuf2, 5, MPI_INT, MPI_COMM_WORLD); /* 20 B to each */
    MPI_Barrier(MPI_COMM_WORLD);                                                        /* 0 B to each */
    MPI_Scan(ibuf, ibuf2, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);                          /* 8 B to higher ranks */

    /* neighbourhood: periodic ring, 1 int to each side */
    MPI_Comm ring;
    int dims[1] = { n }, periods[1] = { 1 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Neighbor_alltoall(ibuf, 1, MPI_INT, ibuf2, 1, MPI_INT, ring);
    MPI_Comm_free(&ring);

    /* one-sided: window of 100 ints */
    MPI_Win win;
    int *base;
    MPI_Win_allocate(100 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    int next = (rank + 1) % n, prev = (rank + n - 1) % n, one = 1, res[2], cmp = 0;
    MPI_Win_fence(0, win);
    MPI_Put(ibuf, 3, MPI_INT, next, 0, 3, MPI_INT, win);                 /* S 12 B to next */
    MPI_Get(ibuf2, 2, MPI_INT, prev, 10, 2, MPI_INT, win);               /* R 8 B from prev */
    MPI_Win_fence(0, win);
    MPI_Accumulate(&one, 1, MPI_INT, next, 20, 1, MPI_INT, MPI_SUM, win); /* S 4 B to next */
    MPI_Win_fence(0, win);
    MPI_Fetch_and_op(&one, res, MPI_INT, next, 30, MPI_SUM, win);         /* S 4 B, R 4 B next */
    MPI_Win_fence(0, win);
    MPI_Compare_and_swap(&one, &cmp, res, MPI_INT, prev, 40, win);        /* S 8 B, R 4 B prev */
    MPI_Win_fence(0, win);
    MPI_Get_accumulate(ibuf, 2, MPI_INT, res, 2, MPI_INT, next, 50, 2, MPI_INT, MPI_SUM, win); /* S 8, R 8 next */
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);

    /* inter-communicator between even and odd world ranks; the halves get a name */
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_set_name(half, rank % 2 ? "odd" : "even");
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 99, &inter);
    int hr;
    MPI_Comm_rank(half, &hr);
    /* world 0 (even leader) broadcasts 4 ints to the odd group */
    int root = rank % 2 ? 0 : (hr == 0 ? MPI_ROOT : MPI_PROC_NULL);
    MPI_Bcast(ibuf, 4, MPI_INT, root, inter);
    /* odd leader (world 1) sends 6 bytes to remote rank 0 (world 0) */
    if (rank == 1) MPI_Send(ibuf, 6, MPI_BYTE, 0, 7, inter);
    if (rank == 0) MPI_Recv(ibuf, 6, MPI_BYTE, 0, 7, inter, MPI_STATUS_IGNORE);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);

    if (rank == 0) printf("monitor_coll ok size=%d\n", n);
    free(ibuf), free(ibuf2), free(dbuf), free(dbuf2), free(counts), free(displs), free(rcounts), free(rdispls);
    MPI_Finalize();
    return 0;
}

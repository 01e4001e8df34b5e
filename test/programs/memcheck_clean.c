/* Correct MPI that must give memcheck nothing to report: a nonblocking ring, a halo exchange
 * that computes on the interior while the halos are in flight (the interior shares pages with
 * the rows being sent and received), persistent requests, collectives (blocking and
 * nonblocking; MPI_Exscan, whose result at rank 0 is undefined) and a fenced Put. Every received
 * element is read. Prints a checksum. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define COLS 300 /* a row is 2400 B: rows share pages */
#define ROWS 40
#define STEPS 20

static int rank, size;
static double sum;

static void ring(void)
{
    int *out = malloc(64 * sizeof(int)), *in = malloc(64 * sizeof(int));
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < 64; i++) out[i] = rank * 100 + i + k;
        MPI_Request r[2];
        MPI_Irecv(in, 64, MPI_INT, (rank + size - 1) % size, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out, 64, MPI_INT, (rank + 1) % size, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        for (int i = 0; i < 64; i++) sum += in[i];
    }
    free(out);
    free(in);
}

static void halo(void)
{
    double *g = calloc((ROWS + 2) * COLS, sizeof(double));
    for (int i = 1; i <= ROWS; i++)
        for (int j = 0; j < COLS; j++) g[i * COLS + j] = rank + i * 0.01 + j * 0.0001;
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    for (int s = 0; s < STEPS; s++) {
        MPI_Request r[4];
        MPI_Irecv(&g[0], COLS, MPI_DOUBLE, up, 2, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&g[(ROWS + 1) * COLS], COLS, MPI_DOUBLE, down, 2, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(&g[1 * COLS], COLS, MPI_DOUBLE, up, 2, MPI_COMM_WORLD, &r[2]);
        MPI_Isend(&g[ROWS * COLS], COLS, MPI_DOUBLE, down, 2, MPI_COMM_WORLD, &r[3]);
        for (int i = 3; i < ROWS - 1; i++) /* interior: its pages hold the halo rows' neighbours */
            for (int j = 1; j < COLS - 1; j++) g[i * COLS + j] = 0.25 * (g[(i - 1) * COLS + j] + g[(i + 1) * COLS + j] + g[i * COLS + j - 1] + g[i * COLS + j + 1]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        for (int j = 0; j < COLS; j++) sum += g[j] + g[(ROWS + 1) * COLS + j];
    }
    for (int i = 0; i < (ROWS + 2) * COLS; i++) sum += g[i];
    free(g);
}

static void persistent(void)
{
    int *out = malloc(128 * sizeof(int)), *in = malloc(128 * sizeof(int));
    MPI_Request r[2];
    MPI_Recv_init(in, 128, MPI_INT, (rank + size - 1) % size, 3, MPI_COMM_WORLD, &r[0]);
    MPI_Send_init(out, 128, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD, &r[1]);
    for (int k = 0; k < 6; k++) {
        for (int i = 0; i < 128; i++) out[i] = k * 1000 + rank + i; /* inactive: writable */
        MPI_Startall(2, r);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        for (int i = 0; i < 128; i++) sum += in[i];
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    free(out);
    free(in);
}

static void collectives(void)
{
    double *v = malloc(100 * sizeof(double)), *w = malloc(100 * sizeof(double));
    for (int i = 0; i < 100; i++) v[i] = rank == 0 ? i : -1;
    MPI_Bcast(v, 100, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < 100; i++) sum += v[i];
    MPI_Allreduce(v, w, 100, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 100; i++) sum += w[i];
    MPI_Request r;
    MPI_Iallreduce(v, w, 100, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i < 100; i++) sum += w[i];
    /* MPI_Exscan leaves rank 0's result undefined: nothing arrives there, so rank 0 may overwrite
     * it unread (MPICH's coll/op_coll does) and never read it (the nonblocking form too) */
    MPI_Exscan(v, w, 10, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        for (int i = 0; i < 10; i++) w[i] = 0;
    for (int i = 0; i < 10; i++) sum += w[i];
    MPI_Iexscan(v, w, 10, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rank != 0)
        for (int i = 0; i < 10; i++) sum += w[i];
    free(v);
    free(w);
}

static void one_sided(void)
{
    int *exposed = calloc(size * 16, sizeof(int)), *mine = malloc(16 * sizeof(int));
    for (int i = 0; i < 16; i++) mine[i] = rank * 16 + i;
    MPI_Win win;
    MPI_Win_create(exposed, size * 16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(mine, 16, MPI_INT, (rank + 1) % size, rank * 16, 16, MPI_INT, win);
    MPI_Win_fence(0, win);
    mine[0] = -1; /* after the fence: allowed */
    for (int i = 0; i < size * 16; i++) sum += exposed[i];
    MPI_Win_free(&win);
    free(exposed);
    free(mine);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ring();
    halo();
    persistent();
    collectives();
    one_sided();
    double total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("checksum %.6f\n", total);
    MPI_Finalize();
    return 0;
}

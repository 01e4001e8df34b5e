/*
 * bench/stencil.c - stencils written the way users write them, in several shapes, for overlap's
 * adaptive mode to be measured on programs it was not tuned on (issue 33; bench/overlap-stencils.mjs).
 *
 *   stencil VARIANT DIM NEIGHBOURS HALO_BYTES ROWS REPEAT ITERATIONS
 *
 *   VARIANT     sendrecv  one MPI_Sendrecv per neighbour, then the update
 *               pairs     MPI_Send/MPI_Recv pairs per neighbour (even ranks send first), then the update
 *               isend     hand-written: MPI_Irecv/MPI_Isend, the rows that need no halo, MPI_Waitall, the rest
 *   DIM         1: rows of HALO_BYTES exchanged into ghost rows of the same array the update reads
 *                  (u[0] and u[ROWS+1] around ROWS rows), updated in the natural order: row 1 first,
 *                  which reads the ghost row from above at once, row ROWS last
 *               2: the same grid split in two dimensions with a periodic process grid: the rows as
 *                  above, and the columns sent with an MPI_Type_vector straight from the array and
 *                  received into its ghost columns (with 2 ranks, left and right are the rank itself)
 *   NEIGHBOURS  1: a chain, the ends without a neighbour on that side (MPI_PROC_NULL);
 *               2: periodic (with 2 ranks both neighbours are the other rank: two messages each way)
 *   ROWS, REPEAT  the computation per step: ROWS rows of the update, each point's new value a
 *               REPEAT-times iterated average (REPEAT sets the compute time without more memory)
 *
 * Every variant computes every point with the same expression from the same inputs: their final
 * grids are bit-identical. Output (rank 0), one line:
 *   stencil variant=V dim=D neighbours=N halo=B rows=R repeat=K procs=P iterations=I median_ms=M min_ms=m checksum=<16 hex>
 * median_ms/min_ms: per step, the slowest rank's time (MPI_MAX), median/minimum over the steps.
 *   stencil calibrate HALO_BYTES ROWS REPEAT   (one process, no MPI communication): prints ns_per_step=T
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct grid {
    int w, rows;  /* points per row (the halo), rows updated per step */
    int gx;       /* 2-D: ghost columns on each side (1), else 0 */
    int stride;   /* doubles per stored row: w + 2 * gx */
    double *u, *v; /* (rows + 2) stored rows; row 0 and row rows+1 are ghosts */
    int repeat;
};

static inline double *row(double *a, const struct grid *g, int j) { return a + (size_t) j * g->stride + g->gx; }

static inline double relax(double x, int repeat)
{
    for (int k = 0; k < repeat; k++) x = 0.5 * x + 0.25; /* a cheap, exact-in-order iterated map */
    return x;
}

/* Rows lo..hi of the 5-point update (1-D: 3-point in the row direction, 2 in x within the row). */
static void update(struct grid *g, int lo, int hi)
{
    for (int j = lo; j <= hi; j++) {
        const double *n = row(g->u, g, j - 1), *c = row(g->u, g, j), *s = row(g->u, g, j + 1);
        double *o = row(g->v, g, j);
        int first = g->gx ? 0 : 1, last = g->gx ? g->w - 1 : g->w - 2; /* 1-D: the row's ends stay */
        for (int i = first; i <= last; i++) o[i] = relax(0.25 * (n[i] + s[i] + c[i - 1] + c[i + 1]), g->repeat);
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static void usage(int rank)
{
    if (!rank)
        fprintf(stderr, "stencil: usage: stencil sendrecv|pairs|isend 1|2 1|2 HALO_BYTES ROWS REPEAT ITERATIONS\n"
                        "         stencil calibrate HALO_BYTES ROWS REPEAT\n");
}

static void fill(struct grid *g, int rank)
{
    for (int j = 0; j < g->rows + 2; j++)
        for (int i = -g->gx; i < g->w + g->gx; i++) {
            long gj = (long) rank * g->rows + j, gi = i;
            row(g->u, g, j)[i] = (double) ((gi * 7919 + gj * 104729) % 1000) / 1000.0;
            row(g->v, g, j)[i] = row(g->u, g, j)[i];
        }
}

static int alloc(struct grid *g, int halo, int rows, int repeat, int dim)
{
    g->w = halo / (int) sizeof(double);
    g->rows = rows;
    g->repeat = repeat;
    g->gx = dim == 2;
    g->stride = g->w + 2 * g->gx;
    if (g->w < 4 || rows < 3 || repeat < 0) return -1;
    size_t n = (size_t) (rows + 2) * g->stride;
    /* after MPI_Init, from the heap: the memory overlap's background receives can guard */
    g->u = malloc(n * sizeof(double));
    g->v = malloc(n * sizeof(double));
    return g->u && g->v ? 0 : -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    struct grid g;
    if (argc == 5 && !strcmp(argv[1], "calibrate")) {
        if (alloc(&g, atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), 1)) return usage(rank), MPI_Finalize(), 2;
        fill(&g, 0);
        double best = 1e30;
        for (int k = 0; k < 15; k++) {
            double t0 = MPI_Wtime();
            update(&g, 1, g.rows);
            double dt = MPI_Wtime() - t0;
            if (dt < best) best = dt;
        }
        if (!rank) printf("ns_per_step=%.0f\n", best * 1e9);
        MPI_Finalize();
        return 0;
    }
    if (argc != 8) return usage(rank), MPI_Finalize(), 2;
    const char *variant = argv[1];
    int isend = !strcmp(variant, "isend"), pairs = !strcmp(variant, "pairs");
    int dim = atoi(argv[2]), nbs = atoi(argv[3]), iters = atoi(argv[7]);
    if ((!isend && !pairs && strcmp(variant, "sendrecv")) || (dim != 1 && dim != 2) || (nbs != 1 && nbs != 2) || iters < 1 ||
        alloc(&g, atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), dim))
        return usage(rank), MPI_Finalize(), 2;
    /* neighbours: up/down along the ranks; 2-D: left/right across a second, periodic dimension of
     * size 1 (the rank itself), so the column exchange is a real MPI_Sendrecv of a vector type */
    int up = rank - 1, down = rank + 1;
    if (nbs == 2) up = (up + procs) % procs, down = down % procs;
    if (up < 0) up = MPI_PROC_NULL;
    if (down >= procs) down = MPI_PROC_NULL;
    MPI_Datatype column = MPI_DATATYPE_NULL;
    if (dim == 2) {
        MPI_Type_vector(g.rows, 1, g.stride, MPI_DOUBLE, &column);
        MPI_Type_commit(&column);
    }
    fill(&g, rank);
    double *times = malloc((size_t) iters * sizeof(double));
    for (int it = 0; it < iters; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        double *first = row(g.u, &g, 1), *last = row(g.u, &g, g.rows);
        double *ghost_up = row(g.u, &g, 0), *ghost_down = row(g.u, &g, g.rows + 1);
        if (dim == 2) { /* to the rank itself: nothing to hide behind, the same in every variant */
            MPI_Sendrecv(first, 1, column, rank, 2, first + g.w, 1, column, rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Sendrecv(first + g.w - 1, 1, column, rank, 3, first - 1, 1, column, rank, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (isend) {
            MPI_Request rq[4];
            MPI_Irecv(ghost_up, g.w, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &rq[0]);
            MPI_Irecv(ghost_down, g.w, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &rq[1]);
            MPI_Isend(first, g.w, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &rq[2]);
            MPI_Isend(last, g.w, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &rq[3]);
            update(&g, 2, g.rows - 1);
            MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
            update(&g, 1, 1);
            update(&g, g.rows, g.rows);
        } else {
            if (pairs) {
                /* towards up, then towards down; even ranks send first so the pairs match */
                if (rank % 2 == 0) {
                    MPI_Send(first, g.w, MPI_DOUBLE, up, 0, MPI_COMM_WORLD);
                    MPI_Recv(ghost_down, g.w, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(last, g.w, MPI_DOUBLE, down, 1, MPI_COMM_WORLD);
                    MPI_Recv(ghost_up, g.w, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(ghost_down, g.w, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(first, g.w, MPI_DOUBLE, up, 0, MPI_COMM_WORLD);
                    MPI_Recv(ghost_up, g.w, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(last, g.w, MPI_DOUBLE, down, 1, MPI_COMM_WORLD);
                }
            } else {
                MPI_Sendrecv(first, g.w, MPI_DOUBLE, up, 0, ghost_down, g.w, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Sendrecv(last, g.w, MPI_DOUBLE, down, 1, ghost_up, g.w, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            update(&g, 1, g.rows); /* the natural order: row 1 reads the ghost row from above at once */
        }
        double *t = g.u;
        g.u = g.v;
        g.v = t;
        double dt = MPI_Wtime() - t0, slowest;
        MPI_Reduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        times[it] = slowest * 1e3;
        if (rank == 0 && getenv("STENCIL_TRACE")) fprintf(stderr, "step %d %.3f\n", it, times[it]); /* the time series, for a decision to be seen */
    }
    /* checksum over the ranks' updated rows in rank order */
    size_t n = (size_t) g.rows * g.stride;
    double *all = rank == 0 ? malloc(n * procs * sizeof(double)) : NULL;
    MPI_Gather(row(g.u, &g, 1) - g.gx, (int) n, MPI_DOUBLE, all, (int) n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        uint64_t h = 1469598103934665603ull;
        const unsigned char *p = (const unsigned char *) all;
        for (size_t k = 0; k < n * procs * sizeof(double); k++) h = (h ^ p[k]) * 1099511628211ull;
        qsort(times, (size_t) iters, sizeof *times, cmp);
        printf("stencil variant=%s dim=%d neighbours=%d halo=%d rows=%d repeat=%d procs=%d iterations=%d median_ms=%.3f min_ms=%.3f "
               "checksum=%016llx\n",
               variant, dim, nbs, g.w * (int) sizeof(double), g.rows, g.repeat, procs, iters, times[iters / 2], times[0],
               (unsigned long long) h);
        free(all);
    }
    if (column != MPI_DATATYPE_NULL) MPI_Type_free(&column);
    MPI_Finalize();
    return 0;
}

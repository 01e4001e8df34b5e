/*
 * bench/halo.c - a 2-D halo exchange with four neighbours through packed halo buffers: the pattern
 * of most structured-grid codes that decompose in two dimensions (a row halo is contiguous, a
 * column halo is not, so both are copied into buffers of their own).
 *
 *   halo VARIANT NX NY [ITERATIONS=20]      VARIANT = sendrecv | isend
 *
 * Jacobi iteration of the 5-point Laplacian on a periodic NX x NY grid, split over a periodic 2-D
 * process grid (MPI_Dims_create): each rank holds lx x ly points and exchanges one halo with each of
 * up, down, left and right every iteration (with 2 ranks, up and down are the other rank and left
 * and right the rank itself: four messages all the same).
 *
 *   sendrecv  pack the four edges; 4 MPI_Sendrecv (shift up, down, left, right); update the interior
 *             (the points that need no halo), then the border (the points that do).
 *   isend     pack; 4 MPI_Irecv + 4 MPI_Isend; update the interior while the halos fly; MPI_Waitall;
 *             the border.
 *
 * The sendrecv variant is the blocking code mpii's overlap tool is meant to speed up: its receives
 * land in halo buffers the interior update never touches, so in the background they can fly while
 * the interior is computed, as the isend variant does by hand. Both variants compute every point
 * with the same expression in the same order: their final grids are bit-identical.
 *
 * Output (rank 0), one line:
 *   halo variant=V nx=NX ny=NY procs=P dims=AxB iterations=I median_ms=M min_ms=m checksum=<16 hex>
 * median_ms/min_ms: per iteration, the slowest rank's time (MPI_MAX), median/minimum over iterations.
 * checksum: FNV-1a 64 over every rank's final lx x ly points, gathered in rank order.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { UP, DOWN, LEFT, RIGHT };

struct grid {
    int lx, ly;          /* points per rank */
    double *u, *v;       /* lx x ly, row-major, no ghost ring: the halos are separate buffers */
    double *send[4], *recv[4];
};

static inline double *at(double *a, const struct grid *g, int j, int i) { return &a[(size_t) j * g->lx + i]; }

static void pack(const struct grid *g)
{
    memcpy(g->send[UP], at(g->u, g, 0, 0), (size_t) g->lx * sizeof(double));
    memcpy(g->send[DOWN], at(g->u, g, g->ly - 1, 0), (size_t) g->lx * sizeof(double));
    for (int j = 0; j < g->ly; j++) {
        g->send[LEFT][j] = *at(g->u, g, j, 0);
        g->send[RIGHT][j] = *at(g->u, g, j, g->lx - 1);
    }
}

/* One point's neighbours: from u inside, from the halo buffers across the edge. */
static inline double point(const struct grid *g, int j, int i)
{
    double n = j > 0 ? *at(g->u, g, j - 1, i) : g->recv[UP][i];
    double s = j < g->ly - 1 ? *at(g->u, g, j + 1, i) : g->recv[DOWN][i];
    double w = i > 0 ? *at(g->u, g, j, i - 1) : g->recv[LEFT][j];
    double e = i < g->lx - 1 ? *at(g->u, g, j, i + 1) : g->recv[RIGHT][j];
    return 0.25 * (n + s + w + e);
}

static void interior(struct grid *g)
{
    for (int j = 1; j < g->ly - 1; j++)
        for (int i = 1; i < g->lx - 1; i++)
            *at(g->v, g, j, i) = 0.25 * (*at(g->u, g, j - 1, i) + *at(g->u, g, j + 1, i) + *at(g->u, g, j, i - 1) + *at(g->u, g, j, i + 1));
}

static void border(struct grid *g)
{
    for (int i = 0; i < g->lx; i++) {
        *at(g->v, g, 0, i) = point(g, 0, i);
        *at(g->v, g, g->ly - 1, i) = point(g, g->ly - 1, i);
    }
    for (int j = 1; j < g->ly - 1; j++) {
        *at(g->v, g, j, 0) = point(g, j, 0);
        *at(g->v, g, j, g->lx - 1) = point(g, j, g->lx - 1);
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int isend = argc > 1 && !strcmp(argv[1], "isend");
    if (argc < 4 || (!isend && strcmp(argv[1], "sendrecv"))) {
        if (!rank) fprintf(stderr, "halo: usage: halo sendrecv|isend NX NY [ITERATIONS=20]\n");
        MPI_Finalize();
        return 2;
    }
    int nx = atoi(argv[2]), ny = atoi(argv[3]), iters = argc > 4 ? atoi(argv[4]) : 20;
    int dims[2] = { 0, 0 }, periods[2] = { 1, 1 }, nb[4];
    MPI_Dims_create(procs, 2, dims); /* dims[0] >= dims[1]: rows split first (contiguous halos) */
    if (nx % dims[1] || ny % dims[0] || nx / dims[1] < 3 || ny / dims[0] < 3 || iters < 1) {
        if (!rank) fprintf(stderr, "halo: a %dx%d grid does not split into %dx%d ranks of at least 3x3 points\n", nx, ny, dims[0], dims[1]);
        MPI_Finalize();
        return 2;
    }
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_shift(cart, 0, 1, &nb[UP], &nb[DOWN]);
    MPI_Cart_shift(cart, 1, 1, &nb[LEFT], &nb[RIGHT]);
    int coords[2];
    MPI_Cart_coords(cart, rank, 2, coords);
    struct grid g = { .lx = nx / dims[1], .ly = ny / dims[0] };
    /* after MPI_Init, from the heap: the buffers overlap's background receives can guard */
    g.u = malloc((size_t) g.lx * g.ly * sizeof(double));
    g.v = malloc((size_t) g.lx * g.ly * sizeof(double));
    for (int d = 0; d < 4; d++) {
        size_t n = d < 2 ? (size_t) g.lx : (size_t) g.ly;
        g.send[d] = malloc(n * sizeof(double));
        g.recv[d] = malloc(n * sizeof(double));
    }
    double *times = malloc((size_t) iters * sizeof(double));
    /* a start that is not smooth, from global coordinates: every variant and rank count the same */
    for (int j = 0; j < g.ly; j++)
        for (int i = 0; i < g.lx; i++) {
            long gj = (long) coords[0] * g.ly + j, gi = (long) coords[1] * g.lx + i;
            *at(g.u, &g, j, i) = (double) ((gi * 7919 + gj * 104729) % 1000) / 1000.0;
        }
    int cnt[4] = { g.lx, g.lx, g.ly, g.ly };
    /* the halo from the neighbour above lands in recv[UP]: it is what that rank sent down */
    const int from[4] = { DOWN, UP, RIGHT, LEFT };
    for (int it = 0; it < iters; it++) {
        MPI_Barrier(cart);
        double t0 = MPI_Wtime();
        pack(&g);
        if (isend) {
            MPI_Request rq[8];
            for (int d = 0; d < 4; d++) MPI_Irecv(g.recv[d], cnt[d], MPI_DOUBLE, nb[d], from[d], cart, &rq[d]);
            for (int d = 0; d < 4; d++) MPI_Isend(g.send[d], cnt[d], MPI_DOUBLE, nb[d], d, cart, &rq[4 + d]);
            interior(&g);
            MPI_Waitall(8, rq, MPI_STATUSES_IGNORE);
        } else {
            /* shift: send my edge towards d, receive the halo on the opposite side from there */
            MPI_Sendrecv(g.send[UP], g.lx, MPI_DOUBLE, nb[UP], UP, g.recv[DOWN], g.lx, MPI_DOUBLE, nb[DOWN], UP, cart, MPI_STATUS_IGNORE);
            MPI_Sendrecv(g.send[DOWN], g.lx, MPI_DOUBLE, nb[DOWN], DOWN, g.recv[UP], g.lx, MPI_DOUBLE, nb[UP], DOWN, cart, MPI_STATUS_IGNORE);
            MPI_Sendrecv(g.send[LEFT], g.ly, MPI_DOUBLE, nb[LEFT], LEFT, g.recv[RIGHT], g.ly, MPI_DOUBLE, nb[RIGHT], LEFT, cart, MPI_STATUS_IGNORE);
            MPI_Sendrecv(g.send[RIGHT], g.ly, MPI_DOUBLE, nb[RIGHT], RIGHT, g.recv[LEFT], g.ly, MPI_DOUBLE, nb[LEFT], RIGHT, cart, MPI_STATUS_IGNORE);
            interior(&g);
        }
        border(&g);
        double *t = g.u;
        g.u = g.v;
        g.v = t;
        double dt = MPI_Wtime() - t0, slowest;
        MPI_Reduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, cart);
        times[it] = slowest * 1e3;
    }
    /* checksum over the ranks' blocks in rank order */
    size_t n = (size_t) g.lx * g.ly;
    double *all = rank == 0 ? malloc(n * procs * sizeof(double)) : NULL;
    MPI_Gather(g.u, (int) n, MPI_DOUBLE, all, (int) n, MPI_DOUBLE, 0, cart);
    if (rank == 0) {
        uint64_t h = 1469598103934665603ull;
        const unsigned char *p = (const unsigned char *) all;
        for (size_t k = 0; k < n * procs * sizeof(double); k++) h = (h ^ p[k]) * 1099511628211ull;
        qsort(times, (size_t) iters, sizeof *times, cmp);
        printf("halo variant=%s nx=%d ny=%d procs=%d dims=%dx%d iterations=%d median_ms=%.3f min_ms=%.3f checksum=%016llx\n",
               isend ? "isend" : "sendrecv", nx, ny, procs, dims[0], dims[1], iters, times[iters / 2], times[0],
               (unsigned long long) h);
        free(all);
    }
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}

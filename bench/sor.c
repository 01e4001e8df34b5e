/*
 * bench/sor.c - the red-black SOR benchmark of Natvig's thesis (NTNU 2006, chapter 3 and 6), in C.
 *
 *   sor VARIANT N [ITERATIONS=20] [--dump FILE]      VARIANT = sendrecv | isend | overlap
 *
 * Laplace's equation on the unit square, u(x,1) = 1, u(x,0) = u(0,y) = u(1,y) = -1, interior 0,
 * on an N x N grid of unknowns (plus the boundary ring), solved by red-black SOR with the thesis's
 * 2D decomposition. The three variants are the thesis's three parallel codes and differ only in how
 * the ghost cells are exchanged:
 *
 *   sendrecv  per colour phase: 4 MPI_Sendrecv (top, bottom, left, right), then the update;
 *   isend     per colour phase: 4 MPI_Irecv + 4 MPI_Isend + MPI_Waitall(8), then the update;
 *   overlap   "full overlap": the black exchange is primed before the loop; each phase waits, updates
 *             its boundary points, starts their exchange, then updates the interior while it flies.
 *
 * The sendrecv variant is the one the overlap tool optimises automatically (mpii run --tools overlap).
 * All three compute the same points with the same expression, so their final grids are bit-identical,
 * also across process counts.
 *
 * Output (rank 0 of the Cartesian communicator), exactly one line:
 *   sor variant=V n=N procs=P dims=AxB iterations=I median_ms=M min_ms=m checksum=<16 hex digits>
 * median_ms/min_ms: per iteration, the slowest rank's time (MPI_MAX), then median/minimum over the
 * iterations (the thesis reports the median: the first iterations pay for MPI's lazy setup).
 * checksum: FNV-1a 64 over the raw bytes of the N x N interior gathered in global row-major order.
 * --dump FILE writes those N*N doubles.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum variant { SENDRECV, ISEND, OVERLAP };
static const char *const variant_names[] = { "sendrecv", "isend", "overlap" };

/* Checkerboard colours: (i + j) even is red (the thesis: "upper left is red"). Because the local
 * sizes are even, a point's colour is the same in local and in global coordinates. */
enum colour { RED = 0, BLACK = 1 };

/* The thesis's parallel listing: omega = 1.4 and h = 1/(n+1) (h only places the boundary here: with
 * f = 0 the update does not involve it). */
static const double OMEGA = 1.4;

struct options {
    enum variant variant;
    int n, iterations;
    const char *dump;
};

/* One rank's subdomain and its neighbourhood. */
struct domain {
    MPI_Comm comm;                  /* the Cartesian communicator */
    int rank, procs, dims[2], coords[2];
    int up, down, left, right;      /* MPI_PROC_NULL at the edges of the global grid */
    int lx, ly;                     /* unknowns per rank along x (columns, dim 0) and y (rows, dim 1) */
    int stride;                     /* lx + 2: a row including its two ghost cells */
    double *u;                      /* (ly+2) x (lx+2), row-major, ghost ring included */
    MPI_Datatype row, column;       /* one colour's points along a row / down a column */
    MPI_Request req[8];             /* the exchange in flight (isend and overlap variants) */
};

static inline double *at(const struct domain *d, int j, int i) { return &d->u[(size_t) j * d->stride + i]; }

/* ---- setup --------------------------------------------------------------------------------- */

static int usage(int rank, const char *why)
{
    if (rank == 0) fprintf(stderr, "sor: %s (usage: sor sendrecv|isend|overlap N [ITERATIONS=20] [--dump FILE])\n", why);
    return 0;
}

/* Parses the command line; every rank parses the same arguments, only rank 0 complains. */
static int parse_args(int argc, char **argv, int rank, struct options *o)
{
    const char *pos[3] = { NULL, NULL, NULL };
    int npos = 0;
    o->dump = NULL;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--dump") == 0) {
            if (a + 1 >= argc) return usage(rank, "--dump needs a file name");
            o->dump = argv[++a];
        } else if (npos < 3) {
            pos[npos++] = argv[a];
        } else {
            return usage(rank, "too many arguments");
        }
    }
    if (npos < 2) return usage(rank, "VARIANT and N are required");
    int v = 0;
    while (v < 3 && strcmp(pos[0], variant_names[v]) != 0) v++;
    if (v == 3) return usage(rank, "unknown variant");
    o->variant = (enum variant) v;
    char *end;
    long n = strtol(pos[1], &end, 10);
    if (*end || n < 2 || n > 1 << 20) return usage(rank, "N must be an integer >= 2");
    o->n = (int) n;
    long it = 20;
    if (pos[2]) {
        it = strtol(pos[2], &end, 10);
        if (*end || it < 1 || it > 1 << 20) return usage(rank, "ITERATIONS must be an integer >= 1");
    }
    o->iterations = (int) it;
    return 1;
}

/* The thesis's decomposition: MPI_Dims_create with dims zeroed, a non-periodic Cartesian
 * communicator that MPI may reorder, dim 0 = x = left/right, dim 1 = y = up/down. */
static int decompose(int n, struct domain *d)
{
    int world_rank, periods[2] = { 0, 0 };
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d->procs);
    d->dims[0] = d->dims[1] = 0;
    MPI_Dims_create(d->procs, 2, d->dims);
    if (n % d->dims[0] || n % d->dims[1]) {
        if (world_rank == 0) fprintf(stderr, "sor: cannot divide a %dx%d grid into %dx%d ranks\n", n, n, d->dims[0], d->dims[1]);
        return 0;
    }
    d->lx = n / d->dims[0];
    d->ly = n / d->dims[1];
    if (d->lx % 2 || d->ly % 2) {
        /* a colour's row/column datatype needs the same number of red and black points */
        if (world_rank == 0) fprintf(stderr, "sor: %dx%d points per rank on %dx%d ranks: both must be even\n", d->lx, d->ly, d->dims[0], d->dims[1]);
        return 0;
    }
    MPI_Cart_create(MPI_COMM_WORLD, 2, d->dims, periods, 1, &d->comm);
    MPI_Comm_rank(d->comm, &d->rank);
    MPI_Cart_coords(d->comm, d->rank, 2, d->coords);
    MPI_Cart_shift(d->comm, 0, 1, &d->left, &d->right);
    MPI_Cart_shift(d->comm, 1, 1, &d->up, &d->down);
    d->stride = d->lx + 2;
    return 1;
}

/* One colour's points are every other element: along a row stride 2, down a column stride two rows.
 * Red and black use the same types and differ only in the start offset. */
static void make_datatypes(struct domain *d)
{
    MPI_Type_vector(d->lx / 2, 1, 2, MPI_DOUBLE, &d->row);
    MPI_Type_commit(&d->row);
    MPI_Type_vector(d->ly / 2, 1, 2 * d->stride, MPI_DOUBLE, &d->column);
    MPI_Type_commit(&d->column);
}

/* Boundary values at global index (gi, gj), 0..n+1 each: the thesis evaluates f(x, y) at x = gi*h,
 * y = gj*h with h = 1/(n+1) and tests x == 0, x == 1, ...; testing the indices gives the same grid
 * without depending on (n+1)*h rounding to exactly 1 (it does not for n = 48, for instance). */
static double initial_value(int gi, int gj, int n)
{
    if (gi == 0 || gi == n + 1) return -1.0;   /* u(0,y) = u(1,y) = -1, corners included */
    if (gj == 0) return -1.0;                  /* u(x,0) = -1 */
    if (gj == n + 1) return 1.0;               /* u(x,1) = 1 */
    return 0.0;
}

/* The grid is one heap block allocated after MPI_Init on purpose: the overlap tool only optimises
 * transfers from and into heap memory allocated after MPI_Init (it page-aligns those blocks). Ghost
 * cells start as the neighbour's initial values (or the global boundary at the edges). */
static void allocate_grid(struct domain *d, int n)
{
    d->u = malloc(sizeof(double) * (size_t) (d->ly + 2) * d->stride);
    if (!d->u) {
        fprintf(stderr, "sor: out of memory for a %dx%d subdomain\n", d->lx, d->ly);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int j = 0; j <= d->ly + 1; j++)
        for (int i = 0; i <= d->lx + 1; i++)
            *at(d, j, i) = initial_value(d->coords[0] * d->lx + i, d->coords[1] * d->ly + j, n);
}

/* ---- computation ---------------------------------------------------------------------------- */

/* Over-relaxed Gauss-Seidel step of one point: u += omega * (average of the 4 neighbours - u). The
 * thesis prints "- (1 - omega) u" (its text); that diverges for omega > 1, so this is the textbook
 * "+ (1 - omega) u" form. Every variant calls exactly this, so the results stay bit-identical. */
static inline void update_point(const struct domain *d, int j, int i)
{
    double *p = at(d, j, i);
    double sum = p[-1] + p[1] + p[-d->stride] + p[d->stride];
    *p = OMEGA / 4.0 * sum + (1.0 - OMEGA) * *p;
}

/* Updates the points of colour c in rows j0..j1 and columns i0..i1 (local, 1-based). A colour-c
 * point has (i + j) % 2 == c, so each row starts at i0 or i0 + 1 and steps by 2. */
static void update_rect(const struct domain *d, enum colour c, int j0, int j1, int i0, int i1)
{
    for (int j = j0; j <= j1; j++)
        for (int i = i0 + ((i0 + j + c) & 1); i <= i1; i += 2)
            update_point(d, j, i);
}

static void update_all(const struct domain *d, enum colour c)
{
    update_rect(d, c, 1, d->ly, 1, d->lx);
}

/* The points the neighbours need: rows 1 and ly, and columns 1 and lx in between. */
static void update_boundary(const struct domain *d, enum colour c)
{
    update_rect(d, c, 1, 1, 1, d->lx);
    update_rect(d, c, d->ly, d->ly, 1, d->lx);
    update_rect(d, c, 2, d->ly - 1, 1, 1);
    update_rect(d, c, 2, d->ly - 1, d->lx, d->lx);
}

/* Everything else: no neighbour reads these, so they can be computed while the exchange flies. */
static void update_interior(const struct domain *d, enum colour c)
{
    update_rect(d, c, 2, d->ly - 1, 2, d->lx - 1);
}

/* ---- communication -------------------------------------------------------------------------- */

/* First row (or column) index >= 1 at which colour c starts in column (or row) k: the same rule
 * as in update_rect, applied to the transposed direction. */
static inline int first(int k, enum colour c) { return 1 + ((k + 1 + c) & 1); }

/* The four transfers of colour c, in the thesis's order: top row up, bottom row down, left column
 * left, right column right, each receiving the opposite neighbour's points into the ghost ring. */
struct transfer {
    double *send, *recv;
    MPI_Datatype type;
    int dest, source;
};

static void transfers(const struct domain *d, enum colour c, struct transfer t[4])
{
    int lx = d->lx, ly = d->ly;
    t[0] = (struct transfer) { at(d, 1, first(1, c)), at(d, ly + 1, first(ly + 1, c)), d->row, d->up, d->down };
    t[1] = (struct transfer) { at(d, ly, first(ly, c)), at(d, 0, first(0, c)), d->row, d->down, d->up };
    t[2] = (struct transfer) { at(d, first(1, c), 1), at(d, first(lx + 1, c), lx + 1), d->column, d->left, d->right };
    t[3] = (struct transfer) { at(d, first(lx, c), lx), at(d, first(0, c), 0), d->column, d->right, d->left };
}

/* Blocking exchange: 8 serialised messages per phase, each pair waiting for the previous one. */
static void exchange_sendrecv(const struct domain *d, enum colour c)
{
    struct transfer t[4];
    transfers(d, c, t);
    for (int k = 0; k < 4; k++)
        MPI_Sendrecv(t[k].send, 1, t[k].type, t[k].dest, 0, t[k].recv, 1, t[k].type, t[k].source, 0,
                     d->comm, MPI_STATUS_IGNORE);
}

/* Non-blocking exchange: all receives posted first, then all sends; completed by exchange_wait. */
static void exchange_start(struct domain *d, enum colour c)
{
    struct transfer t[4];
    transfers(d, c, t);
    for (int k = 0; k < 4; k++)
        MPI_Irecv(t[k].recv, 1, t[k].type, t[k].source, 0, d->comm, &d->req[k]);
    for (int k = 0; k < 4; k++)
        MPI_Isend(t[k].send, 1, t[k].type, t[k].dest, 0, d->comm, &d->req[4 + k]);
}

static void exchange_wait(struct domain *d)
{
    /* a real status array (as the thesis has): MPICH's MPI_STATUSES_IGNORE is (MPI_Status *) 1,
     * which GCC's -Wstringop-overflow flags as an 8-element array of size 0 */
    MPI_Status statuses[8];
    MPI_Waitall(8, d->req, statuses);
}

/* ---- the three variants: one iteration = red phase, then black phase --------------------------- */

static void iterate_sendrecv(struct domain *d)
{
    exchange_sendrecv(d, BLACK);   /* red points read black neighbours */
    update_all(d, RED);
    exchange_sendrecv(d, RED);
    update_all(d, BLACK);
}

static void iterate_isend(struct domain *d)
{
    exchange_start(d, BLACK);
    exchange_wait(d);
    update_all(d, RED);
    exchange_start(d, RED);
    exchange_wait(d);
    update_all(d, BLACK);
}

/* Expects the black exchange in flight on entry and leaves the next one in flight on return. */
static void iterate_overlap(struct domain *d)
{
    exchange_wait(d);
    update_boundary(d, RED);
    exchange_start(d, RED);
    update_interior(d, RED);
    exchange_wait(d);
    update_boundary(d, BLACK);
    exchange_start(d, BLACK);
    update_interior(d, BLACK);
}

/* Runs the iterations; times[t] = this rank's wall clock of iteration t in seconds. */
static void solve(struct domain *d, enum variant v, int iterations, double *times)
{
    MPI_Barrier(d->comm);
    if (v == OVERLAP) exchange_start(d, BLACK);   /* primed before the loop, as in the thesis */
    for (int t = 0; t < iterations; t++) {
        double t0 = MPI_Wtime();
        switch (v) {
        case SENDRECV: iterate_sendrecv(d); break;
        case ISEND: iterate_isend(d); break;
        case OVERLAP: iterate_overlap(d); break;
        }
        times[t] = MPI_Wtime() - t0;
    }
    if (v == OVERLAP) exchange_wait(d);
}

/* ---- results ------------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* Sorts xs in place and returns its median (the mean of the middle two for an even count). */
static double median(double *xs, int count)
{
    qsort(xs, count, sizeof *xs, cmp_double);
    return count % 2 ? xs[count / 2] : (xs[count / 2 - 1] + xs[count / 2]) / 2;
}

/* Gathers every rank's interior to rank 0 as one n x n row-major grid (NULL on the other ranks).
 * The Cartesian communicator may have reordered the ranks, so blocks are placed by coordinates. */
static double *gather_grid(const struct domain *d, int n)
{
    size_t block = (size_t) d->lx * d->ly;
    double *mine = malloc(sizeof(double) * block);
    double *all = d->rank == 0 ? malloc(sizeof(double) * block * d->procs) : NULL;
    double *grid = d->rank == 0 ? malloc(sizeof(double) * (size_t) n * n) : NULL;
    if (!mine || (d->rank == 0 && (!all || !grid))) {
        fprintf(stderr, "sor: out of memory gathering the %dx%d grid\n", n, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int j = 0; j < d->ly; j++) memcpy(&mine[(size_t) j * d->lx], at(d, j + 1, 1), sizeof(double) * d->lx);
    MPI_Gather(mine, (int) block, MPI_DOUBLE, all, (int) block, MPI_DOUBLE, 0, d->comm);
    free(mine);
    if (d->rank != 0) return NULL;
    for (int r = 0; r < d->procs; r++) {
        int c[2];
        MPI_Cart_coords(d->comm, r, 2, c);
        for (int j = 0; j < d->ly; j++)
            memcpy(&grid[(size_t) (c[1] * d->ly + j) * n + (size_t) c[0] * d->lx], &all[r * block + (size_t) j * d->lx],
                   sizeof(double) * d->lx);
    }
    free(all);
    return grid;
}

/* FNV-1a, 64 bits, over raw bytes: equal checksums mean bit-identical grids. */
static uint64_t fnv1a64(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t k = 0; k < len; k++) {
        h ^= p[k];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static int dump_grid(const char *file, const double *grid, int n)
{
    FILE *f = fopen(file, "wb");
    size_t count = (size_t) n * n;
    if (!f || fwrite(grid, sizeof(double), count, f) != count || fclose(f) != 0) {
        perror(file);
        return 0;
    }
    return 1;
}

/* The slowest rank per iteration, then median and minimum over iterations; the one result line. */
static int report(const struct domain *d, const struct options *o, const double *times)
{
    double *slowest = d->rank == 0 ? malloc(sizeof(double) * o->iterations) : NULL;
    MPI_Reduce(times, slowest, o->iterations, MPI_DOUBLE, MPI_MAX, 0, d->comm);
    double *grid = gather_grid(d, o->n);
    if (d->rank != 0) return 1;
    double med = median(slowest, o->iterations), min = slowest[0];   /* sorted by median() */
    uint64_t sum = fnv1a64(grid, sizeof(double) * (size_t) o->n * o->n);
    printf("sor variant=%s n=%d procs=%d dims=%dx%d iterations=%d median_ms=%.4f min_ms=%.4f checksum=%016llx\n",
           variant_names[o->variant], o->n, d->procs, d->dims[0], d->dims[1], o->iterations, med * 1e3, min * 1e3,
           (unsigned long long) sum);
    fflush(stdout);
    int ok = !o->dump || dump_grid(o->dump, grid, o->n);
    free(grid);
    free(slowest);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int world_rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    struct options o;
    struct domain d;
    /* every rank reaches the same verdict from the same arguments, so all leave together */
    if (!parse_args(argc, argv, world_rank, &o) || !decompose(o.n, &d)) {
        MPI_Finalize();
        return 1;
    }
    make_datatypes(&d);
    allocate_grid(&d, o.n);
    double *times = malloc(sizeof(double) * o.iterations);
    if (!times) MPI_Abort(MPI_COMM_WORLD, 1);
    solve(&d, o.variant, o.iterations, times);
    int ok = report(&d, &o, times);
    free(times);
    free(d.u);
    MPI_Type_free(&d.row);
    MPI_Type_free(&d.column);
    MPI_Comm_free(&d.comm);
    MPI_Finalize();
    return ok ? 0 : 1;
}

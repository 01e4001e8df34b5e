/* overlap_halo.c - 2D halo exchange with blocking MPI_Send/MPI_Recv on a
 * malloc'd grid (overlap tool test).
 *
 * Usage: overlap_halo [iters=20]        -np 4 (2x2 grid); also -np 2 and 3.
 *
 * Each rank owns a 64x64 block of doubles in a (64+2)x(64+2) malloc'd grid
 * with one ghost layer. Cartesian topology from MPI_Dims_create; a dimension
 * with more than one process is periodic, a dimension of size 1 is not (its
 * neighbours are MPI_PROC_NULL, the ghosts keep their initial values). Every
 * iteration:
 *   A. columns: Send column 1 left, Send column 64 right (MPI_Type_vector),
 *      then Recv ghost column 0 from the left and ghost column 65 from the
 *      right;
 *   B. rows INCLUDING the ghost columns (66 doubles, this carries the
 *      corners): Send row 1 up, Send row 64 down, Recv ghost row 0 from up,
 *      ghost row 65 from down;
 *   C. a 9-point, asymmetric, exact (integer-valued doubles, mod 1000003)
 *      stencil reads every cell of the grid (ghosts and corners included)
 *      and writes the interior of a second malloc'd grid; grids are swapped.
 * After C the ghosts of the grid just read are compared with a sequential
 * simulation of the whole global grid that every rank runs itself; at the
 * end the interior is compared too.
 *
 * Rules exercised, and what a naive sync->async conversion gets wrong:
 *   - Column sends have overlapping extents (column 1 and column 64 span the
 *     same rows), and the column and row sends share the corner elements
 *     g[1][1], g[1][64], g[64][1], g[64][64]: send/send overlap must never
 *     wait, and a second send must pack correctly from pages that the first
 *     send has already protected.
 *   - Receives into ghost columns/rows share pages (and extents) with the
 *     interior being sent: page overlap alone must not delay anything, but
 *     nothing may unprotect a page while a receive on it is still pending.
 *   - Phase B sends rows that contain g[1][0], g[1][65], ... - elements of
 *     the still-pending column receives of phase A. The send must wait for
 *     those receives, otherwise stale corners travel and the 9-point stencil
 *     produces a wrong answer on the diagonal neighbour.
 *   - The stencil touches the ghosts right after the receives: the first
 *     touch must wait (and cascade over every request on that page).
 *   - The next iteration writes into the grid whose rows/columns were sent
 *     one iteration earlier: a converted send still in flight must have been
 *     packed already (or be waited for), never read after the overwrite.
 *   - Iteration after iteration uses the same buffers and signatures.
 * Success: "overlap_halo rank R: OK <checksum>" on every rank.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OVERLAP_PROGRAM "overlap_halo"
#include "overlap_check.h"

#define LX 64
#define LY 64
#define W (LX + 2)
#define MOD 1000003LL

enum { TAG_W = 11, TAG_E = 12, TAG_N = 13, TAG_S = 14 };


/* Initial value of extended global cell (gi, gj); exact integer < MOD. */
static double init_val(int gi, int gj)
{
    return (double)(((long long)gi * 7919 + (long long)gj * 104729 + 12345) % 1000003);
}

/* 9-point asymmetric stencil; all terms are integers < 2^27, exact. */
static double stencil(const double *p, int w)
{
    double v = p[0] + 2 * p[-w] + 3 * p[w] + 5 * p[-1] + 7 * p[1]
             + 11 * p[-w - 1] + 13 * p[-w + 1] + 17 * p[w - 1] + 19 * p[w + 1] + 1.0;
    return (double)((long long)v % MOD); /* v is an exact integer < 2^53 */
}

int main(int argc, char **argv)
{
    int size, iters = 20;

    size = overlap_init(&argc, &argv, 0);
    iters = overlap_iters(argc, argv, iters);

    int dims[2] = {0, 0}, periods[2], coords[2];
    MPI_Dims_create(size, 2, dims);
    periods[0] = dims[0] > 1;
    periods[1] = dims[1] > 1;
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_coords(cart, g_rank, 2, coords);
    int left, right, up, down;
    MPI_Cart_shift(cart, 0, 1, &left, &right); /* dim 0 = x (columns) */
    MPI_Cart_shift(cart, 1, 1, &up, &down);    /* dim 1 = y (rows) */

    const int GX = dims[0] * LX, GY = dims[1] * LY, GW = GX + 2;
    const int gx0 = coords[0] * LX, gy0 = coords[1] * LY;

    MPI_Datatype col;
    MPI_Type_vector(LY, 1, W, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);

    /* Distributed grids (malloc'd after MPI_Init). */
    double *g = malloc(sizeof(double) * W * (LY + 2));
    double *h = malloc(sizeof(double) * W * (LY + 2));
    /* Reference: the whole extended global grid, twice. */
    double *R = malloc(sizeof(double) * GW * (GY + 2));
    double *R2 = malloc(sizeof(double) * GW * (GY + 2));
    if (!g || !h || !R || !R2)
        die("malloc failed");
    for (int i = 0; i < LY + 2; i++)
        for (int j = 0; j < W; j++)
            g[i * W + j] = h[i * W + j] = init_val(gy0 + i, gx0 + j);
    for (int i = 0; i < GY + 2; i++)
        for (int j = 0; j < GW; j++)
            R[i * GW + j] = R2[i * GW + j] = init_val(i, j);

    for (int it = 0; it < iters; it++) {
        /* A. columns (rows 1..LY only). */
        MPI_Send(&g[1 * W + 1], 1, col, left, TAG_W, cart);
        MPI_Send(&g[1 * W + LX], 1, col, right, TAG_E, cart);
        MPI_Recv(&g[1 * W + 0], 1, col, left, TAG_E, cart, MPI_STATUS_IGNORE);
        MPI_Recv(&g[1 * W + LX + 1], 1, col, right, TAG_W, cart, MPI_STATUS_IGNORE);
        /* B. full rows including ghost columns (corners). */
        MPI_Send(&g[1 * W], W, MPI_DOUBLE, up, TAG_N, cart);
        MPI_Send(&g[LY * W], W, MPI_DOUBLE, down, TAG_S, cart);
        MPI_Recv(&g[0], W, MPI_DOUBLE, up, TAG_S, cart, MPI_STATUS_IGNORE);
        MPI_Recv(&g[(LY + 1) * W], W, MPI_DOUBLE, down, TAG_N, cart, MPI_STATUS_IGNORE);
        /* C. compute: reads all of g, writes the interior of h. */
        for (int i = 1; i <= LY; i++)
            for (int j = 1; j <= LX; j++)
                h[i * W + j] = stencil(&g[i * W + j], W);

        /* Reference step: same exchange order, then the same stencil. */
        if (periods[0])
            for (int i = 1; i <= GY; i++) {
                R[i * GW + 0] = R[i * GW + GX];
                R[i * GW + GX + 1] = R[i * GW + 1];
            }
        if (periods[1])
            for (int j = 0; j < GW; j++) {
                R[0 * GW + j] = R[GY * GW + j];
                R[(GY + 1) * GW + j] = R[1 * GW + j];
            }
        for (int i = 1; i <= GY; i++)
            for (int j = 1; j <= GX; j++)
                R2[i * GW + j] = stencil(&R[i * GW + j], GW);

        /* Check every ghost cell of g (the values the stencil just used). */
        for (int i = 0; i < LY + 2; i++)
            for (int j = 0; j < W; j++) {
                if (i != 0 && i != LY + 1 && j != 0 && j != LX + 1)
                    continue;
                double e = R[(gy0 + i) * GW + gx0 + j], v = g[i * W + j];
                if (v != e)
                    die("expected %.17g got %.17g at iteration %d ghost g[%d][%d]", e, v, it, i, j);
            }
        double *t = g; g = h; h = t;
        t = R; R = R2; R2 = t;
    }

    for (int i = 1; i <= LY; i++)
        for (int j = 1; j <= LX; j++) {
            double e = R[(gy0 + i) * GW + gx0 + j], v = g[i * W + j];
            if (v != e)
                die("expected %.17g got %.17g at final interior g[%d][%d]", e, v, i, j);
            ck_mix((unsigned long long)v);
        }

    printf("overlap_halo rank %d: OK %016llx\n", g_rank, g_ck);
    fflush(stdout);
    free(g);
    free(h);
    free(R);
    free(R2);
    MPI_Type_free(&col);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}

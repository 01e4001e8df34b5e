/* overlap_loop.c - a long red-black SOR-like loop of MPI_Sendrecv on one
 * grid buffer, and a last iteration that leaves the learned path (overlap
 * tool test).
 *
 * Usage: overlap_loop [iters=200] [break]  -np 2 (any np >= 2 works).
 * -np 3 takes ~1 s with Open MPI; with MPICH, 3 busy-polling ranks on 2
 * cores cost ~20 ms per iteration, so use "overlap_loop 60" there.
 *
 * 1D periodic ring decomposition by rows: each rank owns 16 rows of 128
 * doubles (1 KB per row, 4 rows per 4 KB page) of a global periodic grid,
 * with one ghost row above and below, all in ONE malloc'd buffer. Points
 * are coloured (global row + column) % 2. Each iteration, for colour c = 0
 * then 1:
 *   Sendrecv #1/#3: row 1's points of colour 1-c up, ghost row 17's from
 *                   below (MPI_Type_vector, stride 2);
 *   Sendrecv #2/#4: row 16's points down, ghost row 0's from above;
 *   update every colour-c point from its four colour-(1-c) neighbours
 *   (ghost rows included; exact integer arithmetic in doubles, mod 1000003).
 * So 4 Sendrecv per iteration with identical signatures every iteration: a
 * chain-learning method sees the same chain 200 times. Every rank also runs
 * the whole grid sequentially and compares its rows at the end.
 *
 * "break": on the LAST iteration, after the colour-0 update, rank 1 first
 * waits ~20 ms (so its data for Sendrecv #3 is late), then every rank does
 * Sendrecv #3 and IMMEDIATELY reads the ghost row it just received (before
 * #4), then an extra MPI_Send/MPI_Recv pair of a heap scalar (to the rank
 * below, from the rank above) and reads that value at once, then #4 and the
 * colour-1 update as usual. A tool that trusted the learned chain (#3 in
 * place, wait only at #4) lets the program read a stale ghost row / value.
 * Both values read early are checked against the sequential simulation and
 * folded into the checksum.
 * Success: "overlap_loop rank R: OK <checksum>" on every rank.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OVERLAP_PROGRAM "overlap_loop"
#include "overlap_check.h"

#define NR 16      /* rows per rank (even) */
#define WD 128     /* doubles per row (even) */
#define MOD 1000003LL


static double init_val(int gi, int j)
{
    return (double)(((long long)gi * 7919 + (long long)j * 104729 + 4242) % 1000003);
}

/* Update point p (row stride WD, periodic columns) of colour c. */
static double upd(const double *row, const double *up, const double *dn, int j, int c)
{
    int jl = (j + WD - 1) % WD, jr = (j + 1) % WD;
    double v = 3 * row[j] + up[j] + 2 * dn[j] + 5 * row[jl] + 7 * row[jr] + 1 + c; /* exact integer */
    return (double)((long long)v % MOD);
}

/* Column offset of the first colour-k point of a row with global index gi. */
static int first_col(int k, int gi) { return ((k - gi) % 2 + 2) % 2; }

int main(int argc, char **argv)
{
    int size, iters = 200, brk = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "break") == 0)
            brk = 1;
        else
            iters = atoi(argv[a]);
    }
    if (iters < 1)
        iters = 1;
    if (size < 2)
        die("needs at least 2 processes");
    const int up = (g_rank + size - 1) % size, down = (g_rank + 1) % size;
    const int GR = size * NR, g0 = g_rank * NR; /* global row of local row 1 */
    MPI_Comm comm = MPI_COMM_WORLD;

    MPI_Datatype half;
    MPI_Type_vector(WD / 2, 1, 2, MPI_DOUBLE, &half);
    MPI_Type_commit(&half);

    double *g = malloc(sizeof(double) * WD * (NR + 2));
    double *G = malloc(sizeof(double) * WD * GR); /* reference */
    double *xs = malloc(sizeof(double)), *ys = malloc(sizeof(double));
    if (!g || !G || !xs || !ys)
        die("malloc failed");
    for (int i = 0; i < NR + 2; i++)
        for (int j = 0; j < WD; j++)
            g[i * WD + j] = init_val((g0 + i - 1 + GR) % GR, j);
    for (int gi = 0; gi < GR; gi++)
        for (int j = 0; j < WD; j++)
            G[gi * WD + j] = init_val(gi, j);

    for (int it = 0; it < iters; it++) {
        const int last = brk && it == iters - 1;
        for (int c = 0; c < 2; c++) {
            const int k = 1 - c;
            /* global rows: local 1 = g0, local NR = g0+NR-1,
             * ghost NR+1 = g0+NR, ghost 0 = g0-1 (all mod GR) */
            const int o1 = first_col(k, g0), oN = first_col(k, g0 + NR - 1);
            const int oG = first_col(k, g0 + NR), o0 = first_col(k, g0 - 1);
            if (last && c == 1 && g_rank == 1) { /* make Sendrecv #3's data late */
                double t0 = MPI_Wtime();
                while (MPI_Wtime() - t0 < 0.02)
                    ;
            }
            MPI_Sendrecv(&g[1 * WD + o1], 1, half, up, 2 * c, &g[(NR + 1) * WD + oG], 1, half, down, 2 * c,
                         comm, MPI_STATUS_IGNORE);
            if (last && c == 1) {
                /* read the ghost row of #3 at once; reference: global row
                 * g0+NR after this iteration's colour-0 update */
                const double *row = &g[(NR + 1) * WD], *ref = &G[((g0 + NR) % GR) * WD];
                for (int j = oG; j < WD; j += 2) {
                    if (row[j] != ref[j])
                        die("expected %.17g got %.17g at last iteration ghost row %d [%d] read right after Sendrecv",
                            ref[j], row[j], NR + 1, j);
                    ck_mix((unsigned long long)row[j]);
                }
                *xs = 1000.0 * it + g_rank;
                MPI_Send(xs, 1, MPI_DOUBLE, down, 7, comm);
                MPI_Recv(ys, 1, MPI_DOUBLE, up, 7, comm, MPI_STATUS_IGNORE);
                if (*ys != 1000.0 * it + up)
                    die("expected %.17g got %.17g at extra Recv value", 1000.0 * it + up, *ys);
                ck_mix((unsigned long long)*ys);
            }
            MPI_Sendrecv(&g[NR * WD + oN], 1, half, down, 2 * c + 1, &g[0 * WD + o0], 1, half, up, 2 * c + 1,
                         comm, MPI_STATUS_IGNORE);
            for (int i = 1; i <= NR; i++) {
                const int gi = g0 + i - 1;
                for (int j = first_col(c, gi); j < WD; j += 2)
                    g[i * WD + j] = upd(&g[i * WD], &g[(i - 1) * WD], &g[(i + 1) * WD], j, c);
            }
            /* reference: the same colour sweep on the global grid */
            for (int gi = 0; gi < GR; gi++) {
                const double *u = &G[((gi - 1 + GR) % GR) * WD], *d = &G[((gi + 1) % GR) * WD];
                for (int j = first_col(c, gi); j < WD; j += 2)
                    G[gi * WD + j] = upd(&G[gi * WD], u, d, j, c);
            }
        }
    }

    for (int i = 1; i <= NR; i++)
        for (int j = 0; j < WD; j++) {
            const double e = G[(g0 + i - 1) * WD + j], v = g[i * WD + j];
            if (v != e)
                die("expected %.17g got %.17g at final row %d [%d] (global row %d)", e, v, i, j, g0 + i - 1);
            ck_mix((unsigned long long)v);
        }

    printf("overlap_loop rank %d: OK %016llx\n", g_rank, g_ck);
    fflush(stdout);
    MPI_Type_free(&half);
    free(g);
    free(G);
    free(xs);
    free(ys);
    MPI_Finalize();
    return 0;
}

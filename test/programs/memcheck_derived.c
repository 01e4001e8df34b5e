/* Derived datatypes made, used once and freed, as libraries make them per call (issue 31, item 3):
 *   accumulate  ARMCI-MPI's strided accumulate (NWChem through ARMCI on MPICH): per round an origin
 *               and a target MPI_Type_create_subarray with different leading dimensions, an
 *               MPI_Accumulate under MPI_Win_lock, both types freed (origin first);
 *   getacc      MPI_Get_accumulate whose result datatype is an MPI_Type_vector / hvector;
 *   combine     ScaLAPACK's BLACS combine (BI_BeComb): an MPI_Sendrecv of a matrix block described
 *               by an MPI_Type_indexed (vector on the way back), made and freed per call.
 * Every buffer is allocated to end exactly at its last element (true extent), so a span computed
 * from a stale or wrong extent runs past its block. The library hands a freed handle to the next
 * type made (MPICH: last freed, first given), so a size or extent cached under the old handle
 * would describe the previous round's type. Correct: no finding expected, and every element
 * received (window, Get_accumulate result, combine block) is checked against what it must be, as
 * is every gap of a strided result: "WRONG" otherwise, and exit code 1.
 * With the argument `overrun`, rank 0 also sends a vector one element past its allocation:
 * exactly one send buffer overrun of 8 B. 2 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define ROUNDS 12

static int rank, errors;
static double checksum;

/* rows x cols doubles with leading dimension ld, C order: (rows - 1) * ld + cols elements */
static MPI_Datatype subarray(int rows, int cols, int ld)
{
    int sizes[2] = { rows, ld }, sub[2] = { rows, cols }, starts[2] = { 0, 0 };
    MPI_Datatype t;
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

static double *block(int rows, int cols, int ld)
{
    size_t n = (size_t) (rows - 1) * ld + cols;
    double *b = malloc(n * sizeof *b);
    for (size_t i = 0; i < n; i++) b[i] = (double) (i % 7);
    return b;
}

/* The target window after accumulate(): what each rank checks the data it gets against. */
static double *accumulated(size_t tn)
{
    double *t = calloc(tn, sizeof *t);
    for (int k = 0; k < ROUNDS; k++) {
        int rows = 2 + k % 3, cols = 1 + k % 4, ld = cols + 1 + k % 5, tld = ld + 8 + 3 * k;
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++) t[(size_t) i * tld + j] += (double) (((size_t) i * ld + j) % 7);
    }
    return t;
}

static void accumulate(MPI_Win win, double *target, size_t tn)
{
    for (int k = 0; k < ROUNDS; k++) {
        int rows = 2 + k % 3, cols = 1 + k % 4, ld = cols + 1 + k % 5, tld = ld + 8 + 3 * k;
        if (rank == 0) {
            double *src = block(rows, cols, ld);
            MPI_Datatype st = subarray(rows, cols, ld), tt = subarray(rows, cols, tld);
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            MPI_Accumulate(src, 1, st, 1, 0, 1, tt, MPI_SUM, win); /* MEMCHECK-CALL */
            MPI_Win_unlock(1, win);
            MPI_Type_free(&st);
            MPI_Type_free(&tt);
            free(src);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        double *expect = accumulated(tn);
        for (size_t i = 0; i < tn; i++) {
            if (target[i] != expect[i]) errors++; /* misplaced counts too, not only a wrong sum */
            checksum += target[i];
        }
        free(expect);
    }
    /* rank 0's Get_accumulates (next) add to this window: not before rank 1 has read it (without
     * this barrier the checksum raced them, and came out larger when rank 1 was slower) */
    MPI_Barrier(MPI_COMM_WORLD);
}

static void getacc(MPI_Win win, size_t tn)
{
    double *now = rank == 0 ? accumulated(tn) : NULL; /* the target's first elements, as they change */
    for (int k = 0; k < ROUNDS; k++) {
        int n = 2 + k % 5, stride = 2 + k % 3;
        if (rank == 0) {
            double *origin = block(1, n, n);
            double *result = block(n, 1, stride);
            MPI_Datatype rt;
            if (k % 2) MPI_Type_vector(n, 1, stride, MPI_DOUBLE, &rt);
            else MPI_Type_create_hvector(n, 1, (MPI_Aint) (stride * sizeof(double)), MPI_DOUBLE, &rt);
            MPI_Type_commit(&rt);
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            MPI_Get_accumulate(origin, n, MPI_DOUBLE, result, 1, rt, 1, 0, n, MPI_DOUBLE, MPI_SUM, win); /* MEMCHECK-CALL */
            MPI_Win_unlock(1, win);
            /* the target's values before this round in the type's elements; the gaps untouched */
            for (int i = 0; i < n; i++) {
                for (int g = 1; g < stride && i < n - 1; g++)
                    if (result[(size_t) i * stride + g] != (double) (((size_t) i * stride + g) % 7)) errors++;
                if (result[(size_t) i * stride] != now[i]) errors++;
                now[i] += origin[i];
                checksum += result[(size_t) i * stride];
            }
            MPI_Type_free(&rt);
            free(result);
            free(origin);
        }
    }
    free(now);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* BLACS' combine: each rank sends its block and receives the partner's into a work block, the
 * block described by an indexed type going out and a vector type coming back. */
static void combine(void)
{
    int other = 1 - rank;
    for (int k = 0; k < ROUNDS; k++) {
        int rows = 1 + k % 4, cols = 2 + k % 3, ld = rows + 1 + k % 4;
        double *a = block(cols, rows, ld), *w = block(cols, rows, ld);
        int *len = malloc(cols * sizeof *len), *disp = malloc(cols * sizeof *disp);
        for (int j = 0; j < cols; j++) len[j] = rows, disp[j] = j * ld;
        MPI_Datatype out, in;
        MPI_Type_indexed(cols, len, disp, MPI_DOUBLE, &out);
        MPI_Type_vector(cols, rows, ld, MPI_DOUBLE, &in);
        MPI_Type_commit(&out);
        MPI_Type_commit(&in);
        MPI_Sendrecv(a, 1, out, other, k, w, 1, in, other, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MEMCHECK-CALL */
        for (int j = 0; j < cols; j++)
            for (int i = 0; i < rows; i++) {
                double x = w[(size_t) j * ld + i];
                if (x != a[(size_t) j * ld + i]) errors++; /* both ranks fill their blocks alike */
                checksum += x;
            }
        MPI_Type_free(&in);
        MPI_Type_free(&out);
        free(disp);
        free(len);
        free(w);
        free(a);
    }
}

/* A real overrun: 4 doubles with stride 4 span 13 elements; the block holds 12. */
static void overrun(void)
{
    MPI_Datatype v;
    MPI_Type_vector(4, 1, 4, MPI_DOUBLE, &v);
    MPI_Type_commit(&v);
    if (rank == 0) {
        double *b = calloc(12, sizeof *b);
        MPI_Send(b, 1, v, 1, 99, MPI_COMM_WORLD); /* MEMCHECK-OVERRUN */
        free(b);
    } else {
        double *b = malloc(4 * sizeof *b);
        MPI_Recv(b, 4, MPI_DOUBLE, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        checksum += b[0] + b[1] + b[2] + b[3];
        free(b);
    }
    MPI_Type_free(&v);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t tn = 4096;
    double *target;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint) (tn * sizeof(double)), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &target, &win);
    memset(target, 0, tn * sizeof(double));
    MPI_Barrier(MPI_COMM_WORLD);
    accumulate(win, target, tn);
    getacc(win, tn);
    combine();
    if (argc > 1 && !strcmp(argv[1], "overrun")) overrun();
    MPI_Win_free(&win);
    printf("memcheck_derived rank %d: %s checksum %.1f\n", rank, errors ? "WRONG" : "OK", checksum);
    MPI_Finalize();
    return errors != 0;
}

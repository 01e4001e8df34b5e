/* overlap_datatypes.c - datatypes overlap must pass through or handle exactly (overlap tool test;
 * the patterns of MPICH's test suite that overlap once broke).
 *
 * Usage: overlap_datatypes [rounds=3]          -np 2 (any even np works: ranks pair up)
 *
 * Phases:
 *   1. MPI_BOTTOM with a struct datatype whose displacement is the absolute address of a stack
 *      variable (MPICH pt2pt/bottom.c): the receiver must read the sent value. overlap cannot
 *      guard a stack variable, and the library may refuse MPI_Pack(MPI_BOTTOM, …): both calls
 *      must stay blocking.
 *   2. MPI_BOTTOM with a struct datatype pointing into a heap block big enough for the
 *      page-exclusive heap (two blocks of doubles, absolute addresses): the same rule.
 *   3. A vector datatype made, used for one MPI_Send/MPI_Recv of one element into a heap buffer
 *      (a receive overlap converts), then freed, for growing sizes `rounds` times over: the
 *      freed handle comes back as the next, larger type (MPICH datatype tests), so nothing
 *      known about a handle may outlive MPI_Type_free. 128-int blocks, stride 129.
 * Success: "overlap_datatypes rank R: OK <checksum>" on every rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OVERLAP_PROGRAM "overlap_datatypes"
#include "overlap_check.h"

static void bottom_stack(int partner)
{
    int value = 0, len = 1;
    MPI_Aint disp;
    MPI_Datatype base = MPI_INT, t;
    MPI_Get_address(&value, &disp);
    MPI_Type_create_struct(1, &len, &disp, &base, &t);
    MPI_Type_commit(&t);
    if (g_rank % 2 == 0) {
        value = 2;
        MPI_Send(MPI_BOTTOM, 1, t, partner, 1, MPI_COMM_WORLD);
    } else {
        value = -1;
        MPI_Status st;
        MPI_Recv(MPI_BOTTOM, 1, t, partner, 1, MPI_COMM_WORLD, &st);
        int n = -1;
        MPI_Get_count(&st, t, &n);
        check_int("bottom_stack.count", 0, 1, n);
        check_int("bottom_stack", 0, 2, value);
    }
    MPI_Type_free(&t);
}

static void bottom_heap(int partner)
{
    enum { N = 2048 }; /* 16 KiB each: page-exclusive heap blocks under overlap */
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    int lens[2] = { N, N };
    MPI_Aint disps[2];
    MPI_Datatype bases[2] = { MPI_DOUBLE, MPI_DOUBLE }, t;
    MPI_Get_address(a, &disps[0]);
    MPI_Get_address(b, &disps[1]);
    MPI_Type_create_struct(2, lens, disps, bases, &t);
    MPI_Type_commit(&t);
    for (int i = 0; i < N; i++) a[i] = b[i] = g_rank % 2 == 0 ? i + 0.5 : SENTINEL(i);
    if (g_rank % 2 == 0) {
        MPI_Send(MPI_BOTTOM, 1, t, partner, 2, MPI_COMM_WORLD);
    } else {
        MPI_Recv(MPI_BOTTOM, 1, t, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++) {
            check_int("bottom_heap.a", i, (long long) (2 * i + 1), (long long) (2 * a[i]));
            check_int("bottom_heap.b", i, (long long) (2 * i + 1), (long long) (2 * b[i]));
        }
    }
    MPI_Type_free(&t);
    free(a);
    free(b);
}

static void freed_vectors(int partner, int rounds)
{
    enum { BLOCK = 128, STRIDE = 129, MAXCOUNT = 40 };
    int *buf = malloc((size_t) MAXCOUNT * STRIDE * sizeof *buf); /* 20 KiB: page-exclusive */
    for (int round = 0; round < rounds; round++) {
        for (int count = 1; count <= MAXCOUNT; count += 3) {
            MPI_Datatype t;
            MPI_Type_vector(count, BLOCK, STRIDE, MPI_INT, &t);
            MPI_Type_commit(&t);
            int tag = 100 + count;
            if (g_rank % 2 == 0) {
                for (int i = 0; i < count * STRIDE; i++) buf[i] = round * 1000003 + count * 1009 + i;
                MPI_Send(buf, 1, t, partner, tag, MPI_COMM_WORLD);
            } else {
                for (int i = 0; i < count * STRIDE; i++) buf[i] = SENTINEL(i);
                MPI_Recv(buf, 1, t, partner, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            MPI_Type_free(&t);
            if (g_rank % 2 == 1)
                for (int i = 0; i < count * STRIDE; i++) {
                    int in_block = i % STRIDE < BLOCK;
                    check_int("freed_vectors", i, in_block ? round * 1000003 + count * 1009 + i : SENTINEL(i), buf[i]);
                }
        }
    }
    free(buf);
}

int main(int argc, char **argv)
{
    int size, rounds = argc > 1 ? atoi(argv[1]) : 3;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2) die("needs an even number of processes");
    int partner = g_rank ^ 1;
    bottom_stack(partner);
    bottom_heap(partner);
    freed_vectors(partner, rounds);
    printf(OVERLAP_PROGRAM " rank %d: OK %016llx\n", g_rank, g_ck);
    MPI_Finalize();
    return 0;
}

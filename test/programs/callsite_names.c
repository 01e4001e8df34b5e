/* callsite_names.c - MPI calls from functions of each kind, for how call sites are named in
 * stripped programs and libraries (test/callsites.test.ts builds it with -rdynamic and
 * -fno-toplevel-reorder, so the functions lie in this order, links it with callsite_lib.c as
 * libcallsite_lib.so, and strips copies of both):
 *   callsite_before()  exported, no MPI call: the exported neighbour below hidden()
 *   hidden()           static, between the two exported functions: MPI_Allreduce  (site:hidden)
 *   callsite_after()   exported: MPI_Barrier                                       (site:after)
 *   the library's static lib_hidden(): MPI_Bcast (callsite_lib.c, site:lib-hidden)
 * Every call is followed by work on its result, so none becomes a tail call (whose return
 * address would be the caller's). Prints "callsite_names ok" from rank 0. */
#include <mpi.h>
#include <stdio.h>

int callsite_lib_bcast(int value); /* callsite_lib.c */

int __attribute__((noipa)) callsite_before(int x)
{
    int y = 0;
    for (int i = 0; i < x; i++) y += i * x;
    return y;
}

static int __attribute__((noipa)) hidden(int x)
{
    int sum = 0;
    int rc = MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* site:hidden */
    return rc == MPI_SUCCESS ? sum : -1;
}

int __attribute__((noipa)) callsite_after(int x)
{
    int rc = MPI_Barrier(MPI_COMM_WORLD); /* site:after */
    return rc == MPI_SUCCESS ? x : -1;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ok = callsite_before(3) == 9 && hidden(1) == size && callsite_after(rank) == rank && callsite_lib_bcast(rank + 7) == 7;
    int all = 0; /* a Reduce: each MPI function is called from one site, which names it in the test */
    MPI_Reduce(&ok, &all, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    if (rank == 0 && all) printf("callsite_names ok\n");
    MPI_Finalize();
    return rank == 0 && !all ? 1 : 0;
}

/* collectives.c - exercises the common blocking collectives with contents
 * that each rank can verify independently:
 *   Barrier, Bcast, Reduce, Allreduce, Gather, Scatter, Allgather, Alltoall.
 * Every rank checks what it received; the verdicts are combined with a final
 * MPI_Allreduce(MIN) so all ranks agree. Rank 0 prints
 * "collectives ok size=<N>".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, what)                                                  \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "collectives FAIL rank=%d: %s\n", rank, what); \
            ok = 0;                                                        \
        }                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size, ok = 1, all_ok = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int *buf = malloc(sizeof(int) * (size_t)size);
    int *buf2 = malloc(sizeof(int) * (size_t)size);
    if (!buf || !buf2)
        MPI_Abort(MPI_COMM_WORLD, 2);

    MPI_Barrier(MPI_COMM_WORLD);

    /* Bcast: root's magic value reaches everyone. */
    int v = (rank == 0) ? 4242 : -1;
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(v == 4242, "bcast");

    /* Reduce/Allreduce: sum of (rank+1) is size*(size+1)/2. */
    int mine = rank + 1, sum = -1, expect = size * (size + 1) / 2;
    MPI_Reduce(&mine, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(sum == expect, "reduce");
    sum = -1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == expect, "allreduce");

    /* Gather: root sees rank*10 at slot rank. */
    int g = rank * 10;
    MPI_Gather(&g, 1, MPI_INT, buf, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int i = 0; i < size; i++)
            CHECK(buf[i] == i * 10, "gather");

    /* Scatter: root sends 100+i to rank i. */
    if (rank == 0)
        for (int i = 0; i < size; i++)
            buf[i] = 100 + i;
    int s = -1;
    MPI_Scatter(buf, 1, MPI_INT, &s, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(s == 100 + rank, "scatter");

    /* Allgather: everyone sees rank*rank at slot rank. */
    int a = rank * rank;
    MPI_Allgather(&a, 1, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        CHECK(buf[i] == i * i, "allgather");

    /* Alltoall: rank r sends r*1000+d to rank d, so rank d gets s*1000+d. */
    for (int d = 0; d < size; d++)
        buf[d] = rank * 1000 + d;
    MPI_Alltoall(buf, 1, MPI_INT, buf2, 1, MPI_INT, MPI_COMM_WORLD);
    for (int src = 0; src < size; src++)
        CHECK(buf2[src] == src * 1000 + rank, "alltoall");

    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0 && all_ok)
        printf("collectives ok size=%d\n", size);
    fflush(stdout);

    free(buf);
    free(buf2);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}

/* gather_ring.c - for gather.test.ts: rank r sends r + 1 messages of 8 bytes to its next rank
 * on the ring, so every rank's profile image is different and a misplaced image shows. The
 * profile images reach the writer at MPI_Finalize through group leaders (preload/core/gather.c).
 * Prints "gather_ring ok size=<N>" from rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    double x = rank, y = 0;
    MPI_Request *req = malloc(sizeof *req * (size_t) (rank + 1));
    for (int i = 0; i < rank + 1; i++) MPI_Isend(&x, 1, MPI_DOUBLE, next, 0, MPI_COMM_WORLD, &req[i]);
    for (int i = 0; i < prev + 1; i++) MPI_Recv(&y, 1, MPI_DOUBLE, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Waitall(rank + 1, req, MPI_STATUSES_IGNORE);
    free(req);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("gather_ring ok size=%d\n", size);
    MPI_Finalize();
    return 0;
}

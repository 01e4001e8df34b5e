/* A write made inside the C library: memset over a buffer whose MPI_Irecv is pending. libc.so.6 is
 * stripped; its debug file is Debian's libc6-dbg, under /usr/lib/debug/.build-id (where every
 * -dbgsym package puts its files), so memcheck's finding names the access by libc's own source
 * line. Expect one error on rank 0, the access inside memset, the next frame at MEMCHECK-ACCESS. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#define N (1 << 20)
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *buf = malloc(N);
    memset(buf, 0, N);
    if (rank == 0) {
        MPI_Request req;
        MPI_Irecv(buf, N, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &req); /* MEMCHECK-CALL */
        memset(buf, 7, N);                                       /* MEMCHECK-ACCESS */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(buf, N, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}

/* Memory MPI still owns, released or handed to the kernel: free() of a pending receive buffer
 * (argv[1] = free; the receive is then cancelled, so nothing writes to the freed memory) or
 * read() into it (argv[1] = syscall; the message arrives afterwards). */
#include <mpi.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define N 1024
int main(int argc, char **argv)
{
    int rank;
    const char *mode = argc > 1 ? argv[1] : "free";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *b = malloc(N), *spare = malloc(N);
    memset(b, 1, N);
    if (rank == 1) {
        MPI_Request req;
        MPI_Irecv(spare, N, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &req); /* MEMCHECK-CALL */
        if (!strcmp(mode, "free")) {
            free(spare); /* MEMCHECK-ACCESS */
            spare = b;
            MPI_Cancel(&req);
        } else {
            int fd = open("/dev/zero", O_RDONLY);
            ssize_t got = read(fd, spare, 16); /* MEMCHECK-ACCESS */
            printf("read %zd\n", got);
            close(fd);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        volatile long s = 0;
        for (int i = 0; i < N; i++) s += spare[i]; /* the message is used */
    } else if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (strcmp(mode, "free")) MPI_Send(b, N, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (spare != b) free(spare);
    free(b);
    MPI_Finalize();
    return 0;
}

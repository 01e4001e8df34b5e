/* A 1-D halo exchange inside one array: the ghost cells received (Irecv) share a page with the
 * interior cells sent (Isend), and the messages are large enough for a single-copy transfer (the
 * peer reads the pending send with process_vm_readv while this rank computes outside MPI). A
 * correct program: memcheck must find nothing and the library's transfers must not fail. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define G 1500   /* ghost doubles each side: 12000 B, not page-aligned */
#define N 200000
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double *a = malloc((N + 2 * G) * sizeof *a);
    for (int i = 0; i < N + 2 * G; i++) a[i] = rank;
    double total = 0;
    for (int it = 0; it < 10; it++) {
        MPI_Request r[4];
        MPI_Irecv(a, G, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(a + G + N, G, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(a + G, G, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &r[2]);
        MPI_Isend(a + N, G, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[3]);
        double s = 0; /* interior work while the halos move: touches no halo page */
        for (int k = 0; k < 20; k++) for (int i = 2 * G + 600; i < N - G - 600; i++) s += a[i] * 1e-9;
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        (void) s;
        for (int i = 0; i < N + 2 * G; i++) a[i] = a[i] * 0.5 + 1;
        total += s;
    }
    double sum = 0;
    for (int i = 0; i < N + 2 * G; i++) sum += a[i];
    printf("rank %d sum %.6f\n", rank, sum);
    MPI_Finalize();
}

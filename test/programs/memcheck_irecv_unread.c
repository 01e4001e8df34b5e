/* A repeated MPI_Irecv into a buffer the program does not read in between (CP2K does this with
 * buffers from MPI_Alloc_mem): each receive lands on the previous message, never read. Only the
 * library writes it: a hint, "received data never read, overwritten by a later receive", at the
 * site of the receive whose data was lost — never a write by the program. argv[1]:
 *   repeat  (default) 16 receives of 64 KiB at one site: 15 hints (the last message is read);
 *   bottom  16 receives of 2 KiB (malloc: eager: the library copies them in user space, inside MPI
 *           calls), every second one through MPI_BOTTOM with the buffer's absolute address, so
 *           memcheck cannot see which bytes it will fill when it is posted: the library's copy
 *           faults on the watched data of the receive before. 8 hints at the MEMCHECK-CALL site;
 *           before, "write before read of received data" whose writer was the library
 *           (Open MPI: opal_convertor_unpack ← ob1, as in CP2K). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define ROUNDS 16 /* memcheck checks a call site's first 16 operations */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, bottom = argc > 1 && !strcmp(argv[1], "bottom");
    int n = bottom ? 256 : 8192;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double *buf; /* MPI_Alloc_mem keeps blocks below a page where the library puts them (unchecked) */
    if (bottom) buf = malloc((size_t) n * sizeof *buf);
    else MPI_Alloc_mem((MPI_Aint) n * sizeof *buf, MPI_INFO_NULL, &buf);
    MPI_Datatype at_buf; /* the buffer by absolute address, for MPI_BOTTOM */
    MPI_Aint where;
    MPI_Get_address(buf, &where);
    int len = n;
    MPI_Type_create_hindexed(1, &len, &where, MPI_DOUBLE, &at_buf);
    MPI_Type_commit(&at_buf);
    if (rank == 0) {
        for (int k = 0; k < ROUNDS; k++) {
            for (int i = 0; i < n; i++) buf[i] = k + i * 1e-3;
            MPI_Send(buf, n, MPI_DOUBLE, 1, k, MPI_COMM_WORLD);
        }
    } else if (rank == 1) {
        for (int k = 0; k < ROUNDS; k++) {
            MPI_Request r;
            if (bottom && k % 2)
                MPI_Irecv(MPI_BOTTOM, 1, at_buf, 0, k, MPI_COMM_WORLD, &r);
            else
                MPI_Irecv(buf, n, MPI_DOUBLE, 0, k, MPI_COMM_WORLD, &r); /* MEMCHECK-CALL */
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        double s = 0;
        for (int i = 0; i < n; i++) s += buf[i]; /* the last message is used */
        printf("sum %.3f\n", s);
    }
    MPI_Type_free(&at_buf);
    if (bottom) free(buf);
    else MPI_Free_mem(buf);
    MPI_Finalize();
    return 0;
}

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
 *           (Open MPI: opal_convertor_unpack ← ob1, as in CP2K).
 *   pmpi    as bottom, but every second receive is PMPI_Irecv + PMPI_Wait: the library's own code
 *           writes the watched data outside any call memcheck wraps, as under Open MPI's Fortran
 *           binding (libmpi_mpifh calls PMPI_ for the functions mpii has no Fortran entry point
 *           for: CP2K's MPI_Iallgatherv, MPI_Rget, …). 8 hints at the MEMCHECK-CALL site; before,
 *           "write before read of received data" on both MPIs.
 *   progress  each MPI_Irecv's message arrives while the receiver is in PMPI_Barrier (progress
 *           outside any wrapped call): the library writes the pending buffer, its right. No finding
 *           (the data is read); before, "write to a pending receive buffer" on both MPIs.
 *   thread  as progress, but once its receive is posted the receiver tells the sender and sleeps
 *           (no MPI call, MPI_THREAD_MULTIPLE): with a progress thread of the library (Open MPI:
 *           btl tcp with btl_tcp_progress_thread 1; MPICH: MPIR_CVAR_ASYNC_PROGRESS=1) the message
 *           lands on that thread. No finding; before, 16 "write to a pending receive buffer" on
 *           both MPIs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define ROUNDS 16 /* memcheck checks a call site's first 16 operations */

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "repeat";
    int thread = !strcmp(mode, "thread"), provided;
    if (thread) MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else MPI_Init(&argc, &argv);
    int rank, pmpi = !strcmp(mode, "pmpi"), progress = !strcmp(mode, "progress") || thread;
    int bottom = !strcmp(mode, "bottom") || pmpi || progress;
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
            if (thread) /* sent once the receive is posted: it arrives while rank 1 sleeps */
                MPI_Recv(NULL, 0, MPI_BYTE, 1, 1000 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, n, MPI_DOUBLE, 1, k, MPI_COMM_WORLD);
            if (progress && !thread) PMPI_Barrier(MPI_COMM_WORLD);
        }
    } else if (rank == 1) {
        double s0 = 0;
        for (int k = 0; k < ROUNDS; k++) {
            MPI_Request r;
            if (pmpi && k % 2) {
                PMPI_Irecv(buf, n, MPI_DOUBLE, 0, k, MPI_COMM_WORLD, &r);
                PMPI_Wait(&r, MPI_STATUS_IGNORE);
                continue;
            }
            if (progress) {
                MPI_Irecv(buf, n, MPI_DOUBLE, 0, k, MPI_COMM_WORLD, &r);
                if (thread) {
                    MPI_Send(NULL, 0, MPI_BYTE, 0, 1000 + k, MPI_COMM_WORLD);
                    usleep(100000); /* the message lands meanwhile, on the library's thread */
                } else {
                    PMPI_Barrier(MPI_COMM_WORLD); /* the message lands here */
                }
                MPI_Wait(&r, MPI_STATUS_IGNORE);
                for (int i = 0; i < n; i++) s0 += buf[i]; /* read: no hint */
                continue;
            }
            if (bottom && k % 2)
                MPI_Irecv(MPI_BOTTOM, 1, at_buf, 0, k, MPI_COMM_WORLD, &r);
            else
                MPI_Irecv(buf, n, MPI_DOUBLE, 0, k, MPI_COMM_WORLD, &r); /* MEMCHECK-CALL */
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        double s = 0;
        for (int i = 0; i < n; i++) s += buf[i]; /* the last message is used */
        printf("sum %.3f\n", progress ? s0 : s);
    }
    MPI_Type_free(&at_buf);
    if (bottom) free(buf);
    else MPI_Free_mem(buf);
    MPI_Finalize();
    return 0;
}

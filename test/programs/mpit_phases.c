/* Example 1 of the Inria report RR-9038 (§8.5.1, "Monitoring Phases"), written as the report
 * describes it: the program drives Open MPI's monitoring through MPI_T alone. It looks up
 * "pml_monitoring_flush" (class GENERIC), creates a session, allocates a handle bound to
 * MPI_COMM_WORLD passed as the report passes it (the communicator itself, where the standard
 * wants a pointer to it; that allocation resets the counters), starts it, circulates a
 * token (n from 25 down to -1, MPI_Isend/MPI_Irecv/MPI_Wait, tags from 201), writes the file
 * name "<dir>/phase_1" and stops the handle: that writes <dir>/phase_1.<rank>.prof.
 *
 * A second phase follows the same pattern (the report's program has one): the handle is
 * started again, a token of 10 ints goes round the other way (tags from 301) and every rank
 * joins an MPI_Allreduce and rank 1 an MPI_Bcast root; "<dir>/phase_2", stop. Then the name is
 * unset with the address of a NULL pointer as in the report, and traffic after that (one more
 * ring, stop) must appear in no file.
 *
 * Usage: mpit_phases [dir] (default "prof"; the directory must exist). With -DONLY_PHASE=k the
 * program makes only phase k's traffic and no MPI_T call: Open MPI's own monitoring then writes
 * what that phase should give at MPI_Finalize (--mca pml_monitoring_enable_output 3). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static const void *nullbuff = NULL;

static void check(int rc, const char *what, int rank)
{
    if (rc != MPI_SUCCESS) {
        printf("rank %d: %s failed (%d)\n", rank, what, rc);
        MPI_Abort(MPI_COMM_WORLD, rc);
    }
}

/* the report's token ring: rank 0 starts with n, everybody passes it on, rank 0 decrements */
static void ring(int rank, int size, int n0, int *tagno, int reverse)
{
    int to = reverse ? (rank + size - 1) % size : (rank + 1) % size;
    int from = reverse ? (rank + 1) % size : (rank + size - 1) % size;
    int n = -1, buf[10] = { 0 };
    MPI_Request request;
    MPI_Status status;
    int len = reverse ? 10 : 1;
    if (rank == 0) {
        n = n0;
        buf[0] = n;
        MPI_Isend(buf, len, MPI_INT, to, *tagno, MPI_COMM_WORLD, &request);
    }
    while (1) {
        MPI_Irecv(buf, len, MPI_INT, from, *tagno, MPI_COMM_WORLD, &request);
        MPI_Wait(&request, &status);
        n = buf[0];
        if (rank == 0) { n--; (*tagno)++; }
        buf[0] = n;
        MPI_Isend(buf, len, MPI_INT, to, *tagno, MPI_COMM_WORLD, &request);
        if (rank != 0) { n--; (*tagno)++; }
        if (n < 0) break;
    }
    /* the report's ring ends with rank 0's last send unreceived; MPICH 4.1 and later refuse to
     * finalize a communicator that still holds an unmatched message, so its receiver takes it
     * (a receive: no line of the .prof files; messages from one sender match in order) */
    if (size > 1 && rank == (reverse ? size - 1 : 1)) MPI_Recv(buf, len, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void phase2_traffic(int rank, int size)
{
    int tagno = 301;
    ring(rank, size, 5, &tagno, 1);
    double x = rank, sum = 0, b[3] = { 1, 2, 3 };
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(b, 3, MPI_DOUBLE, 1 % size, MPI_COMM_WORLD);
}

int main(int argc, char *argv[])
{
    int rank, size, provided, count, idx, tagno = 201;
    const char *dir = argc > 1 ? argv[1] : "prof";
    char filename[1024];
    MPI_T_pvar_session session;
    MPI_T_pvar_handle flush_handle;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#if defined(ONLY_PHASE)
    (void) provided; (void) count; (void) idx; (void) filename; (void) session; (void) flush_handle; (void) dir;
    (void) nullbuff; (void) check;
    if (ONLY_PHASE == 1) ring(rank, size, 25, &tagno, 0);
    else phase2_traffic(rank, size);
#else
    check(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), "MPI_T_init_thread", rank);
    if (MPI_T_pvar_get_index("pml_monitoring_flush", MPI_T_PVAR_CLASS_GENERIC, &idx) != MPI_SUCCESS) {
        printf("cannot find monitoring MPI_T \"pml_monitoring_flush\" pvar, check that you have monitoring pml\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    check(MPI_T_pvar_session_create(&session), "MPI_T_pvar_session_create", rank);
    /* as in the report: the communicator itself (the flush variable is bound to no object) */
    check(MPI_T_pvar_handle_alloc(session, idx, (void *) (intptr_t) MPI_COMM_WORLD, &flush_handle, &count),
          "MPI_T_pvar_handle_alloc", rank);

    /* first phase: a token circulates in MPI_COMM_WORLD */
    check(MPI_T_pvar_start(session, flush_handle), "MPI_T_pvar_start", rank);
    ring(rank, size, 25, &tagno, 0);
    snprintf(filename, sizeof filename, "%s/phase_1", dir);
    if (MPI_T_pvar_write(session, flush_handle, filename) != MPI_SUCCESS)
        fprintf(stderr, "Process %d cannot save monitoring in %s.%d.prof\n", rank, filename, rank);
    check(MPI_T_pvar_stop(session, flush_handle), "MPI_T_pvar_stop", rank);

    /* second phase */
    check(MPI_T_pvar_start(session, flush_handle), "MPI_T_pvar_start", rank);
    phase2_traffic(rank, size);
    snprintf(filename, sizeof filename, "%s/phase_2", dir);
    if (MPI_T_pvar_write(session, flush_handle, filename) != MPI_SUCCESS)
        fprintf(stderr, "Process %d cannot save monitoring in %s.%d.prof\n", rank, filename, rank);
    check(MPI_T_pvar_stop(session, flush_handle), "MPI_T_pvar_stop", rank);

    /* no file name: stopping writes nothing */
    if (MPI_T_pvar_write(session, flush_handle, &nullbuff) != MPI_SUCCESS)
        fprintf(stderr, "Process %d cannot unset the monitoring file name\n", rank);
    check(MPI_T_pvar_start(session, flush_handle), "MPI_T_pvar_start", rank);
    tagno = 401;
    ring(rank, size, 3, &tagno, 0);
    check(MPI_T_pvar_stop(session, flush_handle), "MPI_T_pvar_stop", rank);

    (void) MPI_T_finalize();
#endif
    MPI_Finalize();
    return EXIT_SUCCESS;
}

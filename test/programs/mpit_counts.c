/* Example 2 of the Inria report RR-9038 (§8.5.2, "Accessing Monitoring Performance
 * Variables", test/monitoring/example_reduce_count.c), written as the report describes it:
 * "pml_monitoring_messages_count" (class SIZE) is looked up, a handle bound to MPI_COMM_WORLD
 * is allocated (count = the communicator's size; the allocation resets the counters), started,
 * the token ring runs, the per-peer counts are read and reduced with
 * MPI_Allreduce(MPI_IN_PLACE, counts, count, MPI_UNSIGNED_LONG, MPI_MAX), then the handle is
 * stopped and freed. Prints each rank's counts and, on rank 0, the maxima:
 *   rank R counts: c0 c1 …
 *   max counts: m0 m1 …
 * Usage: mpit_counts [--standard] [name]: --standard binds with a pointer to the communicator
 * (the MPI standard's convention) instead of the communicator itself (the report's); `name`
 * replaces the variable looked up (e.g. mpii_monitor_p2p_count). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char *argv[])
{
    int rank, size, n = -1, to, from, tagno = 201, provided, count, idx, standard = 0;
    const char *name = "pml_monitoring_messages_count";
    MPI_T_pvar_session session;
    MPI_T_pvar_handle count_handle;
    MPI_Request request;
    MPI_Status status;
    MPI_Comm world = MPI_COMM_WORLD;

    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--standard") == 0) standard = 1;
        else name = argv[i];
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    to = (rank + 1) % size;
    from = (rank + size - 1) % size;

    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_SIZE, &idx) != MPI_SUCCESS) {
        printf("cannot find monitoring MPI_T \"%s\" pvar, check that you have monitoring pml\n", name);
        /* every rank gets here (one library): a clean exit, because after MPI_Abort hydra may kill
         * the ranks before it has forwarded what they printed (seen in 1 of 4 plain mpirun runs) */
        MPI_Finalize();
        return 1;
    }
    if (MPI_T_pvar_session_create(&session) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    void *obj = standard ? (void *) &world : (void *) (intptr_t) MPI_COMM_WORLD;
    if (MPI_T_pvar_handle_alloc(session, idx, obj, &count_handle, &count) != MPI_SUCCESS) {
        printf("failed to allocate handle on \"%s\" pvar, check that you have monitoring pml\n", name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    uint64_t *counts = malloc((size_t) count * sizeof(uint64_t));
    if (MPI_T_pvar_start(session, count_handle) != MPI_SUCCESS) {
        printf("failed to start handle on \"%s\" pvar\n", name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* token ring communications */
    if (rank == 0) {
        n = 25;
        MPI_Isend(&n, 1, MPI_INT, to, tagno, MPI_COMM_WORLD, &request);
    }
    while (1) {
        MPI_Irecv(&n, 1, MPI_INT, from, tagno, MPI_COMM_WORLD, &request);
        MPI_Wait(&request, &status);
        if (rank == 0) { n--; tagno++; }
        MPI_Isend(&n, 1, MPI_INT, to, tagno, MPI_COMM_WORLD, &request);
        if (rank != 0) { n--; tagno++; }
        if (n < 0) break;
    }

    if (MPI_T_pvar_read(session, count_handle, counts) != MPI_SUCCESS) {
        printf("failed to read handle on \"%s\" pvar\n", name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* one line per rank, in rank order */
    for (int r = 0; r < size; r++) {
        if (r == rank) {
            printf("rank %d counts:", rank);
            for (int i = 0; i < count; i++) printf(" %llu", (unsigned long long) counts[i]);
            printf("\n");
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* global reduce so everyone knows the maximum messages sent to each rank */
    MPI_Allreduce(MPI_IN_PLACE, counts, count, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("max counts:");
        for (int i = 0; i < count; i++) printf(" %llu", (unsigned long long) counts[i]);
        printf("\n");
    }
    free(counts);
    if (MPI_T_pvar_stop(session, count_handle) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    if (MPI_T_pvar_handle_free(session, &count_handle) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_T_pvar_session_free(&session);
    /* the report's ring leaves rank 0's last token unreceived; MPICH 4.1 and later refuse to
     * finalize a communicator that still holds an unmatched message, so rank 1 takes it here,
     * after the counts */
    if (rank == 1) MPI_Recv(&n, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_T_finalize();
    MPI_Finalize();
    return EXIT_SUCCESS;
}

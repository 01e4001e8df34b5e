/* profile_threads.c - MPI from three threads at once (MPI_THREAD_MULTIPLE), for tools that must
 * serialise their bookkeeping. Ranks pair up (0-1, 2-3, ...; an odd last rank talks to
 * itself). The main thread first exchanges BEFORE messages alone (a tool may keep a faster,
 * unlocked path while one thread calls MPI), then starts two threads and exchanges with them:
 * three threads exchange ROUNDS messages of 16 ints each with the partner at the same time,
 * thread t on tag t (the main thread is t = 2), so the other threads' first calls meet the main
 * thread's calls. Then the main thread alone makes AFTER calls (enough for a tool to go back to
 * its unlocked path) and the three threads exchange again. Prints "profile_threads ok
 * provided=<p>" from rank 0, or "profile_threads skipped" when the MPI does not grant
 * MPI_THREAD_MULTIPLE. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 500
#define BEFORE 100
#define AFTER 70000

static int partner;

static void *exchange(void *arg)
{
    int tag = (int) (long) arg, out[16] = { 0 }, in[16];
    for (int i = 0; i < ROUNDS; i++)
        MPI_Sendrecv(out, 16, MPI_INT, partner, tag, in, 16, MPI_INT, partner, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:threads */
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = 0, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0) printf("profile_threads skipped\n");
        MPI_Finalize();
        return 0;
    }
    partner = (rank ^ 1) < size ? rank ^ 1 : rank;
    int out[16] = { 0 }, in[16];
    for (int i = 0; i < BEFORE; i++)
        MPI_Sendrecv(out, 16, MPI_INT, partner, 3, in, 16, MPI_INT, partner, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:before */
    for (int phase = 0; phase < 2; phase++) {
        pthread_t t[2];
        for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, exchange, (void *) i);
        exchange((void *) 2);
        for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
        int me = -1;
        for (int i = 0; phase == 0 && i < AFTER; i++) MPI_Comm_rank(MPI_COMM_WORLD, &me); /* site:after */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("profile_threads ok provided=%d\n", provided);
    MPI_Finalize();
    return 0;
}

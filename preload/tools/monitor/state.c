/* monitor's state: the per-peer table and whether it records (state.h). monitor.c sets it at
 * MPI_Init and MPI_Finalize; the MPI_T variables (pvars.c) read it from here. */
#include "state.h"

int mon_world_rank = -1, mon_world_size;
uint64_t *mon_peers;
volatile int mon_recording;
int mon_threaded;
pthread_mutex_t mon_lock = PTHREAD_MUTEX_INITIALIZER;

const uint64_t *mon_peer_table(int *rank, int *size)
{
    *rank = mon_world_rank;
    *size = mon_world_size;
    return mon_peers;
}

/* for MPI_T (pvars.c), which may run on any thread: the cache is shared with the wrappers */
static const mon_group_t *group_locked(MPI_Comm comm)
{
    if (!mon_recording) return NULL;
    if (mon_threaded) pthread_mutex_lock(&mon_lock);
    const mon_group_t *g = mon_comm(comm);
    if (mon_threaded) pthread_mutex_unlock(&mon_lock);
    return g;
}

const int *mon_comm_peers(MPI_Comm comm, int *n)
{
    const mon_group_t *g = group_locked(comm);
    if (!g) return NULL;
    *n = g->remote_size ? g->remote_size : g->size;
    return g->remote_size ? g->remote_world : g->world;
}

int mon_comm_record(MPI_Comm comm)
{
    const mon_group_t *g = group_locked(comm);
    return g ? g->record : -1;
}

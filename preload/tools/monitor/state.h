/* monitor's state (state.c): the per-peer table and whether it records, with the counting
 * helpers every wrapper inlines. Above comm_cache (world_of translates ranks through it); below
 * the collectives, the MPI_T variables (pvars.c) and the wrappers (monitor.c), which all count
 * into or read this table. The variables are hidden: the inlined helpers address them directly,
 * as they did when they were monitor.c's statics. */
#ifndef MPII_MONITOR_STATE_H
#define MPII_MONITOR_STATE_H
#include <pthread.h>
#include <stdint.h>
#include "mpii_gen.h" /* mpi.h, mpii_args_t */
#include "extent.h"   /* mpii_type_size: the core's datatype cache */
#include "comm_cache.h"

#define MON_HIDDEN __attribute__((visibility("hidden")))
extern int mon_world_rank MON_HIDDEN, mon_world_size MON_HIDDEN;
extern uint64_t *mon_peers MON_HIDDEN;        /* world_size rows of MON_ROW, in the profile */
extern volatile int mon_recording MON_HIDDEN; /* between MPI_Init and MPI_Finalize */
extern int mon_threaded MON_HIDDEN;           /* MPI_THREAD_MULTIPLE: serialise the bookkeeping */
extern pthread_mutex_t mon_lock MON_HIDDEN;

/* the per-peer table (world_size rows of MON_ROW), NULL before MPI_Init */
const uint64_t *mon_peer_table(int *rank, int *size);
/* the communicator's peers as world ranks (remote group of an inter-communicator), or NULL;
 * for MPI_T (pvars.c), which may run on any thread: takes the lock when threaded */
const int *mon_comm_peers(MPI_Comm comm, int *n);
int mon_comm_record(MPI_Comm comm); /* its record index, or -1 */

static inline int hist_bin(uint64_t bytes)
{
    return bytes ? 64 - __builtin_clzll(bytes) : 0; /* 1 + floor(log2(bytes)), exact */
}

static inline uint64_t times(MPI_Count count, uint64_t size)
{
    return count > 0 ? (uint64_t) count * size : 0;
}

static inline uint64_t bytes_of(MPI_Count count, MPI_Datatype type)
{
    return count > 0 ? (uint64_t) count * mpii_type_size(type) : 0;
}

/* The counters of peer `world`, or NULL for a peer that is not counted: outside
 * MPI_COMM_WORLD (-1, MPI_UNDEFINED) or this process itself (never self-traffic). */
static inline uint64_t *peer_row(int world)
{
    if (world < 0 || world >= mon_world_size || world == mon_world_rank) return NULL;
    return mon_peers + (size_t) world * MON_ROW;
}

/* World rank of `peer` in comm's peer group (remote group for inter-communicators), or -1. */
static inline int world_of(MPI_Comm comm, int peer)
{
    if (peer < 0) return -1; /* MPI_PROC_NULL, MPI_ANY_SOURCE */
    if (comm == MPI_COMM_WORLD) return peer;
    const mon_group_t *g = mon_comm(comm);
    if (!g) return -1;
    int n = g->remote_size ? g->remote_size : g->size;
    const int *map = g->remote_size ? g->remote_world : g->world;
    return peer < n ? map[peer] : -1;
}

/* One point-to-point message in row r: count, bytes and its histogram bin (hist_bin(bytes)). */
static inline void count_message_in(uint64_t *r, uint64_t bytes, int bin)
{
    r[MON_PML_COUNT]++;
    r[MON_PML_BYTES] += bytes;
    r[MON_HIST + bin]++;
}

/* The same, the bin computed. */
static inline void count_message(uint64_t *r, uint64_t bytes)
{
    count_message_in(r, bytes, hist_bin(bytes));
}

/* One message of `bytes` to/from `world` in the class whose count field is `what`. */
static inline void mon_count(int world, int what, uint64_t bytes)
{
    uint64_t *r = peer_row(world);
    if (!r) return;
    r[what]++;
    r[what + 1] += bytes;
}
#endif

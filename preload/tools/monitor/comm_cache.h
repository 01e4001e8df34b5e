/* monitor's communicators and windows (comm_cache.c): each described once, on first use, by the
 * world rank of each member; the bottom of the tool (it needs only the core and MPI).
 * Layout of the data in the profile (declared in blocks.yaml here, generated: monitor_blocks.h;
 * read by preload/tools/monitor/report/data.ts):
 *   section "peers": one row of MON_ROW uint64 per MPI_COMM_WORLD rank of the peer, in the
 *     rank's profile file from the start (sparse: a peer never talked to costs no memory);
 *   section "comm" per communicator: labels "<name>\n<procs>" (procs: mon_format_members, or
 *     "@<hash>" of the list its lowest member wrote), values MON_COMM_FIELDS.
 * The tool's layers, bottom to top: comm_cache, state (the per-peer table and the counting
 * helpers), collectives.h and pvars, monitor.c (the wrappers). */
#ifndef MPII_MONITOR_COMM_CACHE_H
#define MPII_MONITOR_COMM_CACHE_H
#include <stdint.h>
#include "mpii_gen.h" /* mpi.h, mpii_args_t */

#include "monitor_blocks.h" /* MON_* fields and labels: generated from blocks.yaml */

/* One communicator (or window) as the tool knows it: the world rank of each member. */
typedef struct {
    int size, rank;                  /* local group size, this process's rank in it */
    int remote_size;                 /* > 0 for an inter-communicator */
    int *world;                      /* local group -> MPI_COMM_WORLD rank */
    int *remote_world;               /* remote group -> MPI_COMM_WORLD rank (inter-communicators) */
    uint64_t *stats;                 /* MON_COMM_FIELDS in the profile, NULL for windows */
    int record;                      /* index of this communicator's "comm" section, -1 for windows */
    int spread;                      /* more members than coll-peers: collectives counted on the record */
    int neighbors_known, nneighbors; /* topology destinations (neighbourhood collectives) */
    int *neighbors;                  /* world ranks in send-buffer order, -1 for MPI_PROC_NULL */
} mon_group_t;

int mon_cache_init(int tool_id);                                        /* after MPI_Init; 0 or -1 */
mon_group_t *mon_comm(MPI_Comm comm);                                   /* created on first use; NULL if not usable */
void mon_comm_created(MPI_Comm comm, MPI_Comm parent, const char *how); /* after a constructor */
const mon_group_t *mon_win(MPI_Win win);
void mon_comm_freeing(MPI_Comm comm); /* before MPI_Comm_free: its last name, while it has one */
void mon_comm_forget(uintptr_t key);  /* after it succeeded: the handle may be reused */
void mon_win_forget(uintptr_t key);
void mon_comm_renamed(MPI_Comm comm); /* after MPI_Comm_set_name */
void mon_cache_finish(void);          /* at MPI_Finalize: final names into the profile */
int mon_records(void);                /* per-communicator records made so far */
/* record i: its current name (NULL past the end), member world ranks, O2A/A2O/A2A fields, and
 * whether its communicator was freed */
const char *mon_record(int i, const char **procs, const uint64_t **stats, int *freed);
/* Record i's members as world ranks in communicator order and this process's place among them,
 * for a record whose collectives are counted on it (spread); NULL for the others. */
const int *mon_record_members(int i, int *n, int *me);
/* The members of a communicator as the profile labels them: ranges "a-b" and "a-b:step" of
 * world ranks in communicator order, singles between ("0-127", "0-120:8,3"); returns its length. */
size_t mon_format_members(char *out, size_t cap, const int *world, int n);
/* Neighbourhood collectives: comm's destinations in send-buffer order as world ranks (-1 for an
 * MPI_PROC_NULL slot), in g->neighbors; their number. Asked of MPI once per communicator. */
int mon_neighbors(MPI_Comm comm, mon_group_t *g);
#endif

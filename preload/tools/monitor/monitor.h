/* monitor: what the tool's files share. Layout of the data in the profile (declared in
 * blocks.yaml here, generated: monitor_blocks.h; read by preload/tools/monitor/report/data.ts):
 *   section "peers": one row of MON_ROW uint64 per MPI_COMM_WORLD rank of the peer, in the
 *     rank's profile file from the start (sparse: a peer never talked to costs no memory);
 *   section "comm" per communicator: labels "<name>\n<procs>", values MON_COMM_FIELDS. */
#ifndef MPII_MONITOR_H
#define MPII_MONITOR_H
#include <stdint.h>
#include "mpii_gen.h" /* mpi.h, mpii_args_t */
#include "extent.h" /* mpii_type_size: the core's datatype cache */

#include "monitor_blocks.h" /* MON_* fields and labels: generated from blocks.yaml */

/* One communicator (or window) as the tool knows it: the world rank of each member. */
typedef struct {
    int size, rank;     /* local group size, this process's rank in it */
    int remote_size;    /* > 0 for an inter-communicator */
    int *world;         /* local group -> MPI_COMM_WORLD rank */
    int *remote_world;  /* remote group -> MPI_COMM_WORLD rank (inter-communicators) */
    uint64_t *stats;    /* MON_COMM_FIELDS in the profile, NULL for windows */
    int record;         /* index of this communicator's "comm" section, -1 for windows */
    int neighbors_known, nneighbors; /* topology destinations (neighbourhood collectives) */
    int *neighbors;     /* world ranks in send-buffer order, -1 for MPI_PROC_NULL */
} mon_group_t;

/* monitor.c */
/* comm_cache.c */
int mon_cache_init(int tool_id);                  /* after MPI_Init; 0 or -1 */
mon_group_t *mon_comm(MPI_Comm comm);            /* created on first use; NULL if not usable */
void mon_comm_created(MPI_Comm comm, MPI_Comm parent, const char *how); /* after a constructor */
const mon_group_t *mon_win(MPI_Win win);
void mon_comm_freeing(MPI_Comm comm);            /* before MPI_Comm_free: its last name, while it has one */
void mon_comm_forget(uintptr_t key);             /* after it succeeded: the handle may be reused */
void mon_win_forget(uintptr_t key);
void mon_comm_renamed(MPI_Comm comm);            /* after MPI_Comm_set_name */
void mon_cache_finish(void);                     /* at MPI_Finalize: final names into the profile */
int mon_records(void);                           /* per-communicator records made so far */
/* record i: its current name (NULL past the end), member world ranks, O2A/A2O/A2A fields, and
 * whether its communicator was freed */
const char *mon_record(int i, const char **procs, const uint64_t **stats, int *freed);

/* monitor.c: the per-peer table (world_size rows of MON_ROW), NULL before MPI_Init */
const uint64_t *mon_peer_table(int *rank, int *size);
/* the communicator's peers as world ranks (remote group of an inter-communicator), or NULL */
const int *mon_comm_peers(MPI_Comm comm, int *n);
int mon_comm_record(MPI_Comm comm);              /* its record index, or -1 */

/* pvars.c: the tool's MPI_T performance variables (Open MPI's monitoring variables, flush) */
void mon_pvars_register(int tool_id);
void mon_pvars_finish(void);                     /* at MPI_Finalize: the finalize .prof output */
#endif

/* overlap: MPI_Send / MPI_Recv / MPI_Sendrecv turned into background transfers (Natvig 2006).
 * Shared between overlap.c (the QMPI wrappers, modes, statistics) and requests.c (the requests
 * in flight, page guards, completion). */
#ifndef MPII_OVERLAP_H
#define MPII_OVERLAP_H
#include <stdint.h>
#include "mpii_core.h"
#include "heap.h"
#include "guard.h"
#include "extent.h"

#include "stats.h"
#include "adaptive.h"

extern uint64_t *ov_stats;
extern int ov_tool;           /* this instance's tool id (overlap runs once per process) */
extern int ov_mode;
extern int ov_threshold;       /* chain confidence */
extern uint64_t ov_max_bytes;  /* larger messages pass through */

/* The wait causes, as statistics indices */
typedef int ov_cause_t;

/* Requests in flight (requests.c). 0 when nothing is pending: every check is one load. */
extern volatile int ov_pending;
/* Statuses of converted receives the program may still read (requests.c); 0 most of the time. */
extern int ov_statuses_live;

int ov_start(void);  /* after MPI_Init: guards, heap; 0 or -1 */
void ov_stop(void);  /* before MPI_Finalize: everything completes */

/* Background versions: return 1 when converted, 0 when the caller must call the library itself
 * (after ov_release_range on the buffers). `site` is the caller's chain record context. */
int ov_send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
/* Where a receive would land: found once by ov_recv_target, used by ov_recv. */
typedef struct {
    mpii_block_t *block;
    uintptr_t lo, hi; /* bytes the elements span */
} ov_target_t;
/* 1 when a receive into buf can run in the background (counted as passed otherwise). */
int ov_recv_target(const void *buf, int count, MPI_Datatype type, int source, int tag, ov_target_t *t);
int ov_recv(const ov_target_t *t, void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
            MPI_Status *status);

/* Finish every pending receive whose guarded pages intersect [lo, hi) (byte addresses). */
void ov_release_range(uintptr_t lo, uintptr_t hi, ov_cause_t cause);
void ov_complete_all(ov_cause_t cause);
/* A status the program passes to MPI: complete the receive it belongs to and fill it in. */
void ov_status_read(MPI_Status *status);
/* A status (or array of n) MPI is about to overwrite for something else: forget it. */
void ov_status_forget(const MPI_Status *status, MPI_Count n);
void ov_type_freed(MPI_Datatype type);

/* Adaptive bookkeeping of the call being converted (overlap.c): its site (NULL unless adaptive)
 * and the count of the program's Send/Recv/Sendrecv calls so far, this one included. */
extern ov_site_t *ov_current_site;
extern uint64_t ov_p2p_calls;

/* Chains (chain learning): a converted call happened / the program faulted. */
void ov_chain_call(uint64_t signature);
void ov_chain_fault(void);

#endif

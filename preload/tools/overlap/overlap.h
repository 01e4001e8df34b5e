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

enum { OV_PAGING, OV_CHAINING, OV_ADAPTIVE };

/* Statistics, in the rank's profile (section "stats"); OV_STAT_LABELS names them in order. */
enum {
    ST_SENDS, ST_RECVS, ST_SENDRECVS, ST_BYTES_SENT, ST_BYTES_RECEIVED,
    ST_PASS_BUFFER, ST_PASS_WILDCARD, ST_PASS_LARGE, ST_PASS_ADAPTIVE, ST_PASS_GUARD,
    ST_FAULTS, ST_WAIT_FAULT, ST_WAIT_OVERLAP, ST_WAIT_STATUS, ST_WAIT_ACCESS, ST_WAIT_MPI,
    ST_WAIT_CHAIN, ST_WAIT_FREE, ST_WAIT_FINALIZE, ST_WAIT_FULL, ST_WAIT_NS,
    ST_CHAIN_RECORDS, ST_CHAIN_ENDS, ST_CHAIN_PROBES, ST_SITES, ST_SITES_OFF, ST_DECISIONS,
    ST_COUNT
};
#define OV_STAT_LABELS                                                                              \
    "sends converted\nreceives converted\nsendrecvs converted\nbytes sent\nbytes received\n"       \
    "passed: buffer not on the page-exclusive heap\npassed: wildcard receive\npassed: larger than max-bytes\n" \
    "passed: switched off at the call site\npassed: page protection refused\n"                    \
    "faults\nwaits: fault\nwaits: element overlap\nwaits: status read\nwaits: system call\n"      \
    "waits: other MPI call\nwaits: chain end\nwaits: free/realloc\nwaits: finalize\nwaits: no free slot\n" \
    "wait time ns\nchain records\nchain ends learned\nchain probes\ncall sites\ncall sites switched off\n" \
    "adaptive decisions\n"

extern uint64_t *ov_stats;
extern int ov_mode;
extern int ov_threshold;       /* chain confidence */
extern uint64_t ov_max_bytes;  /* larger messages pass through */

/* The wait causes, as statistics indices */
typedef int ov_cause_t;

/* Requests in flight (requests.c). 0 when nothing is pending: every check is one load. */
extern volatile int ov_pending;

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

/* Chains (chain learning): a converted call happened / the program faulted. */
void ov_chain_call(uint64_t signature);
void ov_chain_fault(void);

#endif

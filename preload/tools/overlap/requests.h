/* overlap's requests in flight (requests.c): background sends and receives, their page guards,
 * their completion. Above stats, state and chain; below the wrappers (overlap.c). */
#ifndef MPII_OVERLAP_REQUESTS_H
#define MPII_OVERLAP_REQUESTS_H
#include <stdint.h>
#include "mpii_core.h"
#include "heap.h"
#include "guard.h"
#include "extent.h"

/* The wait causes, as statistics indices */
typedef int ov_cause_t;

/* Receives in flight (their pages guarded): 0 most of the time, and then no call needs checking
 * against them. Sends in flight need no checks (packed: the program's buffer is free at once),
 * and one may stay in flight until the next receive completes. */
extern volatile int ov_guarded_recvs __attribute__((visibility("hidden")));
/* Statuses of converted receives the program may still read; 0 most of the time. */
extern int ov_statuses_live __attribute__((visibility("hidden")));

/* Whether a call must be checked against what is in flight: nonzero only between ov_start and
 * ov_stop (conversions set it, ov_stop clears it), so it needs no test of its own. */
#define ov_watching() (ov_guarded_recvs | ov_statuses_live)

int ov_start(void); /* after MPI_Init: guards, heap; 0 or -1 */
void ov_stop(void); /* before MPI_Finalize: everything completes, no status stays remembered */

/* Background versions: return 1 when converted, 0 when the caller must call the library itself
 * (after ov_release_range on the buffers). */
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
#endif

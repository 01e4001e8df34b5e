/* memcheck: memory MPI owns until a completion (pending.c): the buffers of pending nonblocking
 * and persistent operations and of one-sided origins, and their page guards. */
#ifndef MPII_MEMCHECK_PENDING_H
#define MPII_MEMCHECK_PENDING_H
#include <stdint.h>
#include "state.h"

/* A nonblocking operation's buffers start being MPI's. `req` may be NULL (one-sided without a
 * request: completes at synchronisation on `win`). Persistent requests start inactive. */
void mc_pending_start(const mc_origin_t *o, MPI_Request *req, MPI_Win win, int target, int persistent,
                      const mc_range_t *ranges, int nranges);
/* Requests are named by the program's variable (`where`, NULL when passed by value) and the
 * handle it held before the call. */
/* MPI_Start on a persistent request: its buffers are MPI's again. */
void mc_pending_activate(MPI_Request *where, MPI_Request req);
/* The operation finished: the program may use its buffers. `st` may be NULL. */
void mc_pending_complete(MPI_Request *where, MPI_Request req, const MPI_Status *st);
/* MPI_Request_free: forget it (an active one can no longer be followed: its guards go). */
void mc_pending_free(MPI_Request *where, MPI_Request req);
/* One-sided synchronisation: target < 0 completes every operation on win. */
void mc_pending_rma_sync(MPI_Win win, int target);
/* The library is about to run (and may touch pending buffers): open their pages; close again. */
extern volatile int mc_guarded_ops;
void mc_pending_lift(void);
void mc_pending_relower(void);
/* Faults and kernel accesses on pending buffers (from the guard client). */
/* library: the access is known to be the MPI library's (else its code is asked, owner.c) */
int mc_pending_fault(void *addr, int write, int library);
/* library: the access is known to be the MPI library's (a progress thread's system call) */
void mc_pending_access(uintptr_t lo, uintptr_t hi, int library);
void mc_pending_block_released(mpii_block_t *b);
void mc_pending_finalize(void);
/* Whether a page of [plo, phi) holds bytes of a pending send (such pages never become NOACCESS). */
int mc_pending_send_pages(uintptr_t plo, uintptr_t phi);
/* A receive into range r is about to start: report each pending operation owning bytes of it. */
void mc_pending_recv_overlaps(const mc_range_t *r);
/* Fill a range from buffer/count/type (0, or -1 when the extent is unknown). */
int mc_range(mc_range_t *r, const void *buf, MPI_Count count, MPI_Datatype type, int dir);
#endif

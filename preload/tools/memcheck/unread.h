/* memcheck: received data, first touch (unread.c). Below pending.c, which reports completed
 * receives here; what it knows in turn (pages of pending sends) comes through a hook. */
#ifndef MPII_MEMCHECK_UNREAD_H
#define MPII_MEMCHECK_UNREAD_H
#include <stddef.h>
#include <stdint.h>
#include "state.h"

extern volatile int mc_tracked;
/* Bytes [lo, lo + n) were just received by the call at `o`, in elements of `elem` bytes (0:
 * unknown or not contiguous: page granularity only). */
void mc_unread_received(const mc_origin_t *o, uintptr_t lo, size_t n, unsigned elem);
/* The library is about to read (dir SEND) or overwrite (dir RECV) [lo, hi) for a new call. */
void mc_unread_library_uses(uintptr_t lo, uintptr_t hi, int dir);
int mc_unread_fault(void *addr, int write);
/* An access the MPI library made (on one of its own threads, judged later on MPI's thread). */
int mc_unread_library_fault(void *addr, int write);
void mc_unread_access(uintptr_t lo, uintptr_t hi);
void mc_unread_block_released(mpii_block_t *b);
void mc_unread_finalize(void);
/* Whether a page of [plo, phi) holds bytes of a pending send: such pages stay readable (set once
 * at start to pending.c's mc_pending_send_pages; unset, no page does). */
void mc_unread_keep_readable(int (*send_pages)(uintptr_t plo, uintptr_t phi));
#endif

/* memcheck: MPI semantic memory errors caught with page protection (or Valgrind client
 * requests when the program already runs under Valgrind). Shared between
 *   memcheck.c  the QMPI wrappers: what each call starts, completes, or hands to the library
 *   pending.c   buffers MPI owns (pending requests, one-sided origins) and their page guards
 *   unread.c    received data: write before read, never read (post-communication phase)
 *   access_width.c  how many bytes a faulting instruction touches (vector loads decide many elements)
 *   findings.c  the findings: dedup per call site, profile records, stderr lines, backtraces
 *   valgrind.c  the same rules expressed as Valgrind client requests */
#ifndef MPII_MEMCHECK_H
#define MPII_MEMCHECK_H
#include <stdint.h>
#include "mpii_core.h"
#include "heap.h"
#include "guard.h"
#include "extent.h"

/* What was found (MC_* kinds, MC_KIND_LABELS) and the statistics (MS_*, MC_STAT_LABELS): the
 * profile blocks "by kind" and "stats", generated from blocks.yaml (the CLI names them from the profile). */
#include "memcheck_blocks.h"

extern uint64_t *mc_stats;
extern int mc_strict;     /* pending send/origin buffers are NOACCESS (reads are errors too) */
extern int mc_fatal;      /* stop the job at the first finding */
extern int mc_valgrind;   /* running under Valgrind: client requests instead of page protection */
extern int mc_tool;

/* Sampling per call site: a site's first 16 operations are checked, then as many as cost about
 * 1/128 of the site's time (mode 1, memcheck.c), or every one (mode 2), or none (mode 0).
 * `what`: MC_SAMPLE_PENDING or MC_SAMPLE_UNREAD. */
enum { MC_SAMPLE_PENDING, MC_SAMPLE_UNREAD };
extern int mc_sample_mode[2];
int mc_sampled(void *site, int what, size_t bytes); /* bytes: what the check covers (its cost grows with it) */

/* ---- pending.c: memory MPI owns until a completion ---- */

enum { MC_DIR_SEND, MC_DIR_RECV };
enum { MC_OWNER_P2P, MC_OWNER_COLL, MC_OWNER_RMA };

typedef struct {
    uintptr_t lo, hi;        /* the bytes the operation's elements span */
    uint8_t dir, kind;       /* MC_DIR_*, MPII_GUARD_* (0xff: not guarded) */
    uint16_t elem;           /* element size when elements are small and contiguous, else 0 */
    uint8_t contiguous;      /* the elements fill [lo, hi) without gaps (unread tracking needs it) */
    uint8_t open;            /* its pages are open around an MPI call (mc_pending_lift) */
    mpii_block_t *block;
    uintptr_t plo, phi;      /* guarded pages */
} mc_range_t;

/* Context of the call that started an operation: where and which function. */
typedef struct {
    void *site;              /* the program's calling address */
    int fn;                  /* QMPI function id */
} mc_origin_t;

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
int mc_pending_fault(void *addr, int write);
void mc_pending_access(uintptr_t lo, uintptr_t hi);
void mc_pending_block_released(mpii_block_t *b);
void mc_pending_finalize(void);
/* Whether a page of [plo, phi) holds bytes of a pending send (such pages never become NOACCESS). */
int mc_pending_send_pages(uintptr_t plo, uintptr_t phi);
/* Fill a range from buffer/count/type (0, or -1 when the extent is unknown). */
int mc_range(mc_range_t *r, const void *buf, MPI_Count count, MPI_Datatype type, int dir);

/* ---- unread.c: received data, first touch ---- */
extern volatile int mc_tracked;
/* Bytes [lo, lo + n) were just received by the call at `o`, in elements of `elem` bytes (0:
 * unknown or not contiguous: page granularity only). */
void mc_unread_received(const mc_origin_t *o, uintptr_t lo, size_t n, unsigned elem);
/* The library is about to read (dir SEND) or overwrite (dir RECV) [lo, hi) for a new call. */
void mc_unread_library_uses(uintptr_t lo, uintptr_t hi, int dir);
int mc_unread_fault(void *addr, int write);
void mc_unread_access(uintptr_t lo, uintptr_t hi);
void mc_unread_block_released(mpii_block_t *b);
void mc_unread_finalize(void);
/* Bytes the faulting instruction (a signal's ucontext) reads or writes; 0: unknown. */
unsigned mc_access_width(const void *context);

/* ---- findings.c ---- */
typedef struct {
    int kind;
    const mc_origin_t *origin;   /* the MPI call owning the buffer (NULL: none) */
    uintptr_t addr;              /* the access or the first byte concerned */
    uintptr_t base, len;         /* the buffer */
    uint64_t bytes;              /* bytes concerned (overrun past the end, unread bytes) */
    int access;                  /* 0 read, 1 write, -1 unknown / not an access */
    void *ucontext;              /* the faulting context (signal handler), or NULL */
} mc_finding_t;
int mc_findings_start(void);
/* The findings per kind as MPI_T performance variables. */
void mc_findings_publish(void);
/* Record (deduplicated per kind, call site and faulting instruction) and print. Signal-safe. */
void mc_report(const mc_finding_t *f);
/* The load map of the process, for the CLI's addr2line (at start and at finalize). */
void mc_findings_save_objects(void);

/* ---- valgrind.c ---- */
int mc_valgrind_running(void);
void mc_vg_start(const mc_range_t *r, int nranges);     /* buffers become MPI's */
void mc_vg_complete(const mc_range_t *r, int nranges, uint64_t received);
void mc_vg_lift(const mc_range_t *r, int nranges);      /* around MPI calls */
void mc_vg_check(const void *p, size_t n, int defined); /* E1/E2 addressable, E3 defined */
void mc_vg_status_error(MPI_Status *st);                /* E4 */
#endif

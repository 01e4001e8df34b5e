/* memcheck: MPI semantic memory errors caught with page protection (or Valgrind client
 * requests when the program already runs under Valgrind). The tool's layers, bottom to top:
 *   state.c     the options, the statistics and the types every layer shares (this header)
 *   sample.c    sampling per call site: which operations are checked
 *   access_width.c  how many bytes a faulting instruction touches (vector loads decide many elements)
 *   findings.c  the findings: dedup per call site, profile records, stderr lines, backtraces
 *   valgrind.c  the same rules expressed as Valgrind client requests
 *   unread.c    received data: write before read, never read (post-communication phase)
 *   pending.c   buffers MPI owns (pending requests, one-sided origins) and their page guards
 *   memcheck.c  the QMPI wrappers: what each call starts, completes, or hands to the library
 * unread.c asks pending.c which pages hold pending sends through a hook memcheck.c sets
 * (mc_unread_keep_readable), as the core's heap drops guards through the guard module's hook. */
#ifndef MPII_MEMCHECK_STATE_H
#define MPII_MEMCHECK_STATE_H
#include <stdint.h>
#include "mpii_core.h"
#include "heap.h"
#include "guard.h"
#include "extent.h"

/* What was found (MC_* kinds, MC_KIND_LABELS) and the statistics (MS_*, MC_STAT_LABELS): the
 * profile blocks "by kind" and "stats", generated from blocks.yaml (the CLI names them from the profile). */
#include "memcheck_blocks.h"

extern uint64_t *mc_stats;
extern int mc_strict;   /* pending send/origin buffers are NOACCESS (reads are errors too) */
extern int mc_fatal;    /* stop the job at the first finding */
extern int mc_valgrind; /* running under Valgrind: client requests instead of page protection */
extern int mc_tool;
/* > 0 while this thread runs inside an MPI call that may move data (memcheck.c): a fault then is
 * the library's access, never the program's */
extern __thread int mc_in_library;

enum { MC_DIR_SEND, MC_DIR_RECV };
enum { MC_OWNER_P2P, MC_OWNER_COLL, MC_OWNER_RMA };

/* A buffer of an operation (pending.c guards it, valgrind.c marks it). */
typedef struct {
    uintptr_t lo, hi;   /* the bytes the operation's elements span */
    uint8_t dir, kind;  /* MC_DIR_*, MPII_GUARD_* (0xff: not guarded) */
    uint16_t elem;      /* element size when elements are small and contiguous, else 0 */
    uint8_t contiguous; /* the elements fill [lo, hi) without gaps (unread tracking needs it) */
    uint8_t open;       /* its pages are open around an MPI call (mc_pending_lift) */
    uint8_t undefined;  /* a receive whose result the standard leaves undefined (MPI_Exscan's at
                                rank 0): nothing arrives, so it is not watched after completion */
    mpii_block_t *block;
    uintptr_t plo, phi; /* guarded pages */
} mc_range_t;

/* Context of the call that started an operation: where and which function. */
typedef struct {
    void *site; /* the program's calling address */
    int fn;     /* QMPI function id */
} mc_origin_t;
#endif

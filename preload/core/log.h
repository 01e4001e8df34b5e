/* Who this process is and how the core speaks: the rank, INJ_DEBUG, logging and errors, and the
 * few process-wide facts every layer reads (tools live, MPI_Init's thread, Python call sites).
 * The bottom of the core: it includes nothing of it, so any module may use it (init.c sets
 * these facts; the other modules only read them). */
#ifndef MPII_LOG_H
#define MPII_LOG_H
#include <stdint.h>

extern int mpii_active;          /* tools are live in this process */
extern int mpii_debug_rank;      /* INJ_DEBUG: -1 off, -2 all, N only rank N */
extern int mpii_rank, mpii_size; /* MPI_COMM_WORLD rank and size once known, else launcher's */

/* 1 in the thread that initialised MPI (init.c). Tools that watch memory with page protection
 * need their state touched by one thread: they work at any thread level (mpi4py asks for
 * MPI_THREAD_MULTIPLE) as long as the MPI calls come from this thread. One TLS load per call. */
extern __thread int mpii_init_thread __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* In a Python rank, the Python line that made the call (preload/python/pysite.c, loaded by
 * init.c when mpii run built it for the interpreter): a key standing for "file:line (function)"
 * that the profile describes. NULL elsewhere, which is one predicted branch per call. */
extern uint64_t (*mpii_python_site)(uint64_t return_address) __attribute__((visibility("hidden")));

/* Whether INJ_DEBUG asks this rank for debug lines. */
int mpii_debug_here(void);
/* One line "MPII <rank>: ..." on stderr: mpii_log only under INJ_DEBUG, mpii_error always.
 * mpii_debug is mpii_log under the public API's name (mpii_tool.h). */
void mpii_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void mpii_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void mpii_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int mpii_world_rank(void);
/* An MPI function the library below lacks was called: say so and abort. */
void mpii_missing(const char *name) __attribute__((noreturn));
/* The clock the tools' decisions read (overlap's adaptive comparisons, memcheck's sampling), in
 * ns: mpii_now_ns, or with MPII_CLOCK=frozen one that stands still (at 1 s: some tools read a
 * time of 0 as "not yet"), so that tests of real jobs see the decisions counts make, whatever
 * the machine's load. Asked once, at a tool's start. */
uint64_t (*mpii_decision_clock(void))(void);
#endif

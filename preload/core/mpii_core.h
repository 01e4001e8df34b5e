/* Internal interface between the generated wrappers and the core (dispatch, init, profile). */
#ifndef MPII_CORE_H
#define MPII_CORE_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "mpii_gen.h"

#define MPII_LIKELY(x) __builtin_expect(!!(x), 1)
#define MPII_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* One step of a chain: the function to call and the tool id to hand it. */
typedef struct {
    void (*fn)(void);
    int id;
} mpii_slot_t;

/* First tool per MPI function; fn == NULL means "no tool: call the next layer directly". */
extern mpii_slot_t mpii_first[MPII_NFUNCS] __attribute__((visibility("hidden")));
/* mpii_chain[f][t]: the layer after tool t for function f (built before any tool runs). */
extern mpii_slot_t *mpii_chain[MPII_NFUNCS] __attribute__((visibility("hidden")));

/* QMPI_Get_function, inlined for the built-in tools that live inside the shim: the same table,
 * without a call per layer. External tools call QMPI_Get_function. */
static inline void (*mpii_next(int tool_id, int id, int *next_id))(void)
{
    const mpii_slot_t *s = &mpii_chain[id][tool_id];
    *next_id = s->id;
    return s->fn;
}

/* Per-instance tool storage, indexed by tool id (0 = the MPI library). */
extern void **mpii_storage __attribute__((visibility("hidden")));
/* QMPI_X bottoms, indexed by function id (generated). */
extern void (*const mpii_bottom_fn[MPII_NFUNCS])(void);

/* QMPI_Get_tool_storage, inlined for built-in tools. */
static inline void *mpii_tool_storage(int tool_id)
{
    return mpii_storage[tool_id];
}

/* 1 in the thread that initialised MPI (init.c). Tools that watch memory with page protection
 * need their state touched by one thread: they work at any thread level (mpi4py asks for
 * MPI_THREAD_MULTIPLE) as long as the MPI calls come from this thread. One TLS load per call. */
extern __thread int mpii_init_thread __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* In a Python rank, the Python line that made the call (preload/python/pysite.c, loaded by
 * init.c when mpii run built it for the interpreter): a key standing for "file:line (function)"
 * that the profile describes. NULL elsewhere, which is one predicted branch per call. */
extern uint64_t (*mpii_python_site)(uint64_t return_address) __attribute__((visibility("hidden")));

/* QMPI_Get_calling_address, inlined for built-in tools: the top-level wrapper keeps the
 * application's return address in the context; a layer always gets that context. */
static inline uint64_t mpii_calling_address(QMPI_Context context)
{
    uint64_t ra = (uint64_t) (uintptr_t) context.storage_stack[1];
    return MPII_UNLIKELY(mpii_python_site != NULL) ? mpii_python_site(ra) : ra;
}

/* CLOCK_MONOTONIC in nanoseconds (the tools' clock where the TSC is not wanted). */
static inline uint64_t mpii_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}

/* The next number of a xorshift64 sequence (state != 0): cheap randomness for sampling gaps. */
static inline uint64_t mpii_xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* hooks called by the generated wrappers */
void mpii_before_init(void);
void mpii_after_init(int rc, int session);
void mpii_before_finalize(void);
void mpii_after_finalize(void);
void mpii_on_abort(void);
void mpii_missing(const char *name) __attribute__((noreturn));

/* site.c: the shim linked in by the MPI compiler wrappers (mpii install) */
int mpii_shadowed(void);
void mpii_site_defaults(void);
int mpii_site_mode(void);
void mpii_site_out_dir(int enabled);

/* dispatch.c */
int mpii_build_stack(const char *tools);      /* returns 0 or -1 (message printed) */
void mpii_disable_stack(void);
int mpii_tool_count(void);
const char *mpii_tool_name(int tool_id);

/* state shared by the core files */
extern int mpii_active;          /* tools are live in this process */
extern int mpii_debug_rank;      /* INJ_DEBUG: -1 off, -2 all, N only rank N */
extern int mpii_rank, mpii_size; /* MPI_COMM_WORLD rank and size once known, else launcher's */

void mpii_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void mpii_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* profile_file.c: the rank's profile file */
void mpii_profile_begin(const char *out_dir);
void mpii_profile_started(const char *spawned_subdir);
void mpii_profile_add_tool(int tool_id, const char *name, const char *origin);
void mpii_profile_finish(void);
void mpii_profile_mark_aborted(void);
/* `s` as a quoted JSON string into out (snprintf-like: returns the length it needs) */
size_t mpii_json_string(char *out, size_t cap, const char *s);
#endif

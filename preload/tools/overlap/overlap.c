/* overlap: unmodified programs' MPI_Send, MPI_Recv, MPI_Sendrecv and MPI_Sendrecv_replace run
 * in the background (Natvig 2006, paging and chaining), decided per call site when adaptive.
 * This file: the QMPI wrappers, the modes and the adaptive choice, on top of the tool's layers
 * (stats.h lists them): requests.c keeps the requests and their page guards; chain.c learns where
 * computation starts.
 *
 * Every other MPI function that takes a buffer or a status gets a thin wrapper too: before the
 * library touches memory a pending receive still guards, that receive finishes (the library
 * would fault inside itself, or the kernel would return EFAULT to a peer's single-copy read);
 * buffers handed to nonblocking calls, windows and attached buffers are "pinned": the library
 * may touch them at any time, so they are never guarded. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpii_tool.h"
#include "mpii_options_overlap.h" /* generated from tool.yaml */
#include "mpii_core.h"
#include "stats.h"
#include "adaptive.h"
#include "state.h"
#include "chain.h"
#include "requests.h"

static size_t heap_min; /* the option (tool.yaml); the others are in stats.c and state.c */
static int live;        /* between a single-threaded MPI_Init and MPI_Finalize */
static uint64_t dummy_stats[ST_COUNT];

/* What the generic wrapper must look at, per function id (from the spec's roles). F_EVERY: even
 * with nothing in flight and no status remembered (a buffer the library keeps: pinned); every
 * other check has nothing to do then, and MPI_Test/MPI_Testany loops (HPCC RandomAccess: 40
 * million calls in a few seconds) must not pay for them. */
enum { F_BUF = 1, F_REQ = 2, F_PIN = 4, F_STATUS = 8, F_STATUS_READ = 16, F_ALL = 32, F_EVERY = 64 };
static uint8_t flags[MPII_NFUNCS];

/* The flags the roles and kinds give (constant tables: folds where the id is a constant). */
static inline __attribute__((always_inline)) int ov_role_flags(int id)
{
    unsigned long long r = mpii_fn_roles[id];
    int k = mpii_fn_kind[id], v = 0;
    if (r &
        (MPII_ROLE_BIT(MPII_ROLE_BUFFER) | MPII_ROLE_BIT(MPII_ROLE_SEND_BUFFER) | MPII_ROLE_BIT(MPII_ROLE_RECV_BUFFER)))
        v |= F_BUF;
    if ((r & MPII_ROLE_BIT(MPII_ROLE_REQUEST)) || k == MPII_KIND_SEND_INIT || k == MPII_KIND_RECV_INIT) v |= F_REQ;
    if (r & MPII_ROLE_BIT(MPII_ROLE_PINNED_BUFFER)) v |= F_PIN;
    if (r & (MPII_ROLE_BIT(MPII_ROLE_STATUS) | MPII_ROLE_BIT(MPII_ROLE_STATUSES))) v |= F_STATUS;
    if (id == MPI_TYPE_FREE_T || k == MPII_KIND_COMM_FREE || k == MPII_KIND_WIN_FREE) v |= F_ALL;
    if (((v & F_BUF) && (v & F_REQ)) || (v & F_PIN)) v |= F_EVERY;
    return v;
}

/* ---- adaptive (adaptive.c) ---- */

/* Whether this call runs in the background; counts it among the program's point-to-point calls
 * (a receive that another call followed before it was touched hid something). */
static int site_on(void *addr)
{
    ov_p2p_calls++;
    ov_current_site = NULL;
    if (ov_mode != OV_ADAPTIVE) return 1;
    ov_site_t *s = ov_site_of(addr);
    ov_current_site = s;
    return s ? ov_site_on(s, ov_now) : 1;
}

/* A call adaptive ran plain: on a site decided plain, or in an exploration's plain turn. */
static void count_plain(void)
{
    ov_stats[ov_current_site && ov_current_site->state == OV_EXPLORE ? ST_PASS_EXPLORE : ST_PASS_ADAPTIVE]++;
}

/* At MPI_Finalize: each site's calls and latest decision, for the report (block "site"). */
static void write_sites(void)
{
    static const char *why[] = { OV_WHY_NAMES };
    const ov_site_t *t = ov_sites();
    for (int i = 0; i < OV_SITES; i++) {
        const ov_site_t *s = &t[i];
        if (!s->addr && !s->calls) continue;
        mpii_object_t o;
        char path[2048], line[2300];
        mpii_object_of((uintptr_t) s->addr, &o, path, sizeof path);
        snprintf(line, sizeof line, "%lx %u %u %d %s %llu %llu %u %lx %s", (unsigned long) (uintptr_t) s->addr,
                 s->calls, s->background, s->on, s->why < sizeof why / sizeof *why ? why[s->why] : "?",
                 (unsigned long long) s->decided_period[0], (unsigned long long) s->decided_period[1], s->decisions,
                 (unsigned long) o.bias, path);
        mpii_profile_text(ov_tool, "site", line);
    }
}

/* ---- chain signatures ---- */

static inline uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
    return h;
}

static uint64_t signature(void *site, int dir, const void *buf, int count, MPI_Datatype type, int peer, int tag,
                          MPI_Comm comm)
{
    uint64_t h = mix((uint64_t) (uintptr_t) site, (uint64_t) dir);
    h = mix(h, (uint64_t) (uintptr_t) buf);
    h = mix(h, (uint64_t) count << 32 | (uint32_t) peer);
    h = mix(h, (uint64_t) (uintptr_t) type);
    h = mix(h, (uint64_t) (uint32_t) tag << 32 | (uint32_t) (uintptr_t) comm);
    return mix(h, (uint64_t) (uintptr_t) comm);
}

static void *call_site(QMPI_Context context)
{
    return context.storage_stack ? (void *) (uintptr_t) mpii_calling_address(context)
                                 : NULL; /* Python: the line's key */
}

/* A converted call, for chain learning; at a learned chain end every request completes. */
static void chain_call(uint64_t sig)
{
    if (ov_chain_call(sig, ov_now)) ov_complete_all(ST_WAIT_CHAIN);
}

/* ---- the converted functions ---- */

#define NEXT(ID, QTYPE, ...) MPII_CALL_NEXT(tool_id, ID, QTYPE, __VA_ARGS__)

static void release_buffer(const void *buf, MPI_Count count, MPI_Datatype type)
{
    uintptr_t lo, hi;
    if (ov_guarded_recvs && mpii_extent(buf, count, type, &lo, &hi) == 0) ov_release_range(lo, hi, ST_WAIT_MPI);
}

/* The conversions, shared by the int-count functions and (MPI 4) their large-count _c forms,
 * which mpi4py 4 calls: 1 the call runs in the background; otherwise the caller calls the layer
 * below (for a Sendrecv, 0: only its receive half is left to do). */
static int send_async(QMPI_Context context, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                      MPI_Comm comm)
{
    if (!live || dest == MPI_PROC_NULL) return -1;
    void *site = call_site(context);
    if (!site_on(site)) {
        count_plain();
    } else if (ov_send(buf, count, type, dest, tag, comm)) {
        chain_call(signature(site, 0, buf, count, type, dest, tag, comm));
        return 1;
    }
    release_buffer(buf, count, type);
    return -1;
}

static int recv_async(QMPI_Context context, void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                      MPI_Status *status)
{
    if (!live) return -1;
    void *site = call_site(context);
    ov_target_t t;
    if (ov_recv_target(buf, count, type, source, tag, &t)) {
        if (!site_on(site)) {
            count_plain();
        } else if (ov_recv(&t, buf, count, type, source, tag, comm, status)) {
            chain_call(signature(site, 1, buf, count, type, source, tag, comm));
            return 1;
        }
    }
    release_buffer(buf, count, type);
    ov_status_forget(status, 1);
    return -1;
}

/* Both halves of a Sendrecv in the background: 1 done; 0 the send half is on its way and the
 * receive must be made by the caller (MPI_Recv); -1 nothing started. The send half is packed
 * first (a receive into the same page cannot change it), then the receive half; MPI forbids
 * their elements to overlap, so neither waits for the other (the thesis's partner exemption). */
static int sendrecv_halves(void *site, int dir, const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                           void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                           MPI_Status *status)
{
    ov_target_t t;
    if (!site_on(site)) {
        count_plain();
        return -1;
    }
    if (!ov_recv_target(rbuf, rcount, rtype, source, rtag, &t)) return -1;
    if (dest != MPI_PROC_NULL && !ov_send(sbuf, scount, stype, dest, stag, comm)) return -1;
    if (!ov_recv(&t, rbuf, rcount, rtype, source, rtag, comm, status)) return 0;
    ov_stats[ST_SENDRECVS]++;
    chain_call(signature(site, dir, rbuf, rcount, rtype, source, rtag, comm));
    return 1;
}

/* dir 2: MPI_Sendrecv; dir 3: MPI_Sendrecv_replace (one buffer, sbuf == rbuf). */
static int sendrecv_async(QMPI_Context context, int dir, const void *sbuf, int scount, MPI_Datatype stype, int dest,
                          int stag, void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                          MPI_Status *status)
{
    if (!live) return -1;
    int done = sendrecv_halves(call_site(context), dir, sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source,
                               rtag, comm, status);
    if (done == 1) return 1;
    if (done < 0 && dir == 2) release_buffer(sbuf, scount, stype);
    release_buffer(rbuf, rcount, rtype);
    ov_status_forget(status, 1);
    return done;
}

static int ov_MPI_Send(QMPI_Context context, int tool_id, const void *buf, int count, MPI_Datatype type, int dest,
                       int tag, MPI_Comm comm)
{
    if (send_async(context, buf, count, type, dest, tag, comm) == 1) return MPI_SUCCESS;
    return NEXT(MPI_SEND_T, QMPI_Send_t, buf, count, type, dest, tag, comm);
}

static int ov_MPI_Recv(QMPI_Context context, int tool_id, void *buf, int count, MPI_Datatype type, int source, int tag,
                       MPI_Comm comm, MPI_Status *status)
{
    if (recv_async(context, buf, count, type, source, tag, comm, status) == 1) return MPI_SUCCESS;
    return NEXT(MPI_RECV_T, QMPI_Recv_t, buf, count, type, source, tag, comm, status);
}

static int ov_MPI_Sendrecv(QMPI_Context context, int tool_id, const void *sbuf, int scount, MPI_Datatype stype,
                           int dest, int stag, void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                           MPI_Comm comm, MPI_Status *status)
{
    int done =
        sendrecv_async(context, 2, sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status);
    if (done == 1) return MPI_SUCCESS;
    if (done == 0) return NEXT(MPI_RECV_T, QMPI_Recv_t, rbuf, rcount, rtype, source, rtag, comm, status);
    return NEXT(MPI_SENDRECV_T, QMPI_Sendrecv_t, sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                comm, status);
}

static int ov_MPI_Sendrecv_replace(QMPI_Context context, int tool_id, void *buf, int count, MPI_Datatype type, int dest,
                                   int stag, int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    int done = sendrecv_async(context, 3, buf, count, type, dest, stag, buf, count, type, source, rtag, comm, status);
    if (done == 1) return MPI_SUCCESS;
    if (done == 0) return NEXT(MPI_RECV_T, QMPI_Recv_t, buf, count, type, source, rtag, comm, status);
    return NEXT(MPI_SENDRECV_REPLACE_T, QMPI_Sendrecv_replace_t, buf, count, type, dest, stag, source, rtag, comm,
                status);
}

#if MPI_VERSION >= 4
/* The large-count forms: counts that fit an int take the same path; larger ones pass through. */
#define FITS(n) ((n) >= 0 && (n) <= INT_MAX)

static int ov_MPI_Send_c(QMPI_Context context, int tool_id, const void *buf, MPI_Count count, MPI_Datatype type,
                         int dest, int tag, MPI_Comm comm)
{
    if (FITS(count) && send_async(context, buf, (int) count, type, dest, tag, comm) == 1) return MPI_SUCCESS;
    return NEXT(MPI_SEND_C_T, QMPI_Send_c_t, buf, count, type, dest, tag, comm);
}

static int ov_MPI_Recv_c(QMPI_Context context, int tool_id, void *buf, MPI_Count count, MPI_Datatype type, int source,
                         int tag, MPI_Comm comm, MPI_Status *status)
{
    if (FITS(count) && recv_async(context, buf, (int) count, type, source, tag, comm, status) == 1) return MPI_SUCCESS;
    return NEXT(MPI_RECV_C_T, QMPI_Recv_c_t, buf, count, type, source, tag, comm, status);
}

static int ov_MPI_Sendrecv_c(QMPI_Context context, int tool_id, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                             int dest, int stag, void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                             MPI_Comm comm, MPI_Status *status)
{
    int done = FITS(scount) && FITS(rcount) ? sendrecv_async(context, 2, sbuf, (int) scount, stype, dest, stag, rbuf,
                                                             (int) rcount, rtype, source, rtag, comm, status)
                                            : -1;
    if (done == 1) return MPI_SUCCESS;
    if (done == 0) return NEXT(MPI_RECV_C_T, QMPI_Recv_c_t, rbuf, rcount, rtype, source, rtag, comm, status);
    return NEXT(MPI_SENDRECV_C_T, QMPI_Sendrecv_c_t, sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                comm, status);
}

static int ov_MPI_Sendrecv_replace_c(QMPI_Context context, int tool_id, void *buf, MPI_Count count, MPI_Datatype type,
                                     int dest, int stag, int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    int done = FITS(count) ? sendrecv_async(context, 3, buf, (int) count, type, dest, stag, buf, (int) count, type,
                                            source, rtag, comm, status)
                           : -1;
    if (done == 1) return MPI_SUCCESS;
    if (done == 0) return NEXT(MPI_RECV_C_T, QMPI_Recv_c_t, buf, count, type, source, rtag, comm, status);
    return NEXT(MPI_SENDRECV_REPLACE_C_T, QMPI_Sendrecv_replace_c_t, buf, count, type, dest, stag, source, rtag, comm,
                status);
}
#endif

/* ---- start and end ---- */

static void read_options(void)
{
    mpii_overlap_options_t o;
    mpii_overlap_options(ov_tool, &o);
    ov_mode = o.mode == MPII_OVERLAP_MODE_PAGING     ? OV_PAGING
              : o.mode == MPII_OVERLAP_MODE_CHAINING ? OV_CHAINING
                                                     : OV_ADAPTIVE;
    ov_threshold = (int) o.chain_threshold;
    ov_max_bytes = (uint64_t) o.max_bytes;
    heap_min = (size_t) o.heap_min;
    ov_now = mpii_decision_clock(); /* MPII_CLOCK=frozen (tests): decisions by counts */
}

static const char *level_name(int level)
{
    return level == MPI_THREAD_SINGLE       ? "MPI_THREAD_SINGLE"
           : level == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
           : level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
           : level == MPI_THREAD_MULTIPLE   ? "MPI_THREAD_MULTIPLE"
                                            : "?";
}

/* Why overlap is off at this thread level, naming the call and the fix for this program: mpi4py
 * (its MPI extension called MPI_Init_thread) asks for what MPI4PY_RC_THREAD_LEVEL says; a C or
 * Fortran program, or a library such as PETSc, asks in its own code. The caller's object, not its
 * address, so every rank writes the same text. */
static void say_thread_level(int required, int provided, uint64_t caller)
{
    Dl_info d;
    const char *path = caller && dladdr((void *) (uintptr_t) caller, &d) && d.dli_fname ? d.dli_fname : "";
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    int mpi4py = strstr(path, "/mpi4py/") != NULL;
    const char *fix = required > MPI_THREAD_SINGLE
                          ? (mpi4py ? "MPI4PY_RC_THREAD_LEVEL=single in the ranks' environment makes mpi4py ask for it"
                                    : "ask for MPI_THREAD_SINGLE there (or call MPI_Init) to use overlap")
                          : "the MPI library gave more than was asked for (its default thread level setting)";
    char text[1024];
    snprintf(text, sizeof text,
             "MPI_Init_thread%s%s%s asked for thread level %s and got %s; the method supports "
             "MPI_THREAD_SINGLE only (a fault on another thread would call MPI from it): %s",
             *base ? ", called from " : "", base, mpi4py ? " (mpi4py)" : "", level_name(required), level_name(provided),
             fix);
    mpii_profile_text(ov_tool, "disabled", text);
}

static void start(int required, int provided, uint64_t caller)
{
    ov_stats = mpii_profile_counters(ov_tool, "stats", ST_COUNT, OV_STAT_LABELS);
    if (!ov_stats) ov_stats = dummy_stats;
    /* the statistics as MPI_T performance variables: mpii_overlap_faults, … */
    mpii_pvar_counters("mpii_overlap_", "overlap: ", ov_stats, ST_COUNT, OV_STAT_LABELS);
    read_options();
    if (provided != MPI_THREAD_SINGLE) {
        /* a fault on another thread would have to call MPI from it: stay out of the way */
        say_thread_level(required, provided, caller);
        mpii_debug("overlap: off (thread level %d; only MPI_THREAD_SINGLE is supported)", provided);
        return;
    }
    if (ov_start() != 0) {
        mpii_error("overlap: could not install the SIGSEGV handler; running without overlap");
        return;
    }
    mpii_heap_start(heap_min);
    live = 1;
    mpii_debug("overlap: on (mode %s, heap pages for allocations >= %zu bytes)",
               ov_mode == OV_PAGING     ? "paging"
               : ov_mode == OV_CHAINING ? "chaining"
                                        : "adaptive",
               heap_min);
}

static void stop(void)
{
    if (!live) return;
    if (ov_mode == OV_ADAPTIVE) write_sites();
    ov_stop();
    live = 0;
    mpii_heap_stop();
}

static int ov_MPI_Init(QMPI_Context context, int tool_id, int *argc, char ***argv)
{
    int rc = NEXT(MPI_INIT_T, QMPI_Init_t, argc, argv);
    if (rc == MPI_SUCCESS) start(MPI_THREAD_SINGLE, MPI_THREAD_SINGLE, 0);
    return rc;
}

static int ov_MPI_Init_thread(QMPI_Context context, int tool_id, int *argc, char ***argv, int required, int *provided)
{
    int rc = NEXT(MPI_INIT_THREAD_T, QMPI_Init_thread_t, argc, argv, required, provided);
    if (rc == MPI_SUCCESS) start(required, *provided, context.storage_stack ? mpii_return_address(context) : 0);
    return rc;
}

/* ---- every other function with a buffer or a status ---- */

static int in_place(const void *p)
{
    return !p || p == MPI_IN_PLACE;
}

/* The library is about to use a buffer: finish receives guarding it; pin it if the library
 * keeps using it after the call returns. Without a usable count (vector collectives), the
 * whole allocation is assumed. */
static void library_uses(const void *buf, MPI_Count count, MPI_Datatype type, int known, int pin)
{
    if (in_place(buf)) return;
    uintptr_t lo, hi;
    if (!pin && known && mpii_extent(buf, count, type, &lo, &hi) == 0) {
        ov_release_range(lo, hi, ST_WAIT_MPI);
        return;
    }
    mpii_block_t *b = mpii_heap_find(buf);
    if (!b) return;
    if (pin) b->pins++;
    ov_release_range(b->start, b->start + b->pages * mpii_page_size, ST_WAIT_MPI);
}

/* A datatype the call really has (fields a function lacks are zero; MPI_DATATYPE_NULL is not
 * zero in every MPI). */
static int given(MPI_Datatype t)
{
    return t != (MPI_Datatype) 0 && t != MPI_DATATYPE_NULL;
}

static void before_call(int id, const mpii_args_t *a)
{
    int f = flags[id];
    if (f & F_ALL) ov_complete_all(ST_WAIT_MPI);
    if (f & F_STATUS_READ) ov_status_read(a->status);
    else if (f & F_STATUS) {
        ov_status_forget(a->status, 1);
        ov_status_forget(a->statuses, a->count);
    }
    if (f & F_BUF) {
        int pin = (f & F_REQ) != 0;
        /* a function without its own send/recv count and type (MPI_Allreduce) uses the common
         * ones for both buffers; vector forms (counts arrays) take the whole allocation */
        int common = given(a->datatype);
        int sv = !a->send_counts && !a->send_counts_c, rv = !a->recv_counts && !a->recv_counts_c;
        library_uses(a->buffer, a->count, a->datatype, common, pin);
        if (given(a->send_datatype)) library_uses(a->send_buffer, a->send_count, a->send_datatype, sv, pin);
        else
            library_uses(a->send_buffer, a->count, a->datatype, common && sv, pin);
        if (given(a->recv_datatype)) library_uses(a->recv_buffer, a->recv_count, a->recv_datatype, rv, pin);
        else
            library_uses(a->recv_buffer, a->count, a->datatype, common && rv, pin);
    }
    if (f & F_PIN) library_uses(a->pinned_buffer, 0, MPI_DATATYPE_NULL, 0, 1);
}

/* The check, out of line in a specialised stack: the hook's usual path (nothing to check), inlined
 * into the entry point, then needs no stack frame for the argument view and no saved registers
 * (HPCC's MPI_Testany polling is that path: two loads, as the constant flags say it can be). The
 * layer below is looked up before it: in a specialised stack the lookup is then a constant the
 * compiler can see (the entry point has just checked mpii_spec_on, and no call comes between),
 * so the call to the library inlines; looked up after an opaque call, it stayed indirect. */
#ifdef MPII_SPEC
#define OV_CHECK_INLINE __attribute__((noinline, cold))
#else /* a hook of the chain has its frame anyway: out of line would only add a call */
#define OV_CHECK_INLINE inline __attribute__((always_inline))
#endif
#define OV_CHECK(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND) \
    static OV_CHECK_INLINE void ovc_##NAME QPARAMS              \
    {                                                           \
        (void) context;                                         \
        (void) tool_id;                                         \
        mpii_args_t a = MPII_ARGS_##NAME;                       \
        ov_stats[ST_CHECKED]++;                                 \
        before_call(ID, &a);                                    \
    }
#define OV_WRAPPER(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND)                                     \
    MPII_HOOK RET ovg_##NAME QPARAMS                                                                  \
    {                                                                                                 \
        int next_id;                                                                                  \
        void (*next_)(void) = mpii_next(tool_id, ID, &next_id);                                       \
        if (MPII_UNLIKELY((ov_role_flags(ID) & F_EVERY) ? live : ov_watching())) ovc_##NAME NEXTARGS; \
        if (ID == MPI_FINALIZE_T) stop();                                                             \
        return ((QTYPE *) next_) NEXTARGS;                                                            \
    }
MPII_FOREACH_FUNC(OV_CHECK)
MPII_FOREACH_FUNC(OV_WRAPPER)

static void classify(void)
{
    for (int id = 0; id < MPII_NFUNCS; id++) {
        const mpii_fn_info_t *f = &mpii_fn_info[id];
        if (!f->name) continue;
        int v = ov_role_flags(id);
        if (!strncmp(f->name, "MPI_Get_count", 13) || !strncmp(f->name, "MPI_Get_elements", 16) ||
            !strcmp(f->name, "MPI_Test_cancelled") || !strncmp(f->name, "MPI_Status_set_", 15))
            v |= F_STATUS_READ; /* all of them have a status: wrapped for F_STATUS already */
        flags[id] = (uint8_t) v;
    }
}

/* What it wraps and with which hook: its registration and a specialised stack's both read these
 * two (dispatch.h). The point-to-point functions it converts have hooks of their own; everything
 * else whose roles give it something to check (ov_role_flags), the generic wrapper. */
static inline int mpii_overlap_wraps(int id)
{
    switch (id) {
    case MPI_FINALIZE_T:
    case MPI_INIT_T:
    case MPI_INIT_THREAD_T:
    case MPI_SEND_T:
    case MPI_RECV_T:
    case MPI_SENDRECV_T:
    case MPI_SENDRECV_REPLACE_T:
#if MPI_VERSION >= 4
    case MPI_SEND_C_T:
    case MPI_RECV_C_T:
    case MPI_SENDRECV_C_T:
    case MPI_SENDRECV_REPLACE_C_T:
#endif
        return 1;
    default: return ov_role_flags(id) != 0;
    }
}
#define OV_HOOK(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND) [ID] = (void (*)(void)) ovg_##NAME,
static void (*const mpii_overlap_hooks[MPII_NFUNCS])(void) = {
    MPII_FOREACH_FUNC(OV_HOOK) /* then the converting hooks in the place of theirs (C99 6.7.8: the last wins) */
        [MPI_INIT_T] = (void (*)(void)) ov_MPI_Init,
    [MPI_INIT_THREAD_T] = (void (*)(void)) ov_MPI_Init_thread,
    [MPI_SEND_T] = (void (*)(void)) ov_MPI_Send,
    [MPI_RECV_T] = (void (*)(void)) ov_MPI_Recv,
    [MPI_SENDRECV_T] = (void (*)(void)) ov_MPI_Sendrecv,
    [MPI_SENDRECV_REPLACE_T] = (void (*)(void)) ov_MPI_Sendrecv_replace,
#if MPI_VERSION >= 4
    [MPI_SEND_C_T] = (void (*)(void)) ov_MPI_Send_c,
    [MPI_RECV_C_T] = (void (*)(void)) ov_MPI_Recv_c,
    [MPI_SENDRECV_C_T] = (void (*)(void)) ov_MPI_Sendrecv_c,
    [MPI_SENDRECV_REPLACE_C_T] = (void (*)(void)) ov_MPI_Sendrecv_replace_c,
#endif
};

void mpii_overlap_init(int tool_id)
{
    ov_tool = tool_id;
    ov_stats = dummy_stats;
    classify();
    mpii_register_hooks(tool_id, mpii_overlap_wraps, mpii_overlap_hooks);
}

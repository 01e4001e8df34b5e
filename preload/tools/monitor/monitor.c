/* monitor: Open MPI's communication monitoring (Bosilca et al., Inria RR-9038) as a QMPI tool,
 * so it runs on any MPI. Per peer (by MPI_COMM_WORLD rank): user point-to-point messages and
 * bytes with a 66-bin size histogram (sender side), one-sided bytes written and read, and
 * collective traffic under the report's direct-transfer model; per communicator: one-to-all,
 * all-to-one and all-to-all totals. Everything is counted in the rank's profile file, so a
 * crashed job still reports it. Layout and the tool's layers: comm_cache.h; report:
 * preload/tools/monitor/report/data.ts. This file is the top layer: the wrappers. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mpii_core.h"
#include "mpii_tool.h"
#include "handle_map.h"
#include "comm_cache.h"
#include "state.h"
#include "collectives.h"
#include "pvars.h"

static int tool;
static handle_map_t persistent; /* persistent send request -> mon_persistent_t */

typedef struct {
    int peer;
    uint64_t bytes;
} mon_persistent_t;

/* Everything a wrapper runs is inlined into it, so the compiler keeps the few fields of
 * mpii_args_t it reads in registers instead of building the whole struct on every call. */
#define MON_INLINE static inline __attribute__((always_inline))

/* A send's count and bytes in its peer's row. ask = 0: counted only if the datatype's size is
 * cached (returns 0, nothing counted, when it would have to ask MPI); returns 1 otherwise. */
MON_INLINE int count_send(const mpii_args_t *a, int ask)
{
    uint64_t *r = peer_row(world_of(a->comm, a->peer));
    if (!r) return 1; /* not counted: before asking MPI for the type's size */
    MPI_Count n = a->count ? a->count : a->send_count;
    MPI_Datatype t = a->datatype ? a->datatype : a->send_datatype;
    uint64_t size = 0;
    if (n > 0 && !mpii_type_size_cached(t, &size)) {
        if (!ask) return 0;
        size = mpii_type_size_slow(t);
    }
    count_message(r, times(n, size));
    return 1;
}

/* The signature of the latest send on MPI_COMM_WORLD counted in full: (count, datatype) and the
 * bytes and histogram bin they make. A send with the same signature (a loop's, to any peer) is
 * counted by send_quick with no datatype cache and no bin to compute. Kept only while recording
 * outside MPI_THREAD_MULTIPLE, and forgotten when recording stops and at every MPI_Type_free (MPI
 * may give the freed handle to the next type made): so send_quick tests none of these itself. */
typedef struct {
    MPI_Datatype type;
    MPI_Count count; /* -1 with type 0: nothing kept (no send is given either) */
    uint64_t bytes;
    int bin;
} mon_last_t;
static mon_last_t mon_last = { .count = -1 };

/* Out of line: the full wrapper's, which keeps the quick path's registers free. */
static __attribute__((noinline)) void remember_send(MPI_Count count, MPI_Datatype type)
{
    uint64_t bytes = count > 0 ? times(count, mpii_type_size(type)) : 0; /* as count_send: no size asked for none */
    mon_last = (mon_last_t){ type, count, bytes, hist_bin(bytes) };
}

static void forget_send(void)
{
    mon_last = (mon_last_t){ .count = -1 };
}

/* A send on MPI_COMM_WORLD with the latest signature (mon_last, kept only while it may be used):
 * counted here, no call made (1); nothing to count for MPI_PROC_NULL or the rank itself (one
 * unsigned compare takes the negative ranks with the ones past the last). Anything else (0) goes
 * to the full wrapper, which counts it and keeps its signature. */
MON_INLINE int send_quick(const mpii_args_t *a)
{
    const mon_last_t *l = &mon_last;
    if (a->comm != MPI_COMM_WORLD || a->datatype != l->type || a->count != l->count) return 0;
    if ((unsigned) a->peer < (unsigned) mon_world_size && a->peer != mon_world_rank)
        count_message_in(mon_peers + (size_t) a->peer * MON_ROW, l->bytes, l->bin);
    return 1;
}

MON_INLINE void on_send(const mpii_args_t *a)
{
    /* a->datatype: a send's or MPI_Sendrecv_replace's (count, datatype); MPI_Sendrecv's are its
     * send_count and send_datatype, and it is no MPI_Send to keep a signature for. A kept signature
     * counts the send too: its bytes and bin are not worked out twice. */
    if (a->comm == MPI_COMM_WORLD && !mon_threaded && a->datatype) {
        remember_send(a->count, a->datatype);
        (void) send_quick(a);
        return;
    }
    (void) count_send(a, 1);
}

MON_INLINE void on_started(const MPI_Request *reqs, int n)
{
    for (int i = 0; i < n; i++) {
        const mon_persistent_t *p = handle_map_get(&persistent, HANDLE_KEY(reqs[i]));
        uint64_t *r = p ? peer_row(p->peer) : NULL;
        if (r) count_message(r, p->bytes);
    }
}

MON_INLINE void on_send_init(const mpii_args_t *a)
{
    int world = world_of(a->comm, a->peer);
    if (!peer_row(world)) return; /* nothing to count at MPI_Start */
    mon_persistent_t *p = malloc(sizeof *p);
    if (!p) return;
    *p = (mon_persistent_t){ world, bytes_of(a->count, a->datatype) };
    free(handle_map_take(&persistent, HANDLE_KEY(*a->request))); /* a reused handle */
    if (handle_map_put(&persistent, HANDLE_KEY(*a->request), p) != 0) free(p);
}

/* One-sided: S = data written into the peer's memory, R = data read from it. */
MON_INLINE void on_rma(mpii_kind_t kind, int id, const mpii_args_t *a)
{
    const mon_group_t *w = mon_win(a->win);
    if (!w || a->peer < 0 || a->peer >= w->size) return;
    int world = w->world[a->peer];
    if (kind == MPII_KIND_RMA_GET) {
        mon_count(world, MON_OSC_R_COUNT, bytes_of(a->recv_count, a->recv_datatype));
    } else if (a->send_datatype) { /* Put, Accumulate, Get_accumulate */
        mon_count(world, MON_OSC_S_COUNT, bytes_of(a->send_count, a->send_datatype));
        if (a->recv_datatype) mon_count(world, MON_OSC_R_COUNT, bytes_of(a->recv_count, a->recv_datatype));
    } else { /* Fetch_and_op: one element each way; Compare_and_swap sends the compare value too */
        mon_count(world, MON_OSC_S_COUNT, bytes_of(id == MPI_COMPARE_AND_SWAP_T ? 2 : 1, a->datatype));
        mon_count(world, MON_OSC_R_COUNT, bytes_of(1, a->datatype));
    }
}

/* Before the call reaches the MPI library. KIND is a constant in each wrapper, so every
 * wrapper keeps only its own case. */
MON_INLINE void before(mpii_kind_t kind, int id, const mpii_args_t *a)
{
    switch (kind) {
    case MPII_KIND_SEND:
    case MPII_KIND_SENDRECV: on_send(a); break;
    case MPII_KIND_START:
        if (a->requests) on_started(a->requests, (int) a->count);
        else if (a->request)
            on_started(a->request, 1);
        break;
    case MPII_KIND_RMA_PUT:
    case MPII_KIND_RMA_GET:
    case MPII_KIND_RMA_ACC: on_rma(kind, id, a); break;
    case MPII_KIND_COLL_O2A:
    case MPII_KIND_COLL_A2O:
    case MPII_KIND_COLL_A2A:
    case MPII_KIND_COLL_SCAN:
    case MPII_KIND_COLL_BARRIER:
    case MPII_KIND_COLL_NEIGHBOR: mon_collective(kind, a); break;
    case MPII_KIND_COMM_FREE:
        if (a->comm_ref) mon_comm_freeing(*a->comm_ref);
        break;
    default:
        if (id == MPI_TYPE_FREE_T) forget_send(); /* the core forgets its cached size (extent.h) */
        break;
    }
}

/* The handle a free is given (the call sets the program's variable to the null handle). */
MON_INLINE uintptr_t freed_key(mpii_kind_t kind, int id, const mpii_args_t *a)
{
    if (kind == MPII_KIND_COMM_FREE) return a->comm_ref ? HANDLE_KEY(*a->comm_ref) : 0;
    if (kind == MPII_KIND_WIN_FREE) return a->win_ref ? HANDLE_KEY(*a->win_ref) : 0;
    if (id == MPI_REQUEST_FREE_T) return a->request ? HANDLE_KEY(*a->request) : 0;
    return 0;
}

/* After the library returned rc: new handles exist now, freed ones are gone. */
MON_INLINE void after(mpii_kind_t kind, int id, const mpii_args_t *a, int rc, uintptr_t freed)
{
    if (rc != MPI_SUCCESS) return;
    if (kind == MPII_KIND_COMM_FREE) mon_comm_forget(freed);
    else if (kind == MPII_KIND_WIN_FREE)
        mon_win_forget(freed);
    else if (id == MPI_REQUEST_FREE_T)
        free(handle_map_take(&persistent, freed));
    else if (kind == MPII_KIND_SEND_INIT)
        on_send_init(a);
    else if (kind == MPII_KIND_COMM_CREATE && a->new_comm && id != MPI_COMM_IDUP_T && *a->new_comm != MPI_COMM_NULL)
        mon_comm_created(*a->new_comm, a->comm, mpii_fn_info[id].name); /* its record exists even without traffic */
    else if (id == MPI_COMM_SET_NAME_T)
        mon_comm_renamed(a->comm);
}

static void start_recording(void)
{
    int provided = MPI_THREAD_SINGLE;
    MPII_PMPI(MPI_Comm_rank, MPI_COMM_RANK_T)(MPI_COMM_WORLD, &mon_world_rank);
    MPII_PMPI(MPI_Comm_size, MPI_COMM_SIZE_T)(MPI_COMM_WORLD, &mon_world_size);
    MPII_PMPI(MPI_Query_thread, MPI_QUERY_THREAD_T)(&provided);
    mon_threaded = provided == MPI_THREAD_MULTIPLE;
    mon_peers = mpii_profile_counters(tool, "peers", (size_t) mon_world_size * MON_ROW, MON_ROW_LABELS);
    if (!mon_peers || mon_cache_init(tool) != 0) {
        mpii_error("monitor: out of memory for %d peers: nothing is recorded", mon_world_size);
        return;
    }
    mon_recording = 1;
}

/* How much of the per-peer table became real memory: pages are only allocated for the rows
 * of peers that were talked to (the table lives in a sparse file mapping). Once, at the end. */
static void report_memory(void)
{
    size_t page = (size_t) sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t) mon_peers & ~(uintptr_t) (page - 1);
    uintptr_t end = (uintptr_t) (mon_peers + (size_t) mon_world_size * MON_ROW);
    size_t npages = (end - start + page - 1) / page, resident = 0;
    unsigned char *vec = malloc(npages ? npages : 1);
    if (vec && mincore((void *) start, end - start, vec) == 0)
        for (size_t i = 0; i < npages; i++) resident += vec[i] & 1;
    free(vec);
    char json[160];
    snprintf(json, sizeof json, "{\"table_bytes\":%zu,\"resident_bytes\":%zu}",
             (size_t) mon_world_size * MON_ROW * sizeof(uint64_t), resident * page);
    mpii_profile_text(tool, "memory", json);
}

static void stop_recording(void)
{
    if (!mon_recording) return;
    mon_pvars_finish();
    forget_send();
    mon_recording = 0;
    report_memory();
    mon_cache_finish();
}

/* What every wrapper does: count before the call (a send, a collective, a start, one-sided),
 * remember after it (new communicators, persistent sends, frees). Statements ending in the
 * return: a function's body. */
#define MON_BODY(RET, NAME, ID, QTYPE, NEXTARGS, KIND)                                                       \
    mpii_args_t a = MPII_ARGS_##NAME;                                                                        \
    (void) a;                                                                                                \
    if (ID == MPI_FINALIZE_T) stop_recording();                                                              \
    uintptr_t freed = freed_key(KIND, ID, &a);                                                               \
    (void) freed;                                                                                            \
    if (MPII_LIKELY(mon_recording)) {                                                                        \
        if (mon_threaded) pthread_mutex_lock(&mon_lock);                                                     \
        before(KIND, ID, &a);                                                                                \
        if (mon_threaded) pthread_mutex_unlock(&mon_lock);                                                   \
    }                                                                                                        \
    RET rc = MPII_CALL_NEXT_ARGS(tool_id, ID, QTYPE, NEXTARGS);                                              \
    if (KIND == MPII_KIND_INIT && rc == MPI_SUCCESS) start_recording();                                      \
    else if (mon_recording &&                                                                                \
             (KIND == MPII_KIND_SEND_INIT || KIND == MPII_KIND_COMM_CREATE || KIND == MPII_KIND_COMM_FREE || \
              KIND == MPII_KIND_WIN_FREE || ID == MPI_COMM_SET_NAME_T || ID == MPI_REQUEST_FREE_T)) {        \
        if (mon_threaded) pthread_mutex_lock(&mon_lock);                                                     \
        after(KIND, ID, &a, (int) (intptr_t) rc, freed);                                                     \
        if (mon_threaded) pthread_mutex_unlock(&mon_lock);                                                   \
    }                                                                                                        \
    return rc
/* The wrapper: a send that send_quick counts goes on to the next layer at once; everything else
 * runs mon_full_NAME, a function of its own. So the common send makes no call before the next
 * layer's (the full wrapper's may call MPI or take the lock), and keeps its arguments in the
 * registers they came in (no callee-saved register to save on the latest send again). */
#define MON_WRAPPER(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND)                                     \
    static __attribute__((noinline, unused)) RET mon_full_##NAME MPII_OUTLINED_PARAMS(QPARAMS)         \
    {                                                                                                  \
        MPII_OUTLINED_CONTEXT;                                                                         \
        MON_BODY(RET, NAME, ID, QTYPE, NEXTARGS, KIND);                                                \
    }                                                                                                  \
    MPII_HOOK RET mon_##NAME QPARAMS                                                                   \
    {                                                                                                  \
        if (KIND == MPII_KIND_SEND) {                                                                  \
            mpii_args_t a = MPII_ARGS_##NAME;                                                          \
            if (MPII_LIKELY(send_quick(&a))) return MPII_CALL_NEXT_ARGS(tool_id, ID, QTYPE, NEXTARGS); \
            int next_id = tool_id; /* NEXTARGS pass it: to mon_full_NAME unchanged */                  \
            return mon_full_##NAME MPII_OUTLINED_ARGS(NEXTARGS);                                       \
        }                                                                                              \
        MON_BODY(RET, NAME, ID, QTYPE, NEXTARGS, KIND);                                                \
    }
MPII_FOREACH_FUNC(MON_WRAPPER)

/* What it wraps and with which hook: its registration and a specialised stack's both read these
 * two (dispatch.h). It counts at the sender, so no receive or completion is wrapped. */
static inline int mpii_monitor_wraps(int id)
{
    switch (mpii_fn_kind[id]) {
    case MPII_KIND_INIT:
    case MPII_KIND_SEND:
    case MPII_KIND_SENDRECV:
    case MPII_KIND_SEND_INIT:
    case MPII_KIND_START:
    case MPII_KIND_RMA_PUT:
    case MPII_KIND_RMA_GET:
    case MPII_KIND_RMA_ACC:
    case MPII_KIND_COLL_O2A:
    case MPII_KIND_COLL_A2O:
    case MPII_KIND_COLL_A2A:
    case MPII_KIND_COLL_SCAN:
    case MPII_KIND_COLL_BARRIER:
    case MPII_KIND_COLL_NEIGHBOR:
    case MPII_KIND_COMM_CREATE:
    case MPII_KIND_COMM_FREE:
    case MPII_KIND_WIN_FREE: return 1;
    default:
        return id == MPI_FINALIZE_T || id == MPI_REQUEST_FREE_T || id == MPI_COMM_SET_NAME_T || id == MPI_TYPE_FREE_T;
    }
}
#define MON_HOOK(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND) [ID] = (void (*)(void)) mon_##NAME,
static void (*const mpii_monitor_hooks[MPII_NFUNCS])(void) = { MPII_FOREACH_FUNC(MON_HOOK) };

void mpii_monitor_init(int tool_id)
{
    tool = tool_id;
    mon_pvars_register(tool_id);
    mpii_register_hooks(tool_id, mpii_monitor_wraps, mpii_monitor_hooks);
}

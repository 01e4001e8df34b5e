/* memcheck: MPI semantic memory checking by page protection (state.h lists the files, bottom to top).
 * This file is the top layer.
 * One generic QMPI wrapper over every MPI function, driven by the spec's roles and kinds:
 *   before the call   buffer extents are checked against their allocations (E1/E2); received
 *                     data still being watched is resolved (the library reads or overwrites it);
 *                     pending buffers are opened if the call may progress communication
 *   after the call    a nonblocking/persistent/one-sided start hands its buffers to MPI
 *                     (guards), a completion or synchronisation hands them back, a blocking
 *                     receive starts watching what arrived; pending buffers close again. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "state.h"
#include "sample.h"
#include "findings.h"
#include "valgrind.h"
#include "unread.h"
#include "pending.h"
#include "owner.h"
#include "mpii_tool.h"
#include "mpii_options_memcheck.h" /* generated from tool.yaml */

static uint64_t dummy_stats[MS_COUNT];
static size_t heap_min; /* options (tool.yaml), set at MPI_Init */
static size_t heap_small_limit;
static int live;                  /* between a usable MPI_Init and MPI_Finalize */
static volatile int other_thread; /* a thread other than MPI's initialiser made an MPI call */
static volatile int n_deferred;   /* the library's accesses on its own threads, to judge (below) */
static int thread_change(void);
static void judge_deferred(void);

/* Whether this call is checked: while MPI runs and every MPI call comes from the thread that
 * initialised it, whatever thread level it granted (mpi4py asks for MPI_THREAD_MULTIPLE and calls
 * from one thread). A call from another thread ends checking for the run: that thread only says
 * so, and the initialising thread stops at its next call, so no two threads touch the state. */
static inline int mc_on(void)
{
    if (MPII_LIKELY(mpii_init_thread && !other_thread)) {
        if (MPII_UNLIKELY(n_deferred) && live) judge_deferred();
        return live;
    }
    return live && thread_change();
}

enum {
    F_LIFT = 1,            /* may progress communication: pending buffers must be open */
    F_BUF = 2,             /* communicates from/into buffers: extent checks, unread resolution */
    F_START_OP = 4,        /* starts a nonblocking operation (returns a request) */
    F_PERSISTENT = 8,      /* … an inactive persistent one */
    F_RMA = 16,            /* one-sided without a request: completes at synchronisation */
    F_COMPLETE = 32,       /* Wait/Test family */
    F_START = 64,          /* MPI_Start / MPI_Startall */
    F_SYNC = 128,          /* one-sided synchronisation (or window free) */
    F_BLOCKING_RECV = 256, /* receives data before it returns */
    F_REQ_FREE = 512,
    F_GET_STATUS = 1024,
    F_WINDOW = 2048, /* creates or extends a window: what the library allocates keeps its layout */
    F_PIN = 4096,    /* hands the library memory it may access at any time (windows, Bsend buffer) */
    F_EXSCAN = 8192, /* MPI_Exscan and its forms: rank 0's receive buffer is left undefined */
};
static uint16_t flags[MPII_NFUNCS];

/* ---- which bytes a call touches, and in which direction ---- */

typedef struct {
    mc_range_t r[3];
    int n;
} mc_ranges_t;

static int given_type(MPI_Datatype t)
{
    return t != (MPI_Datatype) 0 && t != MPI_DATATYPE_NULL;
}

static int my_rank(MPI_Comm comm)
{
    int r = -1;
    MPII_PMPI(MPI_Comm_rank, MPI_COMM_RANK_T)(comm, &r);
    return r;
}

/* A buffer with a count and type (known = 0: vector form, the rest of its allocation). */
static void add(mc_ranges_t *rs, const void *buf, MPI_Count count, MPI_Datatype type, int known, int dir)
{
    if (!buf || buf == MPI_IN_PLACE || buf == MPI_BOTTOM || rs->n == 3) return;
    mc_range_t *r = &rs->r[rs->n];
    if (known) {
        if (mc_range(r, buf, count, type, dir) != 0) return;
    } else {
        mpii_block_t *b = mpii_heap_find(buf);
        if (!b) return;
        memset(r, 0, sizeof *r);
        r->dir = (uint8_t) dir;
        r->kind = 0xff;
        r->lo = (uintptr_t) buf;
        r->hi = b->start + b->size > r->lo ? b->start + b->size : r->lo;
        r->block = b;
    }
    if (r->lo < r->hi) rs->n++;
}

static void ranges_of(int id, const mpii_args_t *a, mc_ranges_t *rs)
{
    rs->n = 0;
    mpii_kind_t kind = mpii_fn_info[id].kind;
    int common = given_type(a->datatype);
    int sv = !a->send_counts && !a->send_counts_c, rv = !a->recv_counts && !a->recv_counts_c;
    /* rooted collectives: the root's side only at the root */
    int root_only_send = kind == MPII_KIND_COLL_O2A && a->send_buffer, root_only_recv = kind == MPII_KIND_COLL_A2O;
    int is_root = 1;
    if (root_only_send || root_only_recv || (kind == MPII_KIND_COLL_O2A && a->buffer)) {
        if (a->root == MPI_PROC_NULL) return;
        is_root = a->root == MPI_ROOT || a->root == my_rank(a->comm);
    }
    if (a->buffer) {
        int dir = kind == MPII_KIND_RECV || kind == MPII_KIND_RECV_INIT ? MC_DIR_RECV
                  : kind == MPII_KIND_COLL_O2A                          ? (is_root ? MC_DIR_SEND : MC_DIR_RECV)
                                                                        : MC_DIR_SEND;
        add(rs, a->buffer, a->count, a->datatype, common, dir);
        if (kind == MPII_KIND_SENDRECV) add(rs, a->buffer, a->count, a->datatype, common, MC_DIR_RECV);
    }
    if (a->send_buffer && (!root_only_send || is_root)) {
        if (given_type(a->send_datatype)) add(rs, a->send_buffer, a->send_count, a->send_datatype, sv, MC_DIR_SEND);
        else
            add(rs, a->send_buffer, a->count, a->datatype, common && sv, MC_DIR_SEND);
    }
    if (a->recv_buffer && (!root_only_recv || is_root)) {
        if (given_type(a->recv_datatype)) add(rs, a->recv_buffer, a->recv_count, a->recv_datatype, rv, MC_DIR_RECV);
        else
            add(rs, a->recv_buffer, a->count, a->datatype, common && rv, MC_DIR_RECV);
    }
    /* MPI_Exscan: "the value in recvbuf on the process with rank 0 is undefined" (MPI-4.1 §6.11.2):
     * nothing arrives there, so what rank 0 does with it is neither a write before read nor
     * data never read (MPICH's coll/op_coll overwrites it) */
    if ((flags[id] & F_EXSCAN) && my_rank(a->comm) == 0)
        for (int k = 0; k < rs->n; k++)
            if (rs->r[k].dir == MC_DIR_RECV) rs->r[k].undefined = 1;
}

/* E1/E2: the extent must lie inside the allocation it starts in. */
static void check_extents(const mc_origin_t *o, const mc_ranges_t *rs)
{
    for (int k = 0; k < rs->n; k++) {
        const mc_range_t *r = &rs->r[k];
        if (mc_valgrind) {
            mc_vg_check((void *) r->lo, r->hi - r->lo, r->dir == MC_DIR_SEND);
            continue;
        }
        mpii_block_t *b = r->block ? r->block : mpii_heap_find((void *) r->lo);
        if (!b) continue;
        uintptr_t end = b->start + b->size;
        if (r->hi <= end) continue;
        mc_finding_t f = { .kind = r->dir == MC_DIR_SEND ? MC_SEND_OVERRUN : MC_RECV_OVERRUN,
                           .origin = o,
                           .addr = end,
                           .base = r->lo,
                           .len = r->hi - r->lo,
                           .bytes = r->hi - (r->lo > end ? r->lo : end),
                           .access = -1 };
        mc_report(&f);
    }
}

/* ---- requests handed to completion calls (saved: the library overwrites the array) ---- */

static MPI_Request *saved;
static MPI_Status *own_statuses;
static size_t saved_cap;

static int save_requests(const MPI_Request *reqs, MPI_Count n)
{
    if (n <= 0) return 0;
    if ((size_t) n > saved_cap) {
        size_t cap = (size_t) n < 1024 ? 1024 : (size_t) n;
        void *a = mmap(NULL, cap * (sizeof(MPI_Request) + sizeof(MPI_Status)), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (a == MAP_FAILED) return -1;
        if (saved) munmap(saved, saved_cap * (sizeof(MPI_Request) + sizeof(MPI_Status)));
        saved = a;
        own_statuses = (MPI_Status *) (saved + cap);
        saved_cap = cap;
    }
    memcpy(saved, reqs, (size_t) n * sizeof *reqs);
    return 0;
}

static void poison_status(MPI_Status *st)
{
    if (!st || st == MPI_STATUS_IGNORE) return;
    if (mc_valgrind) mc_vg_status_error(st);
    else if (mc_strict)
        st->MPI_ERROR = -0x4d43; /* undefined after single completion (E4): make a use show */
}

/* ---- the generic wrapper ---- */

#define CALL_NEXT(ID, QTYPE, NEXTARGS) MPII_CALL_NEXT_ARGS(tool_id, ID, QTYPE, NEXTARGS)

static void *call_site(QMPI_Context context)
{
    return context.storage_stack ? (void *) (uintptr_t) mpii_calling_address(context)
                                 : NULL; /* Python: the line's key */
}

static void before(int id, mc_origin_t *o, const mpii_args_t *a, mc_ranges_t *rs)
{
    int f = flags[id];
    if (f & F_BUF) {
        ranges_of(id, a, rs);
        check_extents(o, rs);
        for (int k = 0; k < rs->n; k++) mc_pending_recv_overlaps(&rs->r[k]);
        if (mc_tracked)
            for (int k = 0; k < rs->n; k++) mc_unread_library_uses(rs->r[k].lo, rs->r[k].hi, rs->r[k].dir);
    }
}

static void after_start(int id, mc_origin_t *o, const mpii_args_t *a, mc_ranges_t *rs)
{
    int f = flags[id];
    mpii_kind_t k = mpii_fn_info[id].kind;
    if (k >= MPII_KIND_SEND && k <= MPII_KIND_SENDRECV && a->peer == MPI_PROC_NULL) return; /* nothing moves */
    if (f & F_START_OP) mc_pending_start(o, a->request, a->win, a->peer, (f & F_PERSISTENT) != 0, rs->r, rs->n);
    else if (f & F_RMA)
        mc_pending_start(o, NULL, a->win, a->peer, 0, rs->r, rs->n);
}

/* A blocking receive returned: what arrived is watched (bytes from the status for p2p). */
static void after_blocking_recv(mc_origin_t *o, const mc_ranges_t *rs, const MPI_Status *st)
{
    for (int k = 0; k < rs->n; k++) {
        const mc_range_t *r = &rs->r[k];
        if (r->dir != MC_DIR_RECV || !r->contiguous || r->undefined) continue; /* strided types: not followed */
        size_t n = r->hi - r->lo;
        int bytes = 0;
        if (st && MPII_PMPI(MPI_Get_count, MPI_GET_COUNT_T)(st, MPI_BYTE, &bytes) == MPI_SUCCESS && bytes >= 0 &&
            bytes != MPI_UNDEFINED && (size_t) bytes < n)
            n = (size_t) bytes;
        if (!mc_valgrind) mc_unread_received(o, r->lo, n, r->elem);
    }
}

static void start(void);
static void stop(void);

/* The call succeeded (only int-returning functions start operations). */
static int ok(const void *rc, size_t n)
{
    return n == sizeof(int) && *(const int *) rc == MPI_SUCCESS;
}

/* The start of every buffer-aware wrapper: the call's origin, arguments and byte ranges, checked.
 * (rs is not `= { 0 }`: zeroing three ranges per call costs a rep stos.) */
#define MC_BEFORE(ID, NAME)                                   \
    mc_origin_t o = { .site = call_site(context), .fn = ID }; \
    mpii_args_t a = MPII_ARGS_##NAME;                         \
    mc_ranges_t rs;                                           \
    rs.n = 0;                                                 \
    before(ID, &o, &a, &rs)

#define MC_WRAPPER(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND)                           \
    static __attribute__((unused)) RET mcg_##NAME QPARAMS                                   \
    {                                                                                       \
        if (ID == MPI_FINALIZE_T) stop();                                                   \
        if (MPII_UNLIKELY(!mc_on())) return CALL_NEXT(ID, QTYPE, NEXTARGS);                 \
        MC_BEFORE(ID, NAME);                                                                \
        int lifts = (flags[ID] & F_LIFT) != 0, lifted = lifts && mc_guarded_ops;            \
        mc_in_library += lifts;                                                             \
        if (lifted) mc_pending_lift();                                                      \
        if (lifts) mpii_heap_library_enter(); /* the library's own allocations: ordinary */ \
        RET rc = CALL_NEXT(ID, QTYPE, NEXTARGS);                                            \
        if (lifts) mpii_heap_library_leave();                                               \
        if (ok(&rc, sizeof rc)) after_start(ID, &o, &a, &rs);                               \
        if (lifted) mc_pending_relower();                                                   \
        mc_in_library -= lifts;                                                             \
        return rc;                                                                          \
    }
MPII_FOREACH_FUNC(MC_WRAPPER)

/* ---- calls whose results matter: completions, starts, receives, synchronisation ---- */

#define NEXT(ID, QTYPE, ...) MPII_CALL_NEXT(tool_id, ID, QTYPE, __VA_ARGS__)

/* Around every call that may progress communication: pending buffers open for the library, and
 * what faults meanwhile on this thread is the library's (mc_in_library). Always in pairs. */
static void lift(void)
{
    mc_in_library++;
    if (mc_guarded_ops) mc_pending_lift();
}

static void relower(void)
{
    mc_pending_relower(); /* also when the call completed the last pending operation */
    mc_in_library--;
}

static int mc_MPI_Wait(QMPI_Context context, int tool_id, MPI_Request *req, MPI_Status *status)
{
    if (!mc_on() || !req) return NEXT(MPI_WAIT_T, QMPI_Wait_t, req, status);
    MPI_Request r = *req;
    MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status;
    lift();
    int rc = NEXT(MPI_WAIT_T, QMPI_Wait_t, req, st);
    if (r != MPI_REQUEST_NULL) mc_pending_complete(req, r, st);
    relower();
    poison_status(status);
    return rc;
}

static int mc_MPI_Test(QMPI_Context context, int tool_id, MPI_Request *req, int *flag, MPI_Status *status)
{
    if (!mc_on() || !req) return NEXT(MPI_TEST_T, QMPI_Test_t, req, flag, status);
    MPI_Request r = *req;
    MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status;
    lift();
    int rc = NEXT(MPI_TEST_T, QMPI_Test_t, req, flag, st);
    if (*flag && r != MPI_REQUEST_NULL) mc_pending_complete(req, r, st);
    relower();
    if (*flag) poison_status(status);
    return rc;
}

static int mc_MPI_Waitany(QMPI_Context context, int tool_id, int count, MPI_Request reqs[], int *index,
                          MPI_Status *status)
{
    if (!mc_on() || save_requests(reqs, count) != 0)
        return NEXT(MPI_WAITANY_T, QMPI_Waitany_t, count, reqs, index, status);
    MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status;
    lift();
    int rc = NEXT(MPI_WAITANY_T, QMPI_Waitany_t, count, reqs, index, st);
    if (*index != MPI_UNDEFINED && *index >= 0 && *index < count) mc_pending_complete(&reqs[*index], saved[*index], st);
    relower();
    poison_status(status);
    return rc;
}

static int mc_MPI_Testany(QMPI_Context context, int tool_id, int count, MPI_Request reqs[], int *index, int *flag,
                          MPI_Status *status)
{
    if (!mc_on() || save_requests(reqs, count) != 0)
        return NEXT(MPI_TESTANY_T, QMPI_Testany_t, count, reqs, index, flag, status);
    MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status;
    lift();
    int rc = NEXT(MPI_TESTANY_T, QMPI_Testany_t, count, reqs, index, flag, st);
    if (*flag && *index != MPI_UNDEFINED && *index >= 0 && *index < count)
        mc_pending_complete(&reqs[*index], saved[*index], st);
    relower();
    if (*flag) poison_status(status);
    return rc;
}

static int mc_MPI_Waitall(QMPI_Context context, int tool_id, int count, MPI_Request reqs[], MPI_Status *statuses)
{
    if (!mc_on() || save_requests(reqs, count) != 0) return NEXT(MPI_WAITALL_T, QMPI_Waitall_t, count, reqs, statuses);
    MPI_Status *sts = statuses == MPI_STATUSES_IGNORE ? own_statuses : statuses;
    lift();
    int rc = NEXT(MPI_WAITALL_T, QMPI_Waitall_t, count, reqs, sts);
    for (int i = 0; i < count; i++)
        if (saved[i] != MPI_REQUEST_NULL) mc_pending_complete(&reqs[i], saved[i], rc == MPI_SUCCESS ? &sts[i] : NULL);
    relower();
    return rc;
}

static int mc_MPI_Testall(QMPI_Context context, int tool_id, int count, MPI_Request reqs[], int *flag,
                          MPI_Status *statuses)
{
    if (!mc_on() || save_requests(reqs, count) != 0)
        return NEXT(MPI_TESTALL_T, QMPI_Testall_t, count, reqs, flag, statuses);
    MPI_Status *sts = statuses == MPI_STATUSES_IGNORE ? own_statuses : statuses;
    lift();
    int rc = NEXT(MPI_TESTALL_T, QMPI_Testall_t, count, reqs, flag, sts);
    if (*flag)
        for (int i = 0; i < count; i++)
            if (saved[i] != MPI_REQUEST_NULL)
                mc_pending_complete(&reqs[i], saved[i], rc == MPI_SUCCESS ? &sts[i] : NULL);
    relower();
    return rc;
}

static void some_completed(MPI_Request *reqs, int outcount, const int *indices, MPI_Status *sts)
{
    if (outcount == MPI_UNDEFINED) return;
    for (int k = 0; k < outcount; k++) mc_pending_complete(&reqs[indices[k]], saved[indices[k]], &sts[k]);
}

/* Waitsome and Testsome: the same but for the library function. */
#define MC_SOME(NAME, ID, QTYPE)                                                                          \
    static int mc_##NAME(QMPI_Context context, int tool_id, int count, MPI_Request reqs[], int *outcount, \
                         int indices[], MPI_Status *statuses)                                             \
    {                                                                                                     \
        if (!mc_on() || save_requests(reqs, count) != 0)                                                  \
            return NEXT(ID, QTYPE, count, reqs, outcount, indices, statuses);                             \
        MPI_Status *sts = statuses == MPI_STATUSES_IGNORE ? own_statuses : statuses;                      \
        lift();                                                                                           \
        int rc = NEXT(ID, QTYPE, count, reqs, outcount, indices, sts);                                    \
        some_completed(reqs, *outcount, indices, sts);                                                    \
        relower();                                                                                        \
        return rc;                                                                                        \
    }
MC_SOME(MPI_Waitsome, MPI_WAITSOME_T, QMPI_Waitsome_t)
MC_SOME(MPI_Testsome, MPI_TESTSOME_T, QMPI_Testsome_t)

static int mc_MPI_Request_get_status(QMPI_Context context, int tool_id, MPI_Request req, int *flag, MPI_Status *status)
{
    if (!mc_on()) return NEXT(MPI_REQUEST_GET_STATUS_T, QMPI_Request_get_status_t, req, flag, status);
    MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status;
    lift();
    int rc = NEXT(MPI_REQUEST_GET_STATUS_T, QMPI_Request_get_status_t, req, flag, st);
    if (*flag) mc_pending_complete(NULL, req, st);
    relower();
    return rc;
}

static int mc_MPI_Start(QMPI_Context context, int tool_id, MPI_Request *req)
{
    lift();
    int rc = NEXT(MPI_START_T, QMPI_Start_t, req);
    if (live && rc == MPI_SUCCESS) mc_pending_activate(req, *req);
    relower();
    return rc;
}

static int mc_MPI_Startall(QMPI_Context context, int tool_id, int count, MPI_Request reqs[])
{
    lift();
    int rc = NEXT(MPI_STARTALL_T, QMPI_Startall_t, count, reqs);
    if (live && rc == MPI_SUCCESS)
        for (int i = 0; i < count; i++) mc_pending_activate(&reqs[i], reqs[i]);
    relower();
    return rc;
}

static int mc_MPI_Request_free(QMPI_Context context, int tool_id, MPI_Request *req)
{
    if (live && req) mc_pending_free(req, *req);
    lift();
    int rc = NEXT(MPI_REQUEST_FREE_T, QMPI_Request_free_t, req);
    relower();
    return rc;
}

/* Blocking point-to-point receives: the status tells how much arrived. */
static int mc_MPI_Recv(QMPI_Context context, int tool_id, void *buf, int count, MPI_Datatype type, int source, int tag,
                       MPI_Comm comm, MPI_Status *status)
{
    if (!mc_on()) return NEXT(MPI_RECV_T, QMPI_Recv_t, buf, count, type, source, tag, comm, status);
    mc_origin_t o = { .site = call_site(context), .fn = MPI_RECV_T };
    mpii_args_t a = { .buffer = buf, .count = count, .datatype = type, .peer = source, .tag = tag, .comm = comm };
    mc_ranges_t rs = { .n = 0 };
    before(MPI_RECV_T, &o, &a, &rs);
    MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status;
    lift();
    int rc = NEXT(MPI_RECV_T, QMPI_Recv_t, buf, count, type, source, tag, comm, st);
    relower();
    if (rc == MPI_SUCCESS) after_blocking_recv(&o, &rs, st);
    return rc;
}

static int mc_MPI_Sendrecv(QMPI_Context context, int tool_id, const void *sbuf, int scount, MPI_Datatype stype,
                           int dest, int stag, void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                           MPI_Comm comm, MPI_Status *status)
{
    if (!mc_on())
        return NEXT(MPI_SENDRECV_T, QMPI_Sendrecv_t, sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                    comm, status);
    mc_origin_t o = { .site = call_site(context), .fn = MPI_SENDRECV_T };
    mpii_args_t a = { .send_buffer = sbuf,
                      .send_count = scount,
                      .send_datatype = stype,
                      .recv_buffer = rbuf,
                      .recv_count = rcount,
                      .recv_datatype = rtype,
                      .comm = comm };
    mc_ranges_t rs = { .n = 0 };
    before(MPI_SENDRECV_T, &o, &a, &rs);
    MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status;
    lift();
    int rc = NEXT(MPI_SENDRECV_T, QMPI_Sendrecv_t, sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                  comm, st);
    relower();
    if (rc == MPI_SUCCESS) after_blocking_recv(&o, &rs, st);
    return rc;
}

/* The blocking collectives and the other blocking receives: everything in the receive range
 * arrived. (Generic: one wrapper per function through the same X-macro.) */
#define MC_BLOCKING(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND)          \
    static __attribute__((unused)) RET mcb_##NAME QPARAMS                   \
    {                                                                       \
        if (MPII_UNLIKELY(!mc_on())) return CALL_NEXT(ID, QTYPE, NEXTARGS); \
        MC_BEFORE(ID, NAME);                                                \
        lift();                                                             \
        RET rc = CALL_NEXT(ID, QTYPE, NEXTARGS);                            \
        relower();                                                          \
        if (rc == MPI_SUCCESS) after_blocking_recv(&o, &rs, NULL);          \
        return rc;                                                          \
    }
MPII_FOREACH_FUNC(MC_BLOCKING)

/* One-sided synchronisation: origin buffers of the operations it completes are free again. */
#define MC_SYNC(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND)                                               \
    static __attribute__((unused)) RET mcs_##NAME QPARAMS                                                    \
    {                                                                                                        \
        mpii_args_t a = MPII_ARGS_##NAME;                                                                    \
        MPI_Win sync_win = a.win;                                                                            \
        int target = -1;                                                                                     \
        if (ID == MPI_WIN_UNLOCK_T || ID == MPI_WIN_FLUSH_T || ID == MPI_WIN_FLUSH_LOCAL_T) target = a.peer; \
        lift();                                                                                              \
        RET rc = CALL_NEXT(ID, QTYPE, NEXTARGS);                                                             \
        if (mc_on()) mc_pending_rma_sync(sync_win, target);                                                  \
        relower();                                                                                           \
        return rc;                                                                                           \
    }
MPII_FOREACH_FUNC(MC_SYNC)

static int mc_MPI_Win_free(QMPI_Context context, int tool_id, MPI_Win *win)
{
    MPI_Win w = win ? *win : MPI_WIN_NULL;
    if (mc_on()) mc_pending_rma_sync(w, -1);
    lift();
    int rc = NEXT(MPI_WIN_FREE_T, QMPI_Win_free_t, win);
    relower();
    return rc;
}

/* ---- memory given to MPI for windows: its layout stays, and it is never guarded ---- */

/* MPI_Win_create, MPI_Win_attach, MPI_Buffer_attach: peers may read or write this memory at any
 * moment (one-sided transfers by single copy, outside any MPI call here), and the kernel fails
 * on a protected page instead of faulting: its block is never guarded again (what is watched on
 * it now counts as used). The pin lasts until the block is freed. */
static void pin(const void *p)
{
    mpii_block_t *b = p ? mpii_heap_find(p) : NULL;
    if (!b) return;
    b->pins++;
    mc_unread_library_uses(b->start, b->start + b->pages * mpii_page_size, MC_DIR_SEND);
}

/* MPI_Win_allocate(_shared), MPI_Win_create(_dynamic), MPI_Win_attach/detach: the window's memory
 * and the library's bookkeeping for it are allocated where the library's allocator puts them
 * (never page-exclusive: never guarded). Else each attach's record took pages of its own from
 * the same arena, between the program's small MPI_Alloc_mem elements, and spread them over a
 * page each again (Open MPI's attach limit, below). */
#define MC_WINDOW(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND)            \
    static __attribute__((unused)) RET mcw_##NAME QPARAMS                   \
    {                                                                       \
        if (MPII_UNLIKELY(!mc_on())) return CALL_NEXT(ID, QTYPE, NEXTARGS); \
        mpii_args_t a = MPII_ARGS_##NAME;                                   \
        if (flags[ID] & F_PIN) pin(a.pinned_buffer);                        \
        int own = (flags[ID] & F_WINDOW) != 0;                              \
        if (own) mpii_heap_library_enter();                                 \
        lift(); /* collective: may progress pending operations */           \
        RET rc = CALL_NEXT(ID, QTYPE, NEXTARGS);                            \
        relower();                                                          \
        if (own) mpii_heap_library_leave();                                 \
        return rc;                                                          \
    }
MPII_FOREACH_FUNC(MC_WINDOW)

/* MPI_Alloc_mem: memory the program may attach to a dynamic window. Below a page it stays where
 * the library's allocator puts it, next to its neighbours: Open MPI's osc/rdma counts attached
 * regions by page (32 per window by default), and a page each made a list of 16-byte elements
 * fail at the 33rd MPI_Win_attach (MPICH's rma/linked_list: MPI_ERR_RMA_ATTACH). Larger blocks
 * get pages of their own like any allocation: message buffers from MPI_Alloc_mem are checked. */
static int mc_MPI_Alloc_mem(QMPI_Context context, int tool_id, MPI_Aint size, MPI_Info info, void *baseptr)
{
    int keep = mc_on() && !mc_valgrind && size >= 0 && (size_t) size < mpii_page_size;
    if (keep) mpii_heap_library_enter();
    int rc = NEXT(MPI_ALLOC_MEM_T, QMPI_Alloc_mem_t, size, info, baseptr);
    if (keep) mpii_heap_library_leave();
    return rc;
}

/* ---- the library's accesses on its own threads ---- */

/* A thread other than MPI's (Open MPI's btl/tcp progress thread, MPICH's async progress thread,
 * UCX's) runs the library's code on watched memory: unpacking a message into a buffer, a system
 * call into it. Its transfer must not fail, and the state belongs to MPI's thread, which may be
 * changing it at this moment: the page opens at once (mpii_guard_open, its counts unchanged) and
 * the access waits here until MPI's thread judges it at its next MPI call (judge_deferred: the
 * library's, so at most "received data never read, overwritten by a later receive"); then the
 * page closes again to what its counts say. Meanwhile the program's own accesses to that page
 * are not seen (missed, never misjudged). */
#define MC_DEFERRED 64
static struct {
    uintptr_t lo, hi;
    int write; /* 1 write, 0 read, -1 unknown; -2: a system call on [lo, hi) */
} deferred[MC_DEFERRED];
static volatile char deferred_lock; /* taken by other threads' handlers and MPI's thread only */
static volatile uint64_t deferred_lost;

static void lock_deferred(void)
{
    while (__atomic_test_and_set(&deferred_lock, __ATOMIC_ACQUIRE)) __builtin_ia32_pause();
}

static void unlock_deferred(void)
{
    __atomic_clear(&deferred_lock, __ATOMIC_RELEASE);
}

static void open_for_library(uintptr_t lo, uintptr_t hi)
{
    for (uintptr_t p = mpii_page_down(lo); p < hi; p += mpii_page_size) {
        mpii_block_t *b = mpii_heap_find((void *) p);
        if (b && mpii_guard_count(b, p)) mpii_guard_open(b, p, p + mpii_page_size);
    }
}

static void defer(uintptr_t lo, uintptr_t hi, int write)
{
    lock_deferred();
    int n = n_deferred, same = n && deferred[n - 1].lo == lo && deferred[n - 1].write == write;
    if (!same && n < MC_DEFERRED) {
        deferred[n].lo = lo;
        deferred[n].hi = hi;
        deferred[n].write = write;
        __atomic_store_n(&n_deferred, n + 1, __ATOMIC_RELEASE);
    } else if (!same) {
        deferred_lost++; /* the page opens all the same: only its judgement is lost */
    }
    open_for_library(lo, hi);
    unlock_deferred();
}

static __attribute__((noinline)) void judge_deferred(void)
{
    if (mc_in_library) return; /* between a lift and its relower: after the call */
    typeof(deferred) todo;
    lock_deferred();
    int n = n_deferred;
    memcpy(todo, deferred, (size_t) n * sizeof todo[0]);
    n_deferred = 0;
    unlock_deferred();
    mc_stats[MS_LIBRARY_THREAD] += (uint64_t) n;
    for (int i = 0; i < n; i++) {
        uintptr_t lo = todo[i].lo, hi = todo[i].hi;
        if (todo[i].write == -2) {
            if (mc_guarded_ops) mc_pending_access(lo, hi, 1);
            if (mc_tracked) mc_unread_access(lo, hi);
        } else {
            if (mc_guarded_ops) mc_pending_fault((void *) lo, todo[i].write, 1);
            if (mc_tracked) mc_unread_library_fault((void *) lo, todo[i].write);
        }
        for (uintptr_t p = mpii_page_down(lo); p < hi; p += mpii_page_size) {
            mpii_block_t *b = mpii_heap_find((void *) p);
            if (b) mpii_guard_close(b, p, p + mpii_page_size); /* back to what its guards say */
        }
    }
}

/* ---- what the core tells us: faults, system calls, freed memory ---- */

static int on_fault(void *addr, int write)
{
    if (MPII_UNLIKELY(!mpii_init_thread) && mc_owner_library_fault(mpii_fault_context)) {
        defer((uintptr_t) addr, (uintptr_t) addr + 1, write);
        return MPII_FAULT_OPENED;
    }
    int a = mc_guarded_ops ? mc_pending_fault(addr, write, 0) : 0;
    int b = mc_tracked ? mc_unread_fault(addr, write) : 0;
    return a || b ? MPII_FAULT_STEP : MPII_FAULT_NOT_MINE;
}

static void on_access(uintptr_t lo, uintptr_t hi)
{
    if (MPII_UNLIKELY(!mpii_init_thread) && mc_owner_library_caller()) {
        defer(lo, hi, -2);
        return;
    }
    if (mc_guarded_ops) mc_pending_access(lo, hi, 0);
    if (mc_tracked) mc_unread_access(lo, hi);
}

static void on_release(mpii_block_t *b)
{
    if (!live) return;
    mc_pending_block_released(b);
    mc_unread_block_released(b);
}

static const mpii_guard_client_t client = { on_fault, on_access };

/* ---- start and end ---- */

static void read_options(void)
{
    mpii_memcheck_options_t o;
    mpii_memcheck_options(mc_tool, &o);
    mc_strict = o.strict;
    mc_fatal = o.fatal;
    /* mc_sample_mode: 0 off, 1 sample, 2 all */
    mc_sample_mode[MC_SAMPLE_UNREAD] = o.unread == MPII_MEMCHECK_UNREAD_OFF   ? 0
                                       : o.unread == MPII_MEMCHECK_UNREAD_ALL ? 2
                                                                              : 1;
    mc_sample_mode[MC_SAMPLE_PENDING] = o.pending == MPII_MEMCHECK_PENDING_ALL ? 2 : 1;
    heap_min = (size_t) o.heap_min;
    heap_small_limit = (size_t) o.small_blocks;
}

/* Sampling's clock (mpii_decision_clock: MPII_CLOCK=frozen stands it still) and the checks' cost
 * measured now. */
static void start_sampling(void)
{
    mc_check_cost_t cost[2];
    mc_sample_measure_cost(cost);
    mc_sample_start(mpii_decision_clock(), cost);
}

static void start(void)
{
    mc_stats = mpii_profile_counters(mc_tool, "stats", MS_COUNT, MC_STAT_LABELS);
    if (!mc_stats) mc_stats = dummy_stats;
    read_options();
    mc_valgrind = mc_valgrind_running();
    mc_findings_start();
    /* MPI_T clients in the program see the statistics and the findings per kind */
    mpii_pvar_counters("mpii_memcheck_", "memcheck: ", mc_stats, MS_COUNT, MC_STAT_LABELS);
    mc_findings_publish();
    if (mc_valgrind) {
        mpii_profile_text(mc_tool, "engine", "valgrind");
        mpii_debug("memcheck: on (Valgrind client requests%s)", mc_strict ? ", strict" : "");
        live = 1;
        return;
    }
    if (mpii_guard_attach(&client) != 0) {
        mpii_error("memcheck: could not install the SIGSEGV handler; running without memcheck");
        return;
    }
    start_sampling();
    mc_owner_start();
    mc_unread_keep_readable(mc_pending_send_pages);
    mpii_heap_on_release(on_release);
    mpii_heap_limit_small(heap_small_limit);
    mpii_heap_start(heap_min);
    mpii_profile_text(mc_tool, "engine", "pages");
    live = 1;
    mpii_debug("memcheck: on (page protection%s; page-exclusive heap for allocations >= %zu bytes)",
               mc_strict ? ", strict" : "", heap_min);
}

/* The first call from a thread other than MPI's initialiser (see mc_on). */
static __attribute__((noinline)) int thread_change(void)
{
    if (!mpii_init_thread) {
        other_thread = 1;
        return 0;
    }
    mpii_profile_text(mc_tool, "disabled",
                      "a second thread called MPI: memcheck stopped there (it checks programs "
                      "whose MPI calls come from one thread)");
    mpii_error("memcheck: a second thread called MPI; checking stopped for the rest of the run");
    stop();
    return 0;
}

static void stop(void)
{
    if (!live) return;
    if (n_deferred) judge_deferred();
    if (deferred_lost) mc_stats[MS_LIBRARY_THREAD] += deferred_lost;
    mc_pending_finalize();
    mc_unread_finalize();
    mc_findings_save_objects();
    live = 0;
    if (!mc_valgrind) mpii_heap_stop();
}

static int mc_MPI_Init(QMPI_Context context, int tool_id, int *argc, char ***argv)
{
    mc_owner_before_init(); /* what MPI_Init loads is the library's */
    int rc = NEXT(MPI_INIT_T, QMPI_Init_t, argc, argv);
    if (rc == MPI_SUCCESS) start();
    return rc;
}

static int mc_MPI_Init_thread(QMPI_Context context, int tool_id, int *argc, char ***argv, int required, int *provided)
{
    mc_owner_before_init();
    int rc = NEXT(MPI_INIT_THREAD_T, QMPI_Init_thread_t, argc, argv, required, provided);
    if (rc == MPI_SUCCESS) start(); /* any level: see mc_on */
    return rc;
}

/* ---- classification from the spec ---- */

static int has_role(const mpii_fn_info_t *f, mpii_role_t role)
{
    for (int i = 0; i < f->nparams; i++)
        if (f->params[i].role == role) return 1;
    return 0;
}

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && !strcmp(s + a - b, tail);
}

static void classify(void)
{
    static const char *const progressing_locals[] = { "MPI_Request_get_status", "MPI_Request_free",      "MPI_Cancel",
                                                      "MPI_Buffer_detach",      "MPI_Grequest_complete", NULL };
    for (int id = 0; id < MPII_NFUNCS; id++) {
        const mpii_fn_info_t *f = &mpii_fn_info[id];
        if (!f->name) continue;
        int v = 0;
        mpii_kind_t k = f->kind;
        int comm_kind = k == MPII_KIND_SEND || k == MPII_KIND_SEND_INIT || k == MPII_KIND_RECV ||
                        k == MPII_KIND_RECV_INIT || k == MPII_KIND_SENDRECV ||
                        (k >= MPII_KIND_COLL_BARRIER && k <= MPII_KIND_COLL_NEIGHBOR) || k == MPII_KIND_RMA_PUT ||
                        k == MPII_KIND_RMA_GET || k == MPII_KIND_RMA_ACC;
        int bufs =
            has_role(f, MPII_ROLE_BUFFER) || has_role(f, MPII_ROLE_SEND_BUFFER) || has_role(f, MPII_ROLE_RECV_BUFFER);
        if (k != MPII_KIND_LOCAL || !strncmp(f->name, "MPI_File_", 9)) v |= F_LIFT;
        for (int i = 0; progressing_locals[i]; i++)
            if (!strcmp(f->name, progressing_locals[i])) v |= F_LIFT;
        if (comm_kind && bufs) v |= F_BUF;
        if (comm_kind && bufs && has_role(f, MPII_ROLE_REQUEST)) {
            v |= F_START_OP;
            if (k == MPII_KIND_SEND_INIT || k == MPII_KIND_RECV_INIT || ends_with(f->name, "_init") ||
                ends_with(f->name, "_init_c"))
                v |= F_PERSISTENT;
        } else if ((k == MPII_KIND_RMA_PUT || k == MPII_KIND_RMA_GET || k == MPII_KIND_RMA_ACC) && bufs) {
            v |= F_RMA;
        } else if (comm_kind && bufs && k != MPII_KIND_SEND) {
            v |= F_BLOCKING_RECV; /* receives before returning (Recv, Mrecv, blocking collectives) */
        }
        if (k == MPII_KIND_COMPLETE) v |= F_COMPLETE;
        if (k == MPII_KIND_START) v |= F_START;
        if (k == MPII_KIND_RMA_SYNC) v |= F_SYNC;
        if (id == MPI_REQUEST_FREE_T) v |= F_REQ_FREE;
        if (id == MPI_REQUEST_GET_STATUS_T) v |= F_GET_STATUS;
        /* window creation (and _shared, _c forms), attach and detach: the library's allocations
         * meanwhile stay where its allocator puts them */
        if (!strncmp(f->name, "MPI_Win_allocate", 16) || !strncmp(f->name, "MPI_Win_create", 14) ||
            !strcmp(f->name, "MPI_Win_attach") || !strcmp(f->name, "MPI_Win_detach"))
            v |= F_WINDOW;
        if (has_role(f, MPII_ROLE_PINNED_BUFFER)) v |= F_PIN;
        if (!strncmp(f->name, "MPI_Exscan", 10) || !strncmp(f->name, "MPI_Iexscan", 11)) v |= F_EXSCAN;
        flags[id] = (uint16_t) v;
    }
}

void mpii_memcheck_init(int tool_id)
{
    mc_tool = tool_id;
    mc_stats = dummy_stats;
    classify();
    /* every function first: the generic wrapper lifts guards around anything that progresses */
#define MC_REGISTER(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND)                                        \
    if (flags[ID] & (F_WINDOW | F_PIN)) QMPI_Register_function(tool_id, ID, (void (*)(void)) mcw_##NAME); \
    else if (flags[ID] & F_SYNC)                                                                          \
        QMPI_Register_function(tool_id, ID, (void (*)(void)) mcs_##NAME);                                 \
    else if ((flags[ID] & F_BLOCKING_RECV) && !(flags[ID] & F_START_OP))                                  \
        QMPI_Register_function(tool_id, ID, (void (*)(void)) mcb_##NAME);                                 \
    else if (flags[ID] & (F_LIFT | F_BUF))                                                                \
        QMPI_Register_function(tool_id, ID, (void (*)(void)) mcg_##NAME);
    MPII_FOREACH_FUNC(MC_REGISTER)
    QMPI_Register_function(tool_id, MPI_FINALIZE_T, (void (*)(void)) mcg_MPI_Finalize);
    QMPI_Register_function(tool_id, MPI_INIT_T, (void (*)(void)) mc_MPI_Init);
    QMPI_Register_function(tool_id, MPI_INIT_THREAD_T, (void (*)(void)) mc_MPI_Init_thread);
    QMPI_Register_function(tool_id, MPI_RECV_T, (void (*)(void)) mc_MPI_Recv);
    QMPI_Register_function(tool_id, MPI_SENDRECV_T, (void (*)(void)) mc_MPI_Sendrecv);
    QMPI_Register_function(tool_id, MPI_WAIT_T, (void (*)(void)) mc_MPI_Wait);
    QMPI_Register_function(tool_id, MPI_TEST_T, (void (*)(void)) mc_MPI_Test);
    QMPI_Register_function(tool_id, MPI_WAITANY_T, (void (*)(void)) mc_MPI_Waitany);
    QMPI_Register_function(tool_id, MPI_TESTANY_T, (void (*)(void)) mc_MPI_Testany);
    QMPI_Register_function(tool_id, MPI_WAITALL_T, (void (*)(void)) mc_MPI_Waitall);
    QMPI_Register_function(tool_id, MPI_TESTALL_T, (void (*)(void)) mc_MPI_Testall);
    QMPI_Register_function(tool_id, MPI_WAITSOME_T, (void (*)(void)) mc_MPI_Waitsome);
    QMPI_Register_function(tool_id, MPI_TESTSOME_T, (void (*)(void)) mc_MPI_Testsome);
    QMPI_Register_function(tool_id, MPI_REQUEST_GET_STATUS_T, (void (*)(void)) mc_MPI_Request_get_status);
    QMPI_Register_function(tool_id, MPI_START_T, (void (*)(void)) mc_MPI_Start);
    QMPI_Register_function(tool_id, MPI_STARTALL_T, (void (*)(void)) mc_MPI_Startall);
    QMPI_Register_function(tool_id, MPI_REQUEST_FREE_T, (void (*)(void)) mc_MPI_Request_free);
    QMPI_Register_function(tool_id, MPI_WIN_FREE_T, (void (*)(void)) mc_MPI_Win_free);
    QMPI_Register_function(tool_id, MPI_ALLOC_MEM_T, (void (*)(void)) mc_MPI_Alloc_mem);
}

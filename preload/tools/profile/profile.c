/* profile: where a program's MPI time goes, per call site (mpiP's question, as a QMPI tool).
 * Every MPI call is filed under (function, calling address): the address QMPI hands the tool
 * (QMPI_Get_calling_address), or with option depth > 1 that many frames of the call stack from
 * there. Per site: calls, total/min/max time, bytes sent and received, smallest and largest bytes
 * per call. Calls and bytes are exact. Times: a site's first 64 calls are all timed, then (option
 * sample=N, default 64) one in N at random gaps, since reading the clock is most of the tool's
 * cost (an rdtsc is 10-26 ns on this project's VMs, an 8-byte shared-memory round trip ~170 ns),
 * and past a site's 1,024th such timed call one in 16 N (pf_next_gap); random gaps keep a loop's
 * period from aliasing with the sampling. sample=1 times every call.
 * Per rank: application wall time and the time recording was on; MPI_Pcontrol(0) switches
 * recording off, any other level on. Everything lives in the rank's profile file (layout:
 * profile.h), so a crashed job still reports; the CLI turns addresses into function and
 * file:line with the binaries' debug information (preload/tools/profile/report/data.ts). */
#define _GNU_SOURCE
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif
#include "mpii_core.h"
#include "mpii_tool.h"
#include "mpii_options_profile.h" /* generated from tool.yaml */
#include "handle_map.h"           /* persistent requests (the core's map of MPI handles) */
#include "profile.h"
#include "process_barrier.h"
#include "bytes.h" /* the bytes a call moves */

#define PF_INLINE static inline __attribute__((always_inline))
#define PF_MAX_MODULES 64

/* A function's latest call site on the fast path, with that site's countdown: a loop calling the
 * function from the same place again needs this one cache line instead of a probe through the
 * table. The row keeps the countdown while another site of the function is the latest, and
 * while recording is not on the fast path (then no site is the latest: pf_forget_latest).
 * It also keeps the layer after this tool for the function, so the tail path hands the call on
 * without a table lookup (the QMPI chain does not change once MPI runs).
 * A point-to-point function's latest site also keeps the signature of its last call counted in
 * full, (count, datatype) and the bytes they make: a call with the same signature adds the same
 * bytes, and its size is already among the row's smallest and largest; and whether a call to
 * MPI_PROC_NULL (0 bytes) was counted in full there since it became the latest. */
typedef struct {
    uint64_t addr, gap;
    uint64_t *row;
    uintptr_t sig_type; /* 0: no signature (no datatype handle is 0) */
    int64_t sig_count;
    uint64_t sig_bytes;
    void (*next)(void); /* the layer after this tool (QMPI_Get_function), and its tool id */
    uint32_t null_seen;
    int next_id; /* 64 bytes: one cache line each */
} pf_latest_t;

typedef struct {
    uint64_t *sites;    /* (mask + 1) rows of row_len, in the profile */
    uint64_t *overflow; /* MPII_NFUNCS rows of PF_NFIELDS: calls that found the table full */
    uint64_t *clock;    /* PF_CLOCK_FIELDS */
    size_t mask, row_len, used, limit;
    int depth, tool, started, stopped;
    int threaded;        /* MPI granted MPI_THREAD_MULTIPLE */
    int errors_return;   /* an MPI error may return instead of aborting: count from how calls end */
    int no_tail;         /* threaded or errors_return: every call takes pf_full_NAME (see PF_WRAPPER) */
    volatile int shared; /* a thread other than MPI_Init's is calling MPI: the general path, locked */
    int others_in;       /* other threads' calls between pf_enter_general and pf_exit_general (locked) */
    uint64_t solo;       /* MPI_Init's thread's general calls since another thread's last (locked) */
    volatile int busy;   /* MPI_Init's thread is in a fast-path segment (pf_fast_enter) */
    uint64_t sample;     /* time one call in `sample` on average after a site's first PF_ALWAYS_TIMED */
    uint64_t rng;        /* xorshift state for the gaps between timed calls */
    /* PF_OFF before MPI_Init, after MPI_Finalize and after Pcontrol(0); else how the wrappers
     * record: PF_FAST (with the tail path) or PF_GENERAL (set_recording) */
    volatile int path;
    pthread_mutex_t lock;    /* MPI_THREAD_MULTIPLE only */
    handle_map_t persistent; /* persistent request -> pf_bytes_t moved by each MPI_Start */
    struct {
        uintptr_t lo, hi;
    } modules[PF_MAX_MODULES]; /* code already described in the profile */
    int nmodules;
    unsigned char named[MPII_NFUNCS]; /* function names already in the profile */
    /* the functions whose latest site keeps a signature (pf_remember_signature): the few
     * point-to-point ones a program uses, so that MPI_Type_free forgets them in O(their number) */
    unsigned char sig_listed[MPII_NFUNCS];
    unsigned short sig_ids[MPII_NFUNCS];
    int n_sig;
    pf_latest_t latest[MPII_NFUNCS] __attribute__((aligned(64))); /* fast path only */
} pf_state_t;

enum { PF_OFF, PF_FAST, PF_GENERAL };

/* The state of the instance at this tool's place in a specialised stack (MPII_SPEC_SELF) is a static
 * variable, the others' come from the heap. The compiled-in wrappers, whose tool id is a constant,
 * then reach a function's latest site at an address known when the shim is linked, not through the
 * storage table and a heap pointer: on the plain-way ping-pong with both ranks on one core that was
 * 1.018 of the library's time against 1.040 (bench/pingpong-plain.mjs; docs/performance.md). */
#ifdef MPII_SPEC
static pf_state_t pf_place_state __attribute__((aligned(64)));
#endif

PF_INLINE pf_state_t *pf_state(int tool_id)
{
#ifdef MPII_SPEC
    if (tool_id == MPII_SPEC_SELF) return &pf_place_state;
#endif
    return mpii_tool_storage(tool_id);
}

/* ---- the timer: the TSC where the kernel trusts it as its clock source, else CLOCK_MONOTONIC ---- */

static int use_tsc;

PF_INLINE uint64_t pf_ticks(void)
{
#if defined(__x86_64__)
    if (MPII_LIKELY(use_tsc)) return __rdtsc();
#endif
    return mpii_now_ns();
}

/* The kernel picks the TSC as clocksource only when it is invariant and synchronised across
 * CPUs: then a rank that migrates still measures right. */
static int tsc_trusted(void)
{
#if defined(__x86_64__)
    char buf[32] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (!f) return 0;
    int ok = fgets(buf, sizeof buf, f) && strncmp(buf, "tsc", 3) == 0 && (buf[3] == '\n' || buf[3] == 0);
    fclose(f);
    return ok;
#else
    return 0;
#endif
}


/* A freed type's handle may come back as another type: forget every size known by handle (the
 * core forgets its own cache, extent.h, whichever tools run). Only the functions listed keep one:
 * mpi4py's test suite frees 5.6 million types, and a walk over every function's latest site (500
 * cache lines) each time was 5 % of its CPU time. */
static __attribute__((noinline)) void pf_forget_types(pf_state_t *s)
{
    for (int i = 0; i < s->n_sig; i++) {
        s->latest[s->sig_ids[i]].sig_type = 0;
        s->sig_listed[s->sig_ids[i]] = 0;
    }
    s->n_sig = 0;
}

static unsigned char pf_alltoall[MPII_NFUNCS];        /* send buffer holds one block per peer */
static unsigned char pf_sets_errhandler[MPII_NFUNCS]; /* may give a communicator or window a handler that returns */

/* ---- call sites ---- */

/* Describe the object holding `addr` in the profile, once per object: a new call site is rare,
 * and a crashed job's sites can still be resolved. */
static void note_module(pf_state_t *s, uintptr_t addr)
{
    if (!addr) return;
    for (int i = 0; i < s->nmodules; i++)
        if (addr >= s->modules[i].lo && addr < s->modules[i].hi) return;
    mpii_object_t m;
    char path[4096], line[4300];
    if (mpii_object_of(addr, &m, path, sizeof path)) { /* else generated code: remember, describe nothing */
        snprintf(line, sizeof line, "%lx %lx %lx %s", (unsigned long) m.lo, (unsigned long) m.hi,
                 (unsigned long) m.bias, path);
        mpii_profile_text(s->tool, "module", line);
    }
    if (s->nmodules < PF_MAX_MODULES) {
        s->modules[s->nmodules].lo = m.lo;
        s->modules[s->nmodules].hi = m.hi;
        s->nmodules++;
    }
}

/* The name of function `id` in the profile, once, when its first call is filed. */
static void note_function(pf_state_t *s, int id)
{
    if (s->named[id]) return;
    s->named[id] = 1;
    char line[128];
    snprintf(line, sizeof line, "%d %s", id, mpii_fn_info[id].name ? mpii_fn_info[id].name : "?");
    mpii_profile_text(s->tool, "function", line);
}

static uint64_t pf_hash(int id, const uint64_t *addr, int depth)
{
    uint64_t h = ((uint64_t) id + 1) * 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < depth; i++) h = (h ^ addr[i]) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 31);
}

/* A fresh row for (id, addr), or NULL when the table is as full as it may get. The key is
 * written before the function id that marks the row used: a crash never leaves half a key. */
static __attribute__((noinline)) uint64_t *new_row(pf_state_t *s, uint64_t *r, int id, const uint64_t *addr)
{
    note_function(s, id); /* also for the overflow row */
    if (s->used >= s->limit) return NULL;
    for (int i = 0; i < s->depth; i++) {
        r[1 + i] = addr[i];
        note_module(s, (uintptr_t) addr[i]);
    }
    uint64_t *f = r + s->row_len - PF_NFIELDS;
    f[PF_TMIN] = UINT64_MAX;
    f[PF_SMIN] = UINT64_MAX;
    __atomic_store_n(&r[0], (uint64_t) id + 1, __ATOMIC_RELEASE);
    s->used++;
    return r;
}

/* The statistics of (id, addr): open addressing, linear probing; usually the first probe. */
static __attribute__((noinline)) uint64_t *pf_row_deep(pf_state_t *s, int id, const uint64_t *addr)
{
    size_t i = pf_hash(id, addr, s->depth) & s->mask;
    for (;;) {
        uint64_t *r = s->sites + i * s->row_len;
        if (r[0] == (uint64_t) id + 1 && memcmp(r + 1, addr, sizeof *addr * (size_t) s->depth) == 0)
            return r + s->row_len - PF_NFIELDS;
        if (r[0] == 0) {
            r = new_row(s, r, id, addr);
            return r ? r + s->row_len - PF_NFIELDS : s->overflow + (size_t) id * PF_NFIELDS;
        }
        i = (i + 1) & s->mask;
    }
}

/* Stack depth 1, the common case: one address, rows of PF_NFIELDS + 2. */
PF_INLINE uint64_t *pf_row1(pf_state_t *s, int id, uint64_t addr)
{
    uint64_t h = (addr ^ ((uint64_t) id << 40)) * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t) (h ^ (h >> 31)) & s->mask;
    for (;;) {
        uint64_t *r = s->sites + i * (2 + PF_NFIELDS);
        if (MPII_LIKELY(r[1] == addr && r[0] == (uint64_t) id + 1)) return r + 2;
        if (r[0] == 0) {
            r = new_row(s, r, id, &addr);
            return r ? r + 2 : s->overflow + (size_t) id * PF_NFIELDS;
        }
        i = (i + 1) & s->mask;
    }
}

/* depth > 1: the frames from the calling address outwards. backtrace() also lists the tool's
 * own frames, which come first; the calling address is where the program's frames start. */
static __attribute__((noinline)) void pf_stack(uint64_t ra, uint64_t *out, int depth)
{
    void *bt[64];
    int n = backtrace(bt, 64), i = 0;
    while (i < n && (uint64_t) (uintptr_t) bt[i] != ra) i++;
    out[0] = ra;
    for (int k = 1; k < depth; k++) out[k] = i + k < n ? (uint64_t) (uintptr_t) bt[i + k] : 0;
}

/* QMPI_Get_calling_address, inlined (the built-in tools live in the shim, as mpii_next does for
 * QMPI_Get_function): the top-level wrapper keeps the application's return address there. A
 * layer always receives a context from it (tools hand on the one they were given, as QMPI
 * requires), never an empty one: only the bottoms are called with those. */
PF_INLINE uint64_t pf_calling_address(QMPI_Context context)
{
    return mpii_calling_address(context); /* in a Python rank, the Python line's key */
}

/* ---- bytes of one call (after it returned) ---- */

PF_INLINE int moves_data(int kind)
{
    switch (kind) {
    case MPII_KIND_SEND:
    case MPII_KIND_RECV:
    case MPII_KIND_SENDRECV:
    case MPII_KIND_START:
    case MPII_KIND_COLL_O2A:
    case MPII_KIND_COLL_A2O:
    case MPII_KIND_COLL_A2A:
    case MPII_KIND_COLL_SCAN:
    case MPII_KIND_COLL_BARRIER:
    case MPII_KIND_COLL_NEIGHBOR:
    case MPII_KIND_RMA_PUT:
    case MPII_KIND_RMA_GET:
    case MPII_KIND_RMA_ACC: return 1;
    default: return 0;
    }
}

static void started(pf_state_t *s, const MPI_Request *reqs, int n, pf_bytes_t *b)
{
    for (int i = 0; reqs && i < n; i++) {
        const pf_bytes_t *p = handle_map_get(&s->persistent, HANDLE_KEY(reqs[i]));
        if (!p) continue;
        b->sent += p->sent;
        b->recv += p->recv;
    }
}

static void remember(pf_state_t *s, MPI_Request req, pf_bytes_t b)
{
    pf_bytes_t *p = malloc(sizeof *p);
    if (!p) return;
    *p = b;
    free(handle_map_take(&s->persistent, HANDLE_KEY(req))); /* a reused handle */
    if (handle_map_put(&s->persistent, HANDLE_KEY(req), p) != 0) free(p);
}

PF_INLINE pf_bytes_t pf_bytes(pf_state_t *s, int kind, int id, const mpii_args_t *a)
{
    pf_bytes_t b = { 0, 0 };
    switch (kind) {
    case MPII_KIND_SEND:
        if (a->peer != MPI_PROC_NULL) b.sent = pf_times(a->count, mpii_type_size(a->datatype));
        break;
    case MPII_KIND_RECV:
        if (a->peer != MPI_PROC_NULL) b.recv = pf_times(a->count, mpii_type_size(a->datatype));
        break;
    case MPII_KIND_SENDRECV:
        if (a->send_datatype) { /* Sendrecv */
            if (a->peer != MPI_PROC_NULL) b.sent = pf_times(a->send_count, mpii_type_size(a->send_datatype));
            if (a->recv_peer != MPI_PROC_NULL) b.recv = pf_times(a->recv_count, mpii_type_size(a->recv_datatype));
        } else { /* Sendrecv_replace */
            uint64_t n = pf_times(a->count, mpii_type_size(a->datatype));
            if (a->peer != MPI_PROC_NULL) b.sent = n;
            if (a->recv_peer != MPI_PROC_NULL) b.recv = n;
        }
        break;
    case MPII_KIND_START:
        if (a->requests) started(s, a->requests, (int) a->count, &b);
        else if (a->request)
            started(s, a->request, 1, &b);
        break;
    case MPII_KIND_RMA_PUT: b.sent = pf_times(a->send_count, mpii_type_size(a->send_datatype)); break;
    case MPII_KIND_RMA_GET: b.recv = pf_times(a->recv_count, mpii_type_size(a->recv_datatype)); break;
    case MPII_KIND_RMA_ACC:
        if (a->send_datatype) { /* Accumulate, Get_accumulate */
            b.sent = pf_times(a->send_count, mpii_type_size(a->send_datatype));
            if (a->recv_datatype) b.recv = pf_times(a->recv_count, mpii_type_size(a->recv_datatype));
        } else { /* Fetch_and_op: one element each way; Compare_and_swap sends the compare value too */
            uint64_t z = mpii_type_size(a->datatype);
            b.sent = id == MPI_COMPARE_AND_SWAP_T ? 2 * z : z;
            b.recv = z;
        }
        break;
    case MPII_KIND_COLL_O2A:
    case MPII_KIND_COLL_A2O:
    case MPII_KIND_COLL_A2A:
    case MPII_KIND_COLL_SCAN:
    case MPII_KIND_COLL_NEIGHBOR: b = pf_collective(kind, pf_alltoall[id], a); break;
    default: break;
    }
    return b;
}

/* ---- one call ---- */

/* A gap of 1..2M-1 calls (mean M) until the next timed call, drawn at a timed call: the
 * `timed`-th of its site, this one included. M is N (option sample) until the site's
 * PF_DENSE_TIMED-th timed call after its first PF_ALWAYS_TIMED, then PF_SPARSE_FACTOR x N: a hot
 * site's time is known well by then (1,024 timed calls), and each timed call costs two clock reads
 * (~20 ns here), which one in N calls of a 170 ns ping-pong pays 0.4 % for. The reader scales
 * each stretch by its own rate (pf_time keeps where the dense one ended). */
PF_INLINE uint64_t pf_next_gap(pf_state_t *s, uint64_t timed)
{
    if (s->sample <= 1 || timed < PF_ALWAYS_TIMED) return 1;
    uint64_t mean = timed < PF_ALWAYS_TIMED + PF_DENSE_TIMED ? s->sample : s->sample * PF_SPARSE_FACTOR;
    return 1 + ((mpii_xorshift(&s->rng) >> 32) * (2 * mean - 1) >> 32); /* no division */
}

/* Whether to time this call: a countdown (`gap`) of the site whose row is `f` (the calling
 * address is known at entry). */
PF_INLINE int pf_take_turn(pf_state_t *s, uint64_t *gap, const uint64_t *f)
{
    if (MPII_LIKELY(*gap > 1)) {
        --*gap;
        return 0;
    }
    *gap = pf_next_gap(s, f[PF_TIMED] + 1); /* this call is timed: pf_time counts it after the call */
    return 1;
}

/* The fast path's site and turn: the function's latest site, or (rarely) a switch to another. */
static __attribute__((noinline)) void pf_switch_site(pf_state_t *s, pf_latest_t *l, int id, uint64_t addr)
{
    if (l->row && !s->no_tail) l->row[PF_GAP] = l->gap;
    l->row = pf_row1(s, id, addr);
    l->addr = addr;
    if (!s->no_tail) l->next = mpii_next(s->tool, id, &l->next_id); /* fixed once MPI runs; the tail path's */
    l->gap = s->no_tail ? 0 : l->row[PF_GAP]; /* no_tail: the row counts down, and 0 keeps the tail path shut */
    l->sig_type = 0;                          /* the signature's size may be new to this row, and 0 bytes too */
    l->null_seen = 0;
}

PF_INLINE uint64_t *pf_site_fast(pf_state_t *s, int id, uint64_t addr, int *timed)
{
    pf_latest_t *l = &s->latest[id];
    if (MPII_UNLIKELY(l->addr != addr)) pf_switch_site(s, l, id, addr);
    *timed = pf_take_turn(s, MPII_UNLIKELY(s->no_tail) ? &l->row[PF_GAP] : &l->gap, l->row);
    return l->row;
}

/* The call's count and bytes (rc: how it ended; an early count assumes success). Returns the
 * bytes counted. */
PF_INLINE uint64_t pf_count(pf_state_t *s, uint64_t *f, int id, int kind, const mpii_args_t *a, int rc,
                            MPI_Request freed)
{
    pf_bytes_t b = { 0, 0 };
    if (moves_data(kind) && rc == MPI_SUCCESS) b = pf_bytes(s, kind, id, a);
    if (MPII_UNLIKELY(kind == MPII_KIND_SEND_INIT || kind == MPII_KIND_RECV_INIT) && rc == MPI_SUCCESS && a->request) {
        pf_bytes_t p = { 0, 0 };
        uint64_t n = a->peer != MPI_PROC_NULL ? pf_times(a->count, mpii_type_size(a->datatype)) : 0;
        if (kind == MPII_KIND_SEND_INIT) p.sent = n;
        else
            p.recv = n;
        remember(s, *a->request, p);
    }
    if (MPII_UNLIKELY(id == MPI_REQUEST_FREE_T) && freed != MPI_REQUEST_NULL)
        free(handle_map_take(&s->persistent, HANDLE_KEY(freed)));
    if (MPII_UNLIKELY(id == MPI_TYPE_FREE_T)) pf_forget_types(s);

    uint64_t size = b.sent + b.recv;
    f[PF_COUNT]++;
    if (moves_data(kind)) {
        f[PF_SENT] += b.sent;
        f[PF_RECV] += b.recv;
        if (size < f[PF_SMIN]) f[PF_SMIN] = size;
        if (size > f[PF_SMAX]) f[PF_SMAX] = size;
    }
    return size;
}

/* The tail path's count, all or nothing: a point-to-point call with its site's signature, or to
 * MPI_PROC_NULL once the site has counted one (pf_latest_t), or a call that moves no data. 0:
 * nothing counted, the full wrapper must do it (it may call MPI). */
PF_INLINE int pf_count_quick(const pf_latest_t *l, int id, int kind, const mpii_args_t *a)
{
    uint64_t *f = l->row;
    if (kind == MPII_KIND_SEND || kind == MPII_KIND_RECV) {
        if (MPII_UNLIKELY(a->peer == MPI_PROC_NULL)) {
            if (!l->null_seen) return 0;
            f[PF_COUNT]++;
            return 1;
        }
        if ((uintptr_t) a->datatype != l->sig_type || (int64_t) a->count != l->sig_count) return 0;
        f[PF_COUNT]++;
        f[kind == MPII_KIND_SEND ? PF_SENT : PF_RECV] += l->sig_bytes;
        return 1;
    }
    if (moves_data(kind) || id == MPI_TYPE_FREE_T) return 0;
    f[PF_COUNT]++;
    return 1;
}

/* After a point-to-point call was counted in full with its bytes (`bytes`, as pf_count returned
 * them): its signature, for the tail path. */
PF_INLINE void pf_remember_signature(pf_state_t *s, int id, int kind, const mpii_args_t *a, int rc, uint64_t bytes)
{
    if ((kind != MPII_KIND_SEND && kind != MPII_KIND_RECV) || rc != MPI_SUCCESS) return;
    pf_latest_t *l = &s->latest[id];
    if (a->peer == MPI_PROC_NULL) {
        l->null_seen = 1;
        return;
    }
    if (!s->sig_listed[id]) {
        s->sig_listed[id] = 1;
        s->sig_ids[s->n_sig++] = (unsigned short) id;
    }
    l->sig_type = (uintptr_t) a->datatype;
    l->sig_count = (int64_t) a->count;
    l->sig_bytes = bytes;
}

/* An early-counted call failed after all: its bytes did not move (the sizes seen stay). Inlined
 * (rarely run): a call taking the argument view's address would make every receive build the
 * 192-byte view in memory. */
PF_INLINE void pf_uncount(pf_state_t *s, uint64_t *f, int id, int kind, const mpii_args_t *a)
{
    if (!moves_data(kind)) return;
    pf_bytes_t b = pf_bytes(s, kind, id, a);
    f[PF_SENT] -= b.sent;
    f[PF_RECV] -= b.recv;
}

PF_INLINE void pf_time(pf_state_t *s, uint64_t *f, uint64_t t0, uint64_t t1)
{
    uint64_t dt = t1 - t0;
    if (f[PF_TIMED] < PF_ALWAYS_TIMED) f[PF_TICKS_FIRST] += dt; /* never scaled: see profile.h */
    f[PF_TIMED]++;
    f[PF_TICKS] += dt;
    if (MPII_UNLIKELY(f[PF_TIMED] == PF_ALWAYS_TIMED + PF_DENSE_TIMED) && s->sample > 1) {
        /* the end of the stretch timed one in N (pf_next_gap): every path counts a call before
         * timing it, so the count includes this one */
        f[PF_DENSE_CALLS] = f[PF_COUNT];
        f[PF_DENSE_TICKS] = f[PF_TICKS] - f[PF_TICKS_FIRST];
    }
    if (dt < f[PF_TMIN]) f[PF_TMIN] = dt;
    if (dt > f[PF_TMAX]) f[PF_TMAX] = dt;
    s->clock[PF_LAST_TICKS] = t1;
}

/* Calls that wait for someone else (receives, completions, probes) are counted before they run:
 * then the bookkeeping happens while the rank waits anyway, not between the message's arrival
 * and the program's next step (in a ping-pong, the next send). Everything else is counted after
 * it returned, off the path of the message it sent. */
#define PF_EARLY(KIND) ((KIND) == MPII_KIND_RECV || (KIND) == MPII_KIND_COMPLETE || (KIND) == MPII_KIND_PROBE)

/* The general path, once a second thread has called MPI at MPI_THREAD_MULTIPLE (one lock around the
 * bookkeeping, never around the MPI call) and for stack depth > 1: one copy for every function (the
 * kind is a run-time value here), so the wrappers' own path has no lock and no depth to test. */
static void pf_join_locked(pf_state_t *s);
static void pf_maybe_resume(pf_state_t *s);

static __attribute__((noinline)) uint64_t *pf_enter_general(pf_state_t *s, int id, int kind, QMPI_Context context,
                                                            const mpii_args_t *a, MPI_Request freed, int *timed)
{
    uint64_t addr[PF_MAX_DEPTH];
    addr[0] = pf_calling_address(context);
    if (s->depth > 1) pf_stack(addr[0], addr, s->depth);
    if (s->threaded) {
        pthread_mutex_lock(&s->lock);
        if (!mpii_init_thread) {
            pf_join_locked(s); /* MPI_Init's thread may have gone back to the fast path */
            s->others_in++;
            s->solo = 0;
        }
    }
    uint64_t *f = s->depth > 1 ? pf_row_deep(s, id, addr) : pf_row1(s, id, addr[0]);
    *timed = pf_take_turn(s, &f[PF_GAP], f);
    if (PF_EARLY(kind)) pf_count(s, f, id, kind, a, MPI_SUCCESS, freed);
    if (s->threaded) pthread_mutex_unlock(&s->lock);
    return f;
}

static __attribute__((noinline)) void pf_exit_general(pf_state_t *s, uint64_t *f, int id, int kind,
                                                      const mpii_args_t *a, int rc, MPI_Request freed, int timed,
                                                      uint64_t t0, uint64_t t1)
{
    if (s->threaded) pthread_mutex_lock(&s->lock);
    if (!PF_EARLY(kind)) pf_count(s, f, id, kind, a, rc, freed);
    else if (rc != MPI_SUCCESS)
        pf_uncount(s, f, id, kind, a);
    if (timed) pf_time(s, f, t0, t1);
    if (s->threaded) {
        if (!mpii_init_thread) s->others_in--;
        else
            pf_maybe_resume(s);
        pthread_mutex_unlock(&s->lock);
    }
}

/* ---- start, stop, Pcontrol ---- */

/* Leaving the fast path: the latest sites' countdowns go back to their rows (the general path
 * counts down there) and no call matches a latest site until the fast path is back, so the tail
 * path, which does not look at the path, counts nothing while recording is off or general. */
static void pf_forget_latest(pf_state_t *s)
{
    for (int i = 0; i < MPII_NFUNCS; i++) {
        pf_latest_t *l = &s->latest[i];
        if (l->row) l->row[PF_GAP] = l->gap;
        l->row = NULL;
        l->addr = UINT64_MAX; /* no call comes from there */
    }
}

/* Recording on or off, and the wrappers' path that goes with it. Without the tail path the latest
 * sites keep no countdown and match no tail call, so nothing needs forgetting (and another thread
 * may be reading them). */
static void set_recording(pf_state_t *s, int on)
{
    int path = !on ? PF_OFF : s->shared || s->depth > 1 ? PF_GENERAL : PF_FAST;
    if (s->path == PF_FAST && path != PF_FAST && !s->no_tail) pf_forget_latest(s);
    s->path = path;
}

/* No more tail calls: the latest sites' countdowns go back to their rows, which count down from
 * now on (pf_site_fast). */
static void pf_close_tail(pf_state_t *s)
{
    if (s->no_tail) return;
    pf_forget_latest(s);
    s->no_tail = 1;
}

/* From now on an MPI call may fail and return: the tail path, which counts bytes before the call
 * as if it succeeds, is off for good (pf_full_NAME counts from the return code). Called before any
 * function that sets an error handler runs, whichever handler it sets. */
static void pf_errors_may_return(pf_state_t *s)
{
    s->errors_return = 1;
    pf_close_tail(s);
}

/* One thread at MPI_THREAD_MULTIPLE. mpi4py asks for MPI_THREAD_MULTIPLE and nearly every
 * program it runs calls MPI from one thread, so MPI_Init's thread keeps the fast path, unlocked
 * (without the tail path: another thread's tail call would count unlocked), until another thread
 * calls MPI. That thread then switches everybody to the general path (pf_join_locked), which
 * locks; it waits for MPI_Init's thread to finish the bookkeeping it may be in. The fast side
 * marks its bookkeeping with two plain stores (`busy`, set before it reads `shared`); the joining
 * side's process-wide barrier makes either the mark visible to it or its `shared` visible to the
 * fast side (an asymmetric handshake: the barrier's cost is paid once per join). The bookkeeping
 * is in two segments, before and after the MPI call, never around it: a thread waiting for it
 * never waits for a message.
 * Back to the fast path: once MPI_Init's thread has made PF_RESUME_CALLS calls with no other
 * thread's call begun between them and none in progress (pf_exit_general, under the lock), it
 * clears `shared`. Another thread only counts under the lock and with `shared` set (it joins again
 * there if it was cleared), and never takes the fast path, so the two never count unlocked at
 * once. mpi4py's own test suite calls MPI from five threads in one test, then makes 20 million
 * calls from one thread: locked, they cost it 4 % of its time. */
PF_INLINE int pf_fast_enter(pf_state_t *s)
{
    s->busy = 1;
    __asm__ __volatile__("" ::: "memory");
    if (MPII_LIKELY(!s->shared)) return 1;
    s->busy = 0;
    return 0;
}

PF_INLINE void pf_fast_leave(pf_state_t *s)
{
    __asm__ __volatile__("" ::: "memory");
    s->busy = 0;
}

/* With the lock held. */
static void pf_join_locked(pf_state_t *s)
{
    if (s->shared) return;
    s->shared = 1;
    s->clock[PF_JOINS]++;
    set_recording(s, s->path != PF_OFF);
    pf_process_barrier();
    while (s->busy) {
#if defined(__x86_64__)
        _mm_pause();
#endif
    }
}

static __attribute__((noinline)) void pf_join_thread(pf_state_t *s)
{
    pthread_mutex_lock(&s->lock);
    pf_join_locked(s);
    pthread_mutex_unlock(&s->lock);
}

/* With the lock held, on MPI_Init's thread after one of its general calls. */
static void pf_maybe_resume(pf_state_t *s)
{
    if (++s->solo < PF_RESUME_CALLS || s->others_in || !s->shared) return;
    s->solo = 0;
    s->shared = 0;
    s->clock[PF_RESUMES]++;
    set_recording(s, s->path != PF_OFF);
}

/* A call from a thread other than MPI_Init's at MPI_THREAD_MULTIPLE: never on the fast path, even
 * when it reads the path a moment before MPI_Init's thread goes back to it. */
PF_INLINE int pf_other_thread(const pf_state_t *s)
{
    return s->threaded && !mpii_init_thread;
}

/* At the start of every wrapper's full part and of Pcontrol: the first call from a thread other
 * than MPI_Init's (only threads there once MPI granted MPI_THREAD_MULTIPLE). */
PF_INLINE void pf_check_thread(pf_state_t *s)
{
    if (MPII_UNLIKELY(pf_other_thread(s)) && !s->shared) pf_join_thread(s);
}

/* Whether an error on `comm` aborts the job (MPI 4's mpi_initial_errhandler can say otherwise). */
static int errors_abort(MPI_Comm comm)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (MPII_PMPI(MPI_Comm_get_errhandler, MPI_COMM_GET_ERRHANDLER_T)(comm, &eh) != MPI_SUCCESS) return 0;
    int fatal = eh == MPI_ERRORS_ARE_FATAL;
#ifdef MPI_ERRORS_ABORT
    fatal = fatal || eh == MPI_ERRORS_ABORT;
#endif
    if (eh != MPI_ERRHANDLER_NULL)
        MPII_PMPI(MPI_Errhandler_free, MPI_ERRHANDLER_FREE_T)(&eh); /* get took a reference */
    return fatal;
}

static void pf_start(pf_state_t *s)
{
    if (s->started || !s->clock) return;
    int provided = MPI_THREAD_SINGLE;
    MPII_PMPI(MPI_Query_thread, MPI_QUERY_THREAD_T)(&provided);
    s->threaded = provided == MPI_THREAD_MULTIPLE;
    if (s->threaded) pf_process_barrier_prepare();
    s->errors_return = s->errors_return || !errors_abort(MPI_COMM_WORLD) || !errors_abort(MPI_COMM_SELF);
    if (s->threaded || s->errors_return) pf_close_tail(s);
    use_tsc = tsc_trusted();
    uint64_t *c = s->clock;
    c[PF_TIMER] = use_tsc ? 1 : 2;
    /* a millisecond's calibration: the tick rate of a run that never reaches MPI_Finalize */
    c[PF_CAL_TICKS] = pf_ticks();
    c[PF_CAL_NS] = mpii_now_ns();
    while (mpii_now_ns() - c[PF_CAL_NS] < 1000000) {}
    c[PF_T0_TICKS] = pf_ticks();
    c[PF_T0_NS] = mpii_now_ns();
    c[PF_LAST_TICKS] = c[PF_T0_TICKS];
    c[PF_ON_SINCE] = c[PF_T0_TICKS];
    s->started = 1;
    set_recording(s, 1);
}

/* Close the recording interval that is open at `t`. */
static void pf_off(pf_state_t *s, uint64_t t)
{
    if (s->path == PF_OFF) return;
    set_recording(s, 0);
    s->clock[PF_ON_TICKS] += t - s->clock[PF_ON_SINCE];
    s->clock[PF_ON_SINCE] = 0;
}

static void pf_stop(pf_state_t *s)
{
    if (!s->started || s->stopped) return;
    if (s->threaded) pthread_mutex_lock(&s->lock);
    uint64_t t = pf_ticks();
    pf_off(s, t);
    s->clock[PF_END_TICKS] = t;
    s->clock[PF_END_NS] = mpii_now_ns();
    s->stopped = 1;
    if (s->threaded) pthread_mutex_unlock(&s->lock);
}

static int pf_pcontrol(QMPI_Context context, int tool_id, const int level, ...)
{
    pf_state_t *s = mpii_tool_storage(tool_id);
    pf_check_thread(s);
    if (s->started && !s->stopped) {
        if (s->threaded) pthread_mutex_lock(&s->lock);
        uint64_t t = pf_ticks();
        s->clock[PF_PCONTROL]++;
        mpii_profile_event(s->tool, MPII_EVENT_PCONTROL, level, NULL); /* when, for the report's timeline */
        if (level == 0) {
            pf_off(s, t);
        } else if (s->path == PF_OFF) {
            s->clock[PF_ON_SINCE] = t;
            set_recording(s, 1);
        }
        if (s->threaded) pthread_mutex_unlock(&s->lock);
    }
    int next_id;
    void (*next)(void) = mpii_next(tool_id, MPI_PCONTROL_T, &next_id);
    return ((QMPI_Pcontrol_t *) next)(context, next_id, level);
}

/* Calls that may take the tail path: all but the ones with work after the call (MPI_Init starts
 * the tool, MPI_Finalize stops it, persistent inits read the request they made, MPI_Request_free
 * reads the request it frees). A function that sets an error handler reaches pf_full_NAME on its
 * first call (no latest site yet), which switches the tail path off before it runs. */
#define PF_TAILABLE(ID, KIND)                                                               \
    ((KIND) != MPII_KIND_INIT && (ID) != MPI_FINALIZE_T && (KIND) != MPII_KIND_SEND_INIT && \
     (KIND) != MPII_KIND_RECV_INIT && (ID) != MPI_REQUEST_FREE_T)

/* The wrapper of every MPI function, in three parts; KIND and ID are constants in each, so each
 * keeps only its own cases.
 * pf_NAME, the common case: a call from its function's latest site that needs no MPI call to be
 * counted (pf_count_quick) is counted and, when it is not timed (after a site's first 64, all but
 * one in `sample`), handed to the next layer as a tail call (a jump: nothing left to do after the
 * call, no return through the tool), so in a ping-pong the tool adds a compare, a countdown and
 * the counters between a message's arrival and the next send; when it is timed, pf_timed_NAME
 * reads the clock around the call. Its bytes are counted before the call, as if it succeeds, and
 * unlocked: taken only while an error cannot return and MPI did not grant MPI_THREAD_MULTIPLE
 * (otherwise `no_tail` keeps every latest site's countdown at 0). It does not test the path
 * itself: leaving PF_FAST leaves no latest site (set_recording).
 * pf_full_NAME, everything else. With recording off it is a load, a test and the call. On the
 * fast path (depth 1, MPI called from one thread): the site, the turn, the clock around the call
 * if timed; receives are counted before they run, the rest after they returned, from how they
 * ended. The general path (a second thread at MPI_THREAD_MULTIPLE, deep stacks) takes the
 * argument view's address: it builds its own copy, so the fast path's view stays in registers. */
/* The tail path's call of the next layer: the one the latest site keeps, or in a specialised stack
 * the one compiled in (a direct call, inlined down to the library's function). */
#ifdef MPII_SPEC
#define PF_CALL_LATEST(l, ID, QTYPE, NEXTARGS) MPII_CALL_NEXT_ARGS(tool_id, ID, QTYPE, NEXTARGS)
#else
#define PF_CALL_LATEST(l, ID, QTYPE, NEXTARGS) (next_id = (l)->next_id, ((QTYPE *) (l)->next) NEXTARGS)
#endif
/* The tail path's timed call (its site's turn came, gap 1): in a function of its own, so that the
 * untimed calls keep their tail call and test the countdown once, and short, so that what a timed
 * call adds is the clock and the statistics. Its turn used to go to pf_full_NAME: one call in 64
 * through two kilobytes of code the processor had not run for 64 calls cost a ping-pong whose two
 * ranks share a core 3 % of its time (bench/pingpong-plain.mjs; docs/performance.md), against
 * 0.3 % without any timing. A call pf_count_quick cannot count goes on to pf_full_NAME, whose turn
 * it is then (pf_take_turn). */
#define PF_UNPAREN(...) __VA_ARGS__
#define PF_WITH(FIRST, LIST) (FIRST, PF_UNPAREN LIST) /* (FIRST, the items of LIST) */
#define PF_TIMED(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND)                                                        \
    static __attribute__((noinline)) RET pf_full_##NAME MPII_OUTLINED_PARAMS(QPARAMS);                                 \
    static __attribute__((noinline, unused)) RET pf_timed_##NAME PF_WITH(pf_state_t *s, MPII_OUTLINED_PARAMS(QPARAMS)) \
    {                                                                                                                  \
        MPII_OUTLINED_CONTEXT;                                                                                         \
        pf_latest_t *l = &s->latest[ID];                                                                               \
        mpii_args_t a = MPII_ARGS_##NAME;                                                                              \
        int next_id = tool_id;                                                                                         \
        if (!pf_count_quick(l, ID, KIND, &a)) return pf_full_##NAME MPII_OUTLINED_ARGS(NEXTARGS);                      \
        uint64_t t0 = pf_ticks();                                                                                      \
        RET rc = PF_CALL_LATEST(l, ID, QTYPE, NEXTARGS);                                                               \
        uint64_t t1 = pf_ticks();                                                                                      \
        pf_time(s, l->row, t0, t1);                                                                                    \
        l->gap = pf_next_gap(s, l->row[PF_TIMED]); /* pf_time counted this call */                                     \
        return rc;                                                                                                     \
    }
MPII_FOREACH_FUNC(PF_TIMED)
/* The tail path of a call from site KEY, in pf_NAME (the return address) and pf_py_NAME (a Python
 * rank's line key): counted and handed on while its site's countdown is past 1, timed in
 * pf_timed_NAME when its turn came (gap 1; 0 keeps the tail path shut), or pf_full_NAME. */
#define PF_TAIL(NAME, ID, QTYPE, NEXTARGS, KIND, KEY)                                          \
    if (PF_TAILABLE(ID, KIND)) {                                                               \
        pf_state_t *ts = pf_state(tool_id);                                                    \
        pf_latest_t *l = &ts->latest[ID];                                                      \
        mpii_args_t a = MPII_ARGS_##NAME;                                                      \
        if (MPII_LIKELY(l->addr == (KEY))) {                                                   \
            if (MPII_LIKELY(l->gap > 1 && pf_count_quick(l, ID, KIND, &a))) {                  \
                l->gap--;                                                                      \
                return PF_CALL_LATEST(l, ID, QTYPE, NEXTARGS);                                 \
            }                                                                                  \
            if (l->gap == 1) return pf_timed_##NAME PF_WITH(ts, MPII_OUTLINED_ARGS(NEXTARGS)); \
        }                                                                                      \
    }                                                                                          \
    return pf_full_##NAME MPII_OUTLINED_ARGS(NEXTARGS)
/* A Python rank's calls take their key from the interpreter (mpii_python_site), a function call:
 * in a function of their own, so that pf_NAME makes no call before the next layer's and keeps the
 * arguments in the registers they came in (one callee-saved register saved and restored, not four). */
#define PF_WRAPPER(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND)                                            \
    static __attribute__((noinline)) RET pf_full_##NAME MPII_OUTLINED_PARAMS(QPARAMS);                       \
    static __attribute__((noinline, unused)) RET pf_py_##NAME MPII_OUTLINED_PARAMS(QPARAMS)                  \
    {                                                                                                        \
        MPII_OUTLINED_CONTEXT;                                                                               \
        int next_id = tool_id; /* NEXTARGS pass it: to pf_full_NAME unchanged */                             \
        PF_TAIL(NAME, ID, QTYPE, NEXTARGS, KIND, pf_calling_address(context));                               \
    }                                                                                                        \
    MPII_HOOK RET pf_##NAME QPARAMS                                                                          \
    {                                                                                                        \
        int next_id = tool_id;                                                                               \
        if (PF_TAILABLE(ID, KIND) && MPII_UNLIKELY(mpii_python_site != NULL))                                \
            return pf_py_##NAME MPII_OUTLINED_ARGS(NEXTARGS);                                                \
        PF_TAIL(NAME, ID, QTYPE, NEXTARGS, KIND, mpii_return_address(context));                              \
    }                                                                                                        \
    static RET pf_full_##NAME MPII_OUTLINED_PARAMS(QPARAMS)                                                  \
    {                                                                                                        \
        MPII_OUTLINED_CONTEXT;                                                                               \
        pf_state_t *s = mpii_tool_storage(tool_id);                                                          \
        int next_id, timed;                                                                                  \
        void (*next)(void) = mpii_next(tool_id, ID, &next_id);                                               \
        pf_check_thread(s);                                                                                  \
        if (ID == MPI_FINALIZE_T) pf_stop(s);                                                                \
        if (MPII_UNLIKELY(pf_sets_errhandler[ID])) pf_errors_may_return(s);                                  \
        int path = s->path;                                                                                  \
        if (MPII_UNLIKELY(path != PF_FAST) || KIND == MPII_KIND_INIT || MPII_UNLIKELY(pf_other_thread(s)) || \
            MPII_UNLIKELY(!pf_fast_enter(s))) {                                                              \
            if (path == PF_OFF || KIND == MPII_KIND_INIT) {                                                  \
                RET rc = ((QTYPE *) next) NEXTARGS;                                                          \
                if (KIND == MPII_KIND_INIT && (int) (intptr_t) rc == MPI_SUCCESS) pf_start(s);               \
                return rc;                                                                                   \
            }                                                                                                \
            mpii_args_t ga = MPII_ARGS_##NAME;                                                               \
            MPI_Request gfreed = ID == MPI_REQUEST_FREE_T && ga.request ? *ga.request : MPI_REQUEST_NULL;    \
            uint64_t *gf = pf_enter_general(s, ID, KIND, context, &ga, gfreed, &timed);                      \
            uint64_t t0 = timed ? pf_ticks() : 0;                                                            \
            RET rc = ((QTYPE *) next) NEXTARGS;                                                              \
            uint64_t t1 = timed ? pf_ticks() : 0;                                                            \
            pf_exit_general(s, gf, ID, KIND, &ga, (int) (intptr_t) rc, gfreed, timed, t0, t1);               \
            return rc;                                                                                       \
        }                                                                                                    \
        mpii_args_t a = MPII_ARGS_##NAME;                                                                    \
        MPI_Request freed = ID == MPI_REQUEST_FREE_T && a.request ? *a.request : MPI_REQUEST_NULL;           \
        uint64_t *f = pf_site_fast(s, ID, pf_calling_address(context), &timed);                              \
        uint64_t bytes = PF_EARLY(KIND) ? pf_count(s, f, ID, KIND, &a, MPI_SUCCESS, freed) : 0;              \
        pf_fast_leave(s);                                                                                    \
        uint64_t t0 = timed ? pf_ticks() : 0;                                                                \
        RET rc = ((QTYPE *) next) NEXTARGS;                                                                  \
        uint64_t t1 = timed ? pf_ticks() : 0;                                                                \
        if (MPII_UNLIKELY(!pf_fast_enter(s))) { /* another thread called MPI meanwhile */                    \
            mpii_args_t ga = MPII_ARGS_##NAME;                                                               \
            pf_exit_general(s, f, ID, KIND, &ga, (int) (intptr_t) rc, freed, timed, t0, t1);                 \
            return rc;                                                                                       \
        }                                                                                                    \
        if (!PF_EARLY(KIND)) bytes = pf_count(s, f, ID, KIND, &a, (int) (intptr_t) rc, freed);               \
        else if (MPII_UNLIKELY((int) (intptr_t) rc != MPI_SUCCESS))                                          \
            pf_uncount(s, f, ID, KIND, &a);                                                                  \
        pf_remember_signature(s, ID, KIND, &a, (int) (intptr_t) rc, bytes);                                  \
        if (timed) pf_time(s, f, t0, t1);                                                                    \
        pf_fast_leave(s);                                                                                    \
        return rc;                                                                                           \
    }
MPII_FOREACH_FUNC(PF_WRAPPER)

/* What it wraps and with which hook: its registration and a specialised stack's both read these
 * two (dispatch.h). Not timed: the clock functions themselves (programs call them to time their
 * own loops), and MPI_Abort, which does not return. */
static inline int mpii_profile_wraps(int id)
{
    return id != MPI_WTIME_T && id != MPI_WTICK_T && id != MPI_ABORT_T;
}
#define PF_HOOK(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND) \
    [ID] = ID == MPI_PCONTROL_T ? (void (*)(void)) pf_pcontrol : (void (*)(void)) pf_##NAME,
static void (*const mpii_profile_hooks[MPII_NFUNCS])(void) = { MPII_FOREACH_FUNC(PF_HOOK) };

void mpii_profile_init(int tool_id)
{
#ifdef MPII_SPEC
    pf_state_t *s = tool_id == MPII_SPEC_SELF ? &pf_place_state : aligned_alloc(64, (sizeof *s + 63) & ~(size_t) 63);
#else
    pf_state_t *s = aligned_alloc(64, (sizeof *s + 63) & ~(size_t) 63);
#endif
    if (!s) return;
    memset(s, 0, sizeof *s);
    s->tool = tool_id;
    pf_forget_latest(s);
    mpii_profile_options_t o; /* generated from tool.yaml: defaults and ranges are there */
    mpii_profile_options(tool_id, &o);
    s->depth = (int) o.depth;
    s->sample = (uint64_t) o.sample;
    s->rng = ((uint64_t) getpid() << 32) ^ (uint64_t) (uintptr_t) s ^ 0x9E3779B97F4A7C15ull;
    long long want = o.sites;
    size_t cap = 16;
    while (cap * 3 < (size_t) want * 4) cap <<= 1; /* at most 3/4 full: short probe sequences */
    s->mask = cap - 1;
    s->limit = (size_t) want;
    s->row_len = 1 + (size_t) s->depth + PF_NFIELDS;
    pthread_mutex_init(&s->lock, NULL);

    char labels[512];
    int n = snprintf(labels, sizeof labels, "function");
    for (int i = 1; i <= s->depth; i++) n += snprintf(labels + n, sizeof labels - (size_t) n, "\naddress %d", i);
    snprintf(labels + n, sizeof labels - (size_t) n, "\n%s", PF_FIELD_LABELS);
    s->clock = mpii_profile_counters(tool_id, "clock", PF_CLOCK_FIELDS, PF_CLOCK_LABELS);
    s->sites = mpii_profile_counters(tool_id, "sites", cap * s->row_len, labels);
    s->overflow = mpii_profile_counters(tool_id, "overflow", (size_t) MPII_NFUNCS * PF_NFIELDS, PF_FIELD_LABELS);
    if (!s->clock || !s->sites || !s->overflow) { /* no memory at all: stay out of the chain */
        mpii_error("profile: out of memory for %zu call sites: nothing is recorded", cap);
        return;
    }
    s->clock[PF_DEPTH] = (uint64_t) s->depth;
    s->clock[PF_CAPACITY] = cap;
    if (s->depth > 1) {
        void *warm[2];
        backtrace(warm, 2); /* loads the unwinder now, not inside the first MPI call */
    }
    for (int i = 0; i < MPII_NFUNCS; i++) {
        const char *n = mpii_fn_info[i].name;
        pf_alltoall[i] = n && strcasestr(n, "_alltoall") != NULL;
        pf_sets_errhandler[i] = n && (!strcmp(n, "MPI_Comm_set_errhandler") || !strcmp(n, "MPI_Win_set_errhandler") ||
                                      !strcmp(n, "MPI_Errhandler_set") || !strcmp(n, "MPI_Comm_create_from_group") ||
                                      !strcmp(n, "MPI_Intercomm_create_from_groups"));
    }
    QMPI_Register_tool_storage(tool_id, s);
    mpii_register_hooks(tool_id, mpii_profile_wraps, mpii_profile_hooks);
}

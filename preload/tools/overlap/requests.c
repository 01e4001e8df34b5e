/* The requests overlap keeps in flight, and how they finish.
 *
 * A converted send is packed into a private buffer and started with MPI_Isend: the program may
 * reuse its buffer at once, so sends never guard anything and never wait for each other.
 * A converted receive is started with MPI_Irecv into a private buffer, and the pages of the
 * program's buffer get a NOACCESS guard. It finishes (wait, unguard, unpack) when the program
 * touches one of those pages (SIGSEGV), when a later request needs the same elements, when a
 * system call or another MPI call is about to access the pages, when its status is read, when
 * the buffer is freed, at a learned chain end, or at MPI_Finalize. A page opens only when every
 * receive guarding it is done (the guard counts); unpacking into a page another receive still
 * guards opens it for the copy only. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "stats.h"
#include "state.h"
#include "chain.h" /* ov_chain_fault */
#include "requests.h"

#define OV_SLOTS 64
#define OV_STATUSES 32

typedef struct {
    MPI_Request req;
    int recv;           /* 0: send */
    uintptr_t lo, hi;   /* bytes the program's elements span (receives) */
    uintptr_t plo, phi; /* the pages guarded */
    mpii_block_t *block;
    char *pack; /* private buffer, kept for the next request in this slot */
    size_t cap;
    void *buf;
    int count;
    MPI_Datatype type;
    MPI_Comm comm;
    int status_entry; /* index in statuses[], or -1 */
    ov_site_t *site;  /* adaptive: the receive's call site, told what it hid */
    uint64_t t_post, calls_post;
} ov_req_t;

/* Statuses of converted receives still in flight, and of the short ones the program may still
 * ask about (MPI_Get_count & co.; settle_status). */
typedef struct {
    MPI_Status *addr;
    int owner; /* slot of the receive still in flight, or -1 when `saved` is final */
    MPI_Status saved;
} ov_status_t;

volatile int ov_guarded_recvs; /* receives in flight, their pages guarded (a fault may finish one) */
int ov_statuses_live;          /* entries of statuses[] in use: 0 lets MPI calls skip the status checks */
static ov_req_t slots[OV_SLOTS];
static int active[OV_SLOTS], n_active; /* slots in flight, in posting order */
static int free_slots[OV_SLOTS], n_free;
static ov_status_t statuses[OV_STATUSES];
static int next_status;

/* ---- the library below us, through QMPI (tools under overlap see the background calls) ---- */

#define OV_NEXT(ID, QTYPE, ...)                                                  \
    ({                                                                           \
        int nid_;                                                                \
        void (*fn_)(void) = mpii_next(ov_tool, ID, &nid_);                       \
        void *call_[2] = { (void *) mpii_storage, __builtin_return_address(0) }; \
        ((QTYPE *) fn_)((QMPI_Context){ call_ }, nid_, __VA_ARGS__);             \
    })

/* ---- slots ---- */

static void drop_active(int s)
{
    for (int i = 0; i < n_active; i++)
        if (active[i] == s) {
            memmove(&active[i], &active[i + 1], (size_t) (n_active - i - 1) * sizeof *active);
            n_active--;
            break;
        }
    free_slots[n_free++] = s;
}

static int any_guarded(mpii_block_t *b, uintptr_t plo, uintptr_t phi)
{
    if (!mpii_guarded_pages) return 0;
    for (uintptr_t p = plo; p < phi; p += mpii_page_size)
        if (mpii_guard_count(b, p)) return 1;
    return 0;
}

static void unpack(ov_req_t *r, MPI_Status *st)
{
    int bytes = 0;
    MPII_PMPI(MPI_Get_count, MPI_GET_COUNT_T)(st, MPI_PACKED, &bytes);
    const mpii_type_t *t = mpii_type_info(r->type);
    if (bytes <= 0 || bytes == MPI_UNDEFINED || !t || t->size <= 0) return; /* MPI_PROC_NULL, empty */
    int n = (int) (bytes / t->size), pos = 0;
    int closed = r->block && any_guarded(r->block, r->plo, r->phi);
    if (closed) mpii_guard_open(r->block, r->plo, r->phi);
    if (bytes % t->size == 0) {
        MPII_PMPI(MPI_Unpack, MPI_UNPACK_T)(r->pack, bytes, &pos, r->buf, n, r->type, r->comm);
    } else {
        /* a partial last element (legal for a short message): only the library's receive path
         * knows how to place it, so let it receive the packed bytes from ourselves */
        MPI_Status self;
        MPII_PMPI(MPI_Sendrecv, MPI_SENDRECV_T)
        (r->pack, bytes, MPI_PACKED, 0, 0, r->buf, r->count, r->type, 0, 0, MPI_COMM_SELF, &self);
    }
    if (closed) mpii_guard_close(r->block, r->plo, r->phi);
}

/* A receive's status entry when the receive is done. The status the program holds says the
 * whole count arrived (ov_recv); if it did, that status is exact and nothing needs remembering:
 * a status kept live would send every later call with a status through the checks (HPCC
 * RandomAccess: 68 million MPI_Testany calls, its remembered statuses on the stacks of
 * functions long returned and never read). A shorter message is kept for MPI_Get_count & co. */
static void settle_status(const ov_req_t *r, const MPI_Status *st)
{
    ov_status_t *e = &statuses[r->status_entry];
    int bytes = 0;
    MPII_PMPI(MPI_Get_count, MPI_GET_COUNT_T)(st, MPI_PACKED, &bytes);
    const mpii_type_t *t = mpii_type_info(r->type);
    if (e->addr && t && bytes != MPI_UNDEFINED && (long long) bytes == (long long) r->count * t->size) {
        e->addr = NULL;
        ov_statuses_live--;
        return;
    }
    e->saved = *st;
    e->owner = -1;
}

/* Wait for the slots `which` (in posting order), unguard, unpack in that order, free them. */
static void complete(const int *which, int n, ov_cause_t cause)
{
    if (n <= 0) return;
    uint64_t t0 = ov_now();
    MPI_Request reqs[OV_SLOTS];
    MPI_Status sts[OV_SLOTS];
    for (int i = 0; i < n; i++) reqs[i] = slots[which[i]].req;
    OV_NEXT(MPI_WAITALL_T, QMPI_Waitall_t, n, reqs, sts);
    for (int i = 0; i < n; i++) {
        ov_req_t *r = &slots[which[i]];
        if (r->recv && r->block) {
            mpii_guard_remove(r->block, r->plo, r->phi, MPII_GUARD_NOACCESS);
            ov_guarded_recvs--;
        }
    }
    for (int i = 0; i < n; i++) {
        ov_req_t *r = &slots[which[i]];
        if (!r->recv) continue;
        /* the program touched it, handed it on, or reached a chain end (learned where it touches
         * at once): did the background hide anything? Free, finalize and a full table say nothing
         * about the program's use of the data. */
        if (r->site && cause != ST_WAIT_FREE && cause != ST_WAIT_FINALIZE && cause != ST_WAIT_FULL)
            ov_site_receive_done(r->site, ov_receive_hid(r->t_post, t0, ov_p2p_calls - r->calls_post));
        unpack(r, &sts[i]);
        if (r->status_entry >= 0 && statuses[r->status_entry].owner == which[i]) settle_status(r, &sts[i]);
    }
    int received = 0;
    for (int i = 0; i < n; i++) received += slots[which[i]].recv;
    for (int i = 0; i < n; i++) drop_active(which[i]);
    ov_stats[cause] += (uint64_t) received;
    ov_stats[ST_WAIT_NS] += ov_now() - t0;
}

/* Complete the pending receives for which `cond` holds, and the sends posted before the last
 * of them (almost always done by then: reaping them keeps slots and private buffers free). */
#define COMPLETE_WHERE(cond, cause)                            \
    do {                                                       \
        int last_ = -1;                                        \
        for (int i_ = 0; i_ < n_active; i_++) {                \
            const ov_req_t *r = &slots[active[i_]];            \
            if (r->recv && (cond)) last_ = i_;                 \
        }                                                      \
        if (last_ < 0) break;                                  \
        int which_[OV_SLOTS], n_ = 0;                          \
        for (int i_ = 0; i_ <= last_; i_++) {                  \
            const ov_req_t *r = &slots[active[i_]];            \
            if (!r->recv || (cond)) which_[n_++] = active[i_]; \
        }                                                      \
        complete(which_, n_, cause);                           \
    } while (0)

void ov_complete_all(ov_cause_t cause)
{
    if (!n_active) return;
    int which[OV_SLOTS];
    memcpy(which, active, (size_t) n_active * sizeof *which);
    complete(which, n_active, cause);
}

void ov_release_range(uintptr_t lo, uintptr_t hi, ov_cause_t cause)
{
    if (!ov_guarded_recvs || lo >= hi) return;
    uintptr_t plo = mpii_page_down(lo), phi = mpii_page_up(hi);
    COMPLETE_WHERE(r->plo < phi && plo < r->phi, cause);
}

static int take_slot(void)
{
    if (!n_free) { /* everything in use: finish the older half */
        int which[OV_SLOTS];
        int n = n_active / 2 ? n_active / 2 : 1;
        memcpy(which, active, (size_t) n * sizeof *which);
        complete(which, n, ST_WAIT_FULL);
    }
    int s = free_slots[--n_free];
    active[n_active++] = s;
    return s;
}

static int room(ov_req_t *r, size_t bytes)
{
    if (r->cap >= bytes && r->pack) return 0;
    free(r->pack); /* below the heap's threshold or not, free() knows where it came from */
    size_t cap = bytes < 256 ? 256 : bytes;
    r->pack = malloc(cap);
    r->cap = r->pack ? cap : 0;
    return r->pack ? 0 : -1;
}

/* ---- conversions ---- */

/* A buffer overlap leaves to the library: MPI_BOTTOM with a datatype of absolute addresses
 * (anywhere: the stack, static data; and some MPIs refuse MPI_Pack/MPI_Unpack from or into it). */
static int absolute(const void *buf, int count)
{
    if (buf != MPI_BOTTOM || count <= 0) return 0;
    ov_stats[ST_PASS_BUFFER]++;
    return 1;
}

int ov_send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    int size = 0;
    if (absolute(buf, count)) return 0;
    if (MPII_PMPI(MPI_Pack_size, MPI_PACK_SIZE_T)(count, type, comm, &size) != MPI_SUCCESS || size < 0) return 0;
    if ((uint64_t) size > ov_max_bytes) {
        ov_stats[ST_PASS_LARGE]++;
        return 0;
    }
    uintptr_t lo, hi;
    mpii_block_t *b = NULL;
    if (ov_guarded_recvs && mpii_extent(buf, count, type, &lo, &hi) == 0 && lo < hi) {
        /* data a pending receive still has to deliver must arrive before it is packed */
        COMPLETE_WHERE(r->lo < hi && lo < r->hi, ST_WAIT_OVERLAP);
        b = mpii_heap_find((void *) lo);
    }
    int s = take_slot();
    ov_req_t *r = &slots[s];
    if (room(r, (size_t) size) != 0) {
        drop_active(s);
        return 0;
    }
    uintptr_t plo = b ? mpii_page_down(lo) : 0, phi = b ? mpii_page_up(hi) : 0;
    int closed = b && any_guarded(b, plo, phi); /* pages shared with a pending receive */
    if (closed) mpii_guard_open(b, plo, phi);
    int pos = 0;
    int packed = MPII_PMPI(MPI_Pack, MPI_PACK_T)(buf, count, type, r->pack, size, &pos, comm);
    if (closed) mpii_guard_close(b, plo, phi);
    if (packed != MPI_SUCCESS) { /* the program's own call then meets whatever the library says */
        drop_active(s);
        return 0;
    }
    *r = (ov_req_t){ .recv = 0, .pack = r->pack, .cap = r->cap, .status_entry = -1 };
    /* a send MPI refuses (a rank or tag out of range, under MPI_ERRORS_RETURN) is not converted:
     * the program's own blocking call then returns the library's error */
    if (OV_NEXT(MPI_ISEND_T, QMPI_Isend_t, r->pack, pos, MPI_PACKED, dest, tag, comm, &r->req) != MPI_SUCCESS) {
        drop_active(s);
        return 0;
    }
    ov_stats[ST_SENDS]++;
    ov_stats[ST_BYTES_SENT] += (uint64_t) pos;
    return 1;
}

int ov_recv_target(const void *buf, int count, MPI_Datatype type, int source, int tag, ov_target_t *t)
{
    if (source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG) {
        ov_stats[ST_PASS_WILDCARD]++; /* the status must name the sender when MPI_Recv returns */
        return 0;
    }
    if (source == MPI_PROC_NULL || absolute(buf, count)) return 0;
    /* only a block of the page-exclusive heap, not shared with the library, and wholly inside it */
    mpii_block_t *b = NULL;
    if (count > 0 && mpii_extent(buf, count, type, &t->lo, &t->hi) == 0 && t->lo < t->hi)
        b = mpii_heap_find((void *) t->lo);
    if (!b || b->pins || t->hi > b->start + b->pages * mpii_page_size) {
        ov_stats[ST_PASS_BUFFER]++;
        return 0;
    }
    t->block = b;
    return 1;
}

static void remember_status(int s, MPI_Status *status)
{
    for (int i = 0; i < OV_STATUSES; i++)
        if (statuses[i].addr == status) { /* a newer receive owns it now */
            statuses[i].addr = NULL;
            ov_statuses_live--;
        }
    int e = next_status;
    next_status = (next_status + 1) % OV_STATUSES;
    if (statuses[e].addr) ov_statuses_live--; /* the oldest entry makes room */
    statuses[e] = (ov_status_t){ .addr = status, .owner = s };
    ov_statuses_live++;
    slots[s].status_entry = e;
}

int ov_recv(const ov_target_t *t, void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
            MPI_Status *status)
{
    uintptr_t lo = t->lo, hi = t->hi;
    mpii_block_t *b = t->block;
    int size = 0;
    if (MPII_PMPI(MPI_Pack_size, MPI_PACK_SIZE_T)(count, type, comm, &size) != MPI_SUCCESS) return 0;
    if ((uint64_t) size > ov_max_bytes) {
        ov_stats[ST_PASS_LARGE]++;
        return 0;
    }
    /* a pending receive into the same elements must land first: the later one wins */
    COMPLETE_WHERE(r->lo < hi && lo < r->hi, ST_WAIT_OVERLAP);
    int s = take_slot();
    ov_req_t *r = &slots[s];
    if (room(r, (size_t) size) != 0) {
        drop_active(s);
        return 0;
    }
    *r = (ov_req_t){ .recv = 1,
                     .lo = lo,
                     .hi = hi,
                     .plo = mpii_page_down(lo),
                     .phi = mpii_page_up(hi),
                     .block = b,
                     .pack = r->pack,
                     .cap = r->cap,
                     .buf = buf,
                     .count = count,
                     .type = type,
                     .comm = comm,
                     .status_entry = -1,
                     .site = ov_current_site,
                     .calls_post = ov_p2p_calls,
                     .t_post = ov_current_site ? ov_now() : 0 };
    /* A message that is already here gives its exact status at once: a program that copies
     * the status struct (instead of asking MPI_Get_count) then sees the real count. */
    int here = 0;
    MPI_Status probed;
    if (status != MPI_STATUS_IGNORE) {
        MPI_Message msg;
        MPII_PMPI(MPI_Improbe, MPI_IMPROBE_T)(source, tag, comm, &here, &msg, &probed);
        if (here) OV_NEXT(MPI_IMRECV_T, QMPI_Imrecv_t, r->pack, size, MPI_PACKED, &msg, &r->req);
    }
    /* likewise a receive MPI refuses: not converted, the blocking call returns the error */
    if (!here &&
        OV_NEXT(MPI_IRECV_T, QMPI_Irecv_t, r->pack, size, MPI_PACKED, source, tag, comm, &r->req) != MPI_SUCCESS) {
        drop_active(s);
        return 0;
    }
    int guarded = mpii_guard_add(b, r->plo, r->phi, MPII_GUARD_NOACCESS) == 0;
    if (guarded) ov_guarded_recvs++;
    else
        r->block = NULL;
    if (status != MPI_STATUS_IGNORE) {
        if (here) {
            *status = probed; /* exact: its byte count is the message's, whatever type asks */
            ov_status_forget(status, 1);
        } else {
            /* what the program may read directly now, every field set (not cancelled), and the
             * whole count: the usual case, which completion confirms (settle_status); a shorter
             * message corrects it when the program asks */
            MPI_Status now;
            memset(&now, 0, sizeof now);
            now.MPI_SOURCE = source;
            now.MPI_TAG = tag;
            now.MPI_ERROR = MPI_SUCCESS;
            MPII_PMPI(MPI_Status_set_cancelled, MPI_STATUS_SET_CANCELLED_T)(&now, 0);
            MPII_PMPI(MPI_Status_set_elements, MPI_STATUS_SET_ELEMENTS_T)(&now, type, count);
            *status = now;
            remember_status(s, status);
        }
    }
    if (!guarded) { /* the kernel refused (too many mappings): finish it now, synchronously */
        ov_stats[ST_PASS_GUARD]++;
        complete(&s, 1, ST_WAIT_FULL);
        ov_stats[ST_WAIT_FULL]--;
        if (status != MPI_STATUS_IGNORE) ov_status_read(status);
        return 1;
    }
    ov_stats[ST_RECVS]++;
    ov_stats[ST_BYTES_RECEIVED] += (uint64_t) size;
    return 1;
}

/* ---- statuses ---- */

void ov_status_read(MPI_Status *status)
{
    for (int i = 0; i < OV_STATUSES; i++) {
        ov_status_t *e = &statuses[i];
        if (e->addr != status || !status) continue;
        if (e->owner >= 0) {
            int one = e->owner;
            complete(&one, 1, ST_WAIT_STATUS);
            if (e->addr != status) return; /* the whole count arrived: the program's status is exact */
        }
        MPI_Status real = e->saved;
        real.MPI_SOURCE = status->MPI_SOURCE; /* the program may have set these itself */
        real.MPI_TAG = status->MPI_TAG;
        *status = real;
        e->addr = NULL;
        ov_statuses_live--;
        return;
    }
}

void ov_status_forget(const MPI_Status *status, MPI_Count n)
{
    if (!ov_statuses_live || !status || status == MPI_STATUS_IGNORE || status == MPI_STATUSES_IGNORE) return;
    for (int i = 0; i < OV_STATUSES; i++)
        if (statuses[i].addr >= status && statuses[i].addr < status + (n > 0 ? n : 1)) {
            statuses[i].addr = NULL;
            ov_statuses_live--;
        }
}

/* ---- what the core asks us: faults, kernel accesses, freed blocks ---- */

static int on_fault(void *addr, int write)
{
    (void) write;
    uintptr_t page = mpii_page_down((uintptr_t) addr);
    int before = n_active;
    COMPLETE_WHERE(r->plo <= page && page < r->phi, ST_WAIT_FAULT);
    if (n_active == before) return 0;
    ov_stats[ST_FAULTS]++;
    ov_chain_fault(ov_now);
    return 1;
}

static void on_access(uintptr_t lo, uintptr_t hi)
{
    ov_release_range(lo, hi, ST_WAIT_ACCESS);
}

static void on_release(mpii_block_t *b)
{
    if (ov_guarded_recvs) COMPLETE_WHERE(r->block == b, ST_WAIT_FREE);
}

static const mpii_guard_client_t client = { on_fault, on_access };

int ov_start(void)
{
    n_free = 0;
    for (int i = OV_SLOTS - 1; i >= 0; i--) free_slots[n_free++] = i;
    for (int i = 0; i < OV_STATUSES; i++) statuses[i].addr = NULL;
    ov_statuses_live = 0;
    mpii_heap_on_release(on_release);
    return mpii_guard_attach(&client);
}

void ov_stop(void)
{
    ov_complete_all(ST_WAIT_FINALIZE);
    /* after MPI_Finalize no call may read a status: nothing is left to watch (ov_watching) */
    for (int i = 0; i < OV_STATUSES; i++) statuses[i].addr = NULL;
    ov_statuses_live = 0;
}

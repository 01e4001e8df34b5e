/* Memory MPI owns: the buffers of pending nonblocking and persistent operations and of
 * one-sided operations before their synchronisation. Each gets a guard on its pages (send and
 * Put/Accumulate origin: READONLY, or NOACCESS in strict mode; receive and Get result: NOACCESS)
 * until the completion. The library itself may touch them while it runs, so every progressing
 * MPI call opens them on entry and closes them again on exit (mc_pending_lift/relower).
 *
 * A fault is a finding only when the address lies inside the operation's exact byte range and
 * the access is one the rule forbids; other data on the same page (a neighbouring row, a struct
 * field) is let through one instruction at a time and the guard stays. */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include "state.h"
#include "sample.h"
#include "findings.h"
#include "valgrind.h"
#include "unread.h" /* mc_unread_received: a completed receive is watched */
#include "pending.h"
#include "owner.h"

#define MC_OPS 4096
#define MC_HASH 8192      /* power of two, > 2 × MC_OPS */
#define MC_STEP_LIMIT 256 /* steps over one operation's pages before its guard is given up */
/* MPI calls an operation's guard is lifted around before it is given up. A guard costs two
 * mprotect calls per progressing MPI call while the operation is pending: nothing for a receive
 * completed by the next Wait, but an RMA origin stays pending until its epoch's synchronisation,
 * and MPICH's rma/manyrma2 makes 16,384 MPI_Accumulate calls per epoch: with every guard held to
 * the end, 200x plain's time. A write that breaks the rule mostly comes right after the call (the
 * next iteration refills the buffer); after this many calls the operation is only followed.
 * Point-to-point operations keep their guards: a Wait soon completes them. */
#define MC_LIFT_LIMIT 64

/* Operations are found by the address of the program's MPI_Request variable: handle values are
 * not unique while pending (both MPIs hand out one shared handle for operations that completed
 * at once: Open MPI's ompi_request_empty, MPICH's lightweight requests). A request passed by
 * value or copied elsewhere is found by its handle among the active ones. */
typedef struct {
    uint8_t used, active, persistent, nranges, has_req, counted;
    uint8_t follow_only; /* not sampled, followed only for its pages (a large send: see start) */
    MPI_Request *where;  /* the program's variable */
    MPI_Request req;     /* the handle it held */
    MPI_Win win;
    int target;
    int at; /* index in live[] while active */
    uint32_t steps;
    uint32_t lifts; /* MPI calls its guard was lifted around (MC_LIFT_LIMIT) */
    uint64_t since; /* activation order: among ops sharing a handle, the oldest answers */
    mc_origin_t origin;
    mc_range_t r[2];
} mc_op_t;

volatile int mc_guarded_ops;
/* A large send could not be followed (the table was full): any page may hold a pending send from
 * now on, so mc_pending_send_pages answers yes for every page (no receive becomes NOACCESS). */
static int blind;
static mc_op_t *ops; /* mmap'd: the table must not come from the heap we watch */
static int free_ops[MC_OPS], n_free;
static int live[MC_OPS], n_live; /* active operations */
static int32_t hash[MC_HASH];    /* request -> op index + 1, linear probing */

static uint64_t handle(MPI_Request r)
{
    uint64_t k = 0;
    memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
    return k;
}

static uint64_t key(MPI_Request *where)
{
    return (uint64_t) (uintptr_t) where;
}

static unsigned slot_of(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (unsigned) k & (MC_HASH - 1);
}

static int find_at(MPI_Request *where)
{
    uint64_t k = key(where);
    for (unsigned h = slot_of(k);; h = (h + 1) & (MC_HASH - 1)) {
        int i = hash[h] - 1;
        if (i < 0) return -1;
        if (key(ops[i].where) == k) return i;
    }
}

/* The operation of request `r`, passed at `where` (NULL: by value). */
static int find(MPI_Request *where, MPI_Request r)
{
    if (!ops) return -1;
    int i = where ? find_at(where) : -1;
    if (i >= 0 && handle(ops[i].req) == handle(r)) return i;
    /* moved or copied (mpi4py 4 passes a copy of its requests to MPI_Waitall): by handle. Several
     * active operations share a handle only when it is the library's shared handle of operations
     * that completed at once; any of them may answer, the oldest does, so that a Waitall over n
     * copies of it completes n of them */
    int found = -1;
    for (int n = 0; n < n_live; n++) {
        const mc_op_t *op = &ops[live[n]];
        if (!op->has_req || handle(op->req) != handle(r)) continue;
        if (found < 0 || op->since < ops[found].since) found = live[n];
    }
    return found;
}

static void hash_put(int i)
{
    unsigned h = slot_of(key(ops[i].where));
    while (hash[h]) h = (h + 1) & (MC_HASH - 1);
    hash[h] = i + 1;
}

/* Remove op i's entry, moving later entries of the same probe run back (no tombstones). */
static void hash_del(int i)
{
    unsigned h = slot_of(key(ops[i].where));
    while (hash[h] != i + 1) h = (h + 1) & (MC_HASH - 1);
    hash[h] = 0;
    for (unsigned j = (h + 1) & (MC_HASH - 1); hash[j]; j = (j + 1) & (MC_HASH - 1)) {
        int e = hash[j] - 1;
        unsigned home = slot_of(key(ops[e].where));
        /* e may move into the hole at h if its home is not in (h, j] (cyclically) */
        if ((j > h && (home <= h || home > j)) || (j < h && home <= h && home > j)) {
            hash[h] = hash[j];
            hash[j] = 0;
            h = j;
        }
    }
}

int mc_range(mc_range_t *r, const void *buf, MPI_Count count, MPI_Datatype type, int dir)
{
    memset(r, 0, sizeof *r);
    r->dir = (uint8_t) dir;
    r->kind = 0xff;
    if (mpii_extent(buf, count, type, &r->lo, &r->hi) != 0) {
        mc_stats[MS_UNCHECKED_TYPE]++;
        return -1;
    }
    const mpii_type_t *t = count > 0 ? mpii_type_info(type) : NULL;
    r->contiguous = t && t->size > 0 && t->size == t->extent && t->size == t->true_extent;
    if (r->contiguous && t->size <= 16) r->elem = (uint16_t) t->size;
    return 0;
}

/* ---- guards ---- */

/* Strict mode makes pending send buffers NOACCESS, but a send of more than MC_EAGER_BYTES may be
 * read by the peer's single-copy transfer (process_vm_readv: Open MPI's vader above its 4 KiB
 * eager limit, UCX's cma under MPICH) while this rank computes, and the kernel cannot read a
 * PROT_NONE page: such sends stay READONLY (their writes are still found). Smaller sends were
 * copied by the library at the call; RMA origins are read by this process's own library, inside
 * MPI calls, where guards are lifted. */
#define MC_EAGER_BYTES 4096

/* Whether an operation has a send buffer larger than that: one a peer may read at any moment
 * until the send completes (the only ones whose pages must stay readable). */
static int large_send(const mc_range_t *r, int n)
{
    for (int k = 0; k < n; k++)
        if (r[k].dir == MC_DIR_SEND && r[k].hi - r[k].lo > MC_EAGER_BYTES) return 1;
    return 0;
}

static int is_rma(const mc_op_t *op)
{
    return op->win != MPI_WIN_NULL && op->win != (MPI_Win) 0;
}

static int guard_kind(const mc_op_t *op, const mc_range_t *r)
{
    if (r->dir == MC_DIR_RECV) return MPII_GUARD_NOACCESS;
    if (mc_strict && (is_rma(op) || r->hi - r->lo <= MC_EAGER_BYTES)) return MPII_GUARD_NOACCESS;
    return MPII_GUARD_READONLY;
}

/* Whether a page of [plo, phi) holds bytes of an active operation's send buffer. The library may
 * read those from another process at any moment, not only inside an MPI call here (Open MPI's
 * single-copy transfer: the receiver's process_vm_readv), and the kernel cannot read a PROT_NONE
 * page: the transfer fails ("Read -1 … errno = 14"). Such pages are never made NOACCESS. */
int mc_pending_send_pages(uintptr_t plo, uintptr_t phi)
{
    if (blind) return 1;
    for (int n = 0; n < n_live; n++) {
        const mc_op_t *op = &ops[live[n]];
        for (int k = 0; k < op->nranges; k++) {
            const mc_range_t *s = &op->r[k];
            if (s->dir == MC_DIR_SEND && s->lo < s->hi && mpii_page_down(s->lo) < phi && plo < mpii_page_up(s->hi))
                return 1;
        }
    }
    return 0;
}

/* A receive's NOACCESS guard on pages a send now shares becomes READONLY: writes to the pending
 * receive buffer are still found there, reads of it no longer. */
static void readable_for_sends(const mc_op_t *sender)
{
    for (int k = 0; k < sender->nranges; k++) {
        const mc_range_t *s = &sender->r[k];
        if (s->dir != MC_DIR_SEND || s->lo >= s->hi) continue;
        uintptr_t slo = mpii_page_down(s->lo), shi = mpii_page_up(s->hi);
        for (int n = 0; n < n_live; n++) {
            mc_op_t *op = &ops[live[n]];
            for (int j = 0; j < op->nranges; j++) {
                mc_range_t *r = &op->r[j];
                if (r->kind != MPII_GUARD_NOACCESS || r->dir != MC_DIR_RECV || r->plo >= shi || slo >= r->phi) continue;
                if (mpii_guard_add(r->block, r->plo, r->phi, MPII_GUARD_READONLY) != 0) continue;
                if (r->open) mpii_guard_remove_open(r->block, r->plo, r->phi, MPII_GUARD_NOACCESS);
                else
                    mpii_guard_remove(r->block, r->plo, r->phi, MPII_GUARD_NOACCESS);
                r->kind = MPII_GUARD_READONLY;
                mc_stats[MS_READABLE_FOR_SENDS]++;
            }
        }
    }
}

static void guard(mc_op_t *op)
{
    int any = 0;
    for (int k = 0; k < op->nranges; k++) {
        mc_range_t *r = &op->r[k];
        r->kind = 0xff;
        if (r->lo >= r->hi) continue;
        if (mc_valgrind) {
            any = 1;
            continue;
        }
        if (!r->block) r->block = mpii_heap_find((void *) r->lo);
        if (!r->block || r->block->pins) {
            mc_stats[MS_UNCHECKED_HEAP]++;
            continue;
        }
        uintptr_t end = r->block->start + r->block->pages * mpii_page_size;
        r->plo = mpii_page_down(r->lo);
        r->phi = mpii_page_up(r->hi) < end ? mpii_page_up(r->hi) : end;
        int kind = guard_kind(op, r);
        if (kind == MPII_GUARD_NOACCESS && r->dir == MC_DIR_RECV && mc_pending_send_pages(r->plo, r->phi)) {
            kind = MPII_GUARD_READONLY;
            mc_stats[MS_READABLE_FOR_SENDS]++;
        }
        if (mpii_guard_add(r->block, r->plo, r->phi, kind) != 0) {
            mc_stats[MS_UNCHECKED_GUARD]++;
            continue;
        }
        r->kind = (uint8_t) kind;
        mc_stats[MS_GUARDS]++;
        any = 1;
    }
    if (mc_valgrind) mc_vg_start(op->r, op->nranges);
    mc_stats[MS_CHECKED] += any;
}

static int n_lifted;

static void unguard_range(mc_range_t *r)
{
    if (r->kind == 0xff) return;
    if (r->open) mpii_guard_remove_open(r->block, r->plo, r->phi, r->kind); /* relower closes them */
    else
        mpii_guard_remove(r->block, r->plo, r->phi, r->kind);
    r->kind = 0xff;
    r->open = 0;
}

static int guarded(const mc_op_t *op)
{
    for (int k = 0; k < op->nranges; k++)
        if (op->r[k].kind != 0xff) return 1;
    return 0;
}

static void activate(int i, int check)
{
    mc_op_t *op = &ops[i];
    if (op->active) return;
    static uint64_t activations;
    op->active = 1;
    op->steps = 0;
    op->lifts = 0;
    op->since = ++activations;
    op->at = n_live;
    live[n_live++] = i;
    if (!check) { /* followed, not guarded */
        mc_stats[MS_PENDING_SKIPPED]++;
        op->counted = 0;
        return;
    }
    guard(op);
    if (!mc_valgrind) readable_for_sends(op);
    op->counted = guarded(op) || mc_valgrind;
    mc_guarded_ops += op->counted;
}

/* The guard has cost too many system calls (MC_LIFT_LIMIT): the operation is followed to its
 * completion unguarded, as an unsampled one. */
static void give_up_guards(mc_op_t *op)
{
    for (int k = 0; k < op->nranges; k++) unguard_range(&op->r[k]);
    mc_guarded_ops -= op->counted;
    op->counted = 0;
    mc_stats[MS_GIVEN_UP_LIFTS]++;
}

/* The operation finished (received: bytes that arrived, for the unread tracking). */
static void deactivate(int i, const MPI_Status *st)
{
    mc_op_t *op = &ops[i];
    if (!op->active) return;
    for (int k = 0; k < op->nranges; k++) unguard_range(&op->r[k]);
    mc_guarded_ops -= op->counted;
    op->counted = 0;
    op->active = 0;
    int last = live[--n_live];
    live[op->at] = last;
    ops[last].at = op->at;
    for (int k = 0; k < op->nranges && !op->follow_only; k++) {
        mc_range_t *r = &op->r[k];
        if (r->dir != MC_DIR_RECV || r->lo >= r->hi || ((!r->contiguous || r->undefined) && !mc_valgrind)) continue;
        size_t n = r->hi - r->lo;
        if (st && op->has_req) {
            int bytes = 0;
            if (MPII_PMPI(MPI_Get_count, MPI_GET_COUNT_T)(st, MPI_BYTE, &bytes) == MPI_SUCCESS && bytes >= 0 &&
                bytes != MPI_UNDEFINED && (size_t) bytes < n)
                n = (size_t) bytes; /* a contiguous prefix: what a shorter message filled */
        }
        if (mc_valgrind) mc_vg_complete(r, 1, n);
        else
            mc_unread_received(&op->origin, r->lo, n, r->elem);
    }
    if (mc_valgrind)
        for (int k = 0; k < op->nranges; k++)
            if (op->r[k].dir == MC_DIR_SEND) mc_vg_complete(&op->r[k], 1, 0);
}

static void release(int i)
{
    mc_op_t *op = &ops[i];
    if (op->has_req) hash_del(i);
    op->used = 0;
    free_ops[n_free++] = i;
}

static int table_ready(void)
{
    if (ops) return 1;
    void *p = mmap(NULL, sizeof(mc_op_t) * MC_OPS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 0;
    ops = p;
    for (int i = MC_OPS - 1; i >= 0; i--) free_ops[n_free++] = i;
    return 1;
}

static size_t bytes_of(const mc_range_t *r, int n)
{
    size_t b = 0;
    for (int k = 0; k < n; k++) b += r[k].hi - r[k].lo;
    return b;
}

void mc_pending_start(const mc_origin_t *o, MPI_Request *req, MPI_Win win, int target, int persistent,
                      const mc_range_t *ranges, int nranges)
{
    if (!table_ready() || n_free == 0) {
        mc_stats[MS_TABLE_FULL]++;
        if (large_send(ranges, nranges)) blind = 1;
        return;
    }
    if (req && *req == MPI_REQUEST_NULL) return;
    if (req) {
        int old = find_at(req); /* the variable is reused: whatever it held is over */
        if (old >= 0) {
            deactivate(old, NULL);
            release(old);
        }
    }
    int check = !persistent && mc_sampled(o->site, MC_SAMPLE_PENDING, bytes_of(ranges, nranges));
    /* A large send not sampled is still followed, without a guard: its pages must never become
     * NOACCESS while it is pending (mc_pending_send_pages: received data watched on them, a
     * receive guard), and a receive into it is an error (mc_pending_recv_overlaps). One table
     * entry, no system call: small next to moving more than 4 KiB. */
    int follow = !persistent && !check && !mc_valgrind && large_send(ranges, nranges);
    if (!persistent && !check && !follow) { /* not followed: costs nothing */
        mc_stats[MS_PENDING_SKIPPED]++;
        return;
    }
    int i = free_ops[--n_free];
    mc_op_t *op = &ops[i];
    memset(op, 0, sizeof *op);
    op->used = 1;
    op->origin = *o;
    op->win = win;
    op->target = target;
    op->persistent = (uint8_t) persistent;
    op->follow_only = (uint8_t) follow;
    mc_stats[MS_SENDS_FOLLOWED] += follow;
    op->nranges = (uint8_t) (nranges > 2 ? 2 : nranges);
    memcpy(op->r, ranges, sizeof(mc_range_t) * op->nranges);
    if (req) {
        op->where = req;
        op->req = *req;
        op->has_req = 1;
        hash_put(i);
    }
    if (!persistent) activate(i, check);
}

void mc_pending_activate(MPI_Request *where, MPI_Request req)
{
    int i = find(where, req);
    if (i >= 0) activate(i, mc_sampled(ops[i].origin.site, MC_SAMPLE_PENDING, bytes_of(ops[i].r, ops[i].nranges)));
}

void mc_pending_complete(MPI_Request *where, MPI_Request req, const MPI_Status *st)
{
    int i = find(where, req);
    if (i < 0) return;
    deactivate(i, st);
    if (!ops[i].persistent) release(i);
}

void mc_pending_free(MPI_Request *where, MPI_Request req)
{
    int i = find(where, req);
    if (i < 0) return;
    if (ops[i].active) mc_stats[MS_FREED_ACTIVE]++; /* cannot follow it to its completion */
    deactivate(i, NULL);
    release(i);
}

void mc_pending_rma_sync(MPI_Win win, int target)
{
    for (int n = n_live - 1; n >= 0; n--) {
        int i = live[n];
        if (n >= n_live || ops[i].win != win || ops[i].win == MPI_WIN_NULL) continue;
        if (target >= 0 && ops[i].target != target) continue;
        deactivate(i, NULL);
        if (!ops[i].has_req) release(i); /* Rput & co. still answer to their Wait */
    }
}

/* A receive into [r->lo, r->hi) is about to start while an operation still owns some of those
 * bytes: MPI forbids it (a pending send's buffer must not be modified, a pending receive's or
 * one-sided result's not accessed, until completion), and the library's transfers of the two
 * race. Reported once per operation, with the operation's call as the owner and the receive's
 * stack as the backtrace. Byte ranges are exact only for contiguous datatypes: strided ones
 * (interleaved columns) and the vector forms' whole-allocation ranges are not compared. */
void mc_pending_recv_overlaps(const mc_range_t *r)
{
    if (!n_live || r->dir != MC_DIR_RECV || !r->contiguous) return;
    for (int n = 0; n < n_live; n++) {
        const mc_op_t *op = &ops[live[n]];
        for (int k = 0; k < op->nranges; k++) {
            const mc_range_t *p = &op->r[k];
            if (!p->contiguous || p->hi <= r->lo || r->hi <= p->lo) continue;
            mc_finding_t f = { .kind = MC_RECV_PENDING,
                               .origin = &op->origin,
                               .addr = p->lo > r->lo ? p->lo : r->lo,
                               .base = p->lo,
                               .len = p->hi - p->lo,
                               .access = 1 };
            mc_report(&f);
            break;
        }
    }
}

/* The pages opened for the library, closed again exactly (per their counts) afterwards, even
 * when the operation that guarded them finished meanwhile or other guards came and went. */
static struct {
    mpii_block_t *block;
    uintptr_t lo, hi;
} lifted[MC_OPS * 2];

void mc_pending_lift(void)
{
    mc_stats[MS_LIFTS]++;
    n_lifted = 0;
    /* first the guards given up (a removal re-applies the other guards of its pages: none may be
     * open yet), then the rest opened */
    if (!mc_valgrind)
        for (int n = 0; n < n_live; n++)
            if (is_rma(&ops[live[n]]) && ops[live[n]].counted && ++ops[live[n]].lifts > MC_LIFT_LIMIT)
                give_up_guards(&ops[live[n]]);
    for (int n = 0; n < n_live; n++) {
        mc_op_t *op = &ops[live[n]];
        if (mc_valgrind) {
            mc_vg_lift(op->r, op->nranges);
            continue;
        }
        for (int k = 0; k < op->nranges; k++) {
            mc_range_t *r = &op->r[k];
            if (r->kind == 0xff) continue;
            r->open = 1;
            /* the pages the previous range opened (operations on one buffer: an RMA loop) are open */
            if (n_lifted && lifted[n_lifted - 1].block == r->block && lifted[n_lifted - 1].lo <= r->plo &&
                r->phi <= lifted[n_lifted - 1].hi)
                continue;
            mpii_guard_open(r->block, r->plo, r->phi);
            lifted[n_lifted].block = r->block;
            lifted[n_lifted].lo = r->plo;
            lifted[n_lifted++].hi = r->phi;
        }
    }
}

void mc_pending_relower(void)
{
    if (!n_lifted && !mc_valgrind) return;
    if (mc_valgrind) {
        for (int n = 0; n < n_live; n++) mc_vg_start(ops[live[n]].r, ops[live[n]].nranges);
        return;
    }
    for (int n = 0; n < n_live; n++)
        for (int k = 0; k < ops[live[n]].nranges; k++) ops[live[n]].r[k].open = 0;
    for (int i = 0; i < n_lifted; i++) /* pages nothing guards any more are open already */
        if (lifted[i].block && mpii_guard_any(lifted[i].block, lifted[i].lo, lifted[i].hi))
            mpii_guard_close(lifted[i].block, lifted[i].lo, lifted[i].hi);
    n_lifted = 0;
}

/* A block goes back to the allocator: it must not be closed again later. */
static void forget_lifted(const mpii_block_t *b)
{
    for (int i = 0; i < n_lifted; i++)
        if (lifted[i].block == b) lifted[i].block = NULL, lifted[i].lo = lifted[i].hi = 0;
}

static int finding_kind(const mc_op_t *op, const mc_range_t *r, int write)
{
    int rma = is_rma(op);
    if (r->dir == MC_DIR_RECV) return rma ? MC_ACCESS_RMA_RESULT : write ? MC_WRITE_PENDING_RECV : MC_READ_PENDING_RECV;
    if (rma) return write ? MC_WRITE_RMA_ORIGIN : MC_READ_RMA_ORIGIN;
    return write ? MC_WRITE_PENDING_SEND : MC_READ_PENDING_SEND;
}

/* Which guards on this page the access breaks: report each (once) and drop its guard. */
int mc_pending_fault(void *addr, int write, int library)
{
    uintptr_t a = (uintptr_t) addr;
    int mine = 0, released = 0;
    for (int n = 0; n < n_live; n++) {
        mc_op_t *op = &ops[live[n]];
        for (int k = 0; k < op->nranges; k++) {
            mc_range_t *r = &op->r[k];
            if (r->kind == 0xff || a < r->plo || a >= r->phi) continue;
            mine = 1;
            int forbidden = r->kind == MPII_GUARD_NOACCESS || write != 0;
            if (a >= r->lo && a < r->hi && forbidden && (library || mc_owner_library_fault(mpii_fault_context))) {
                /* the library moves the data of its own pending operation outside any call memcheck
                 * sees (a Fortran binding calling PMPI_ directly, a progress thread): its right */
                mc_stats[MS_LIBRARY_FAULTS]++;
                unguard_range(r);
                released = 1;
            } else if (a >= r->lo && a < r->hi && forbidden) {
                mc_finding_t f = { .kind = finding_kind(op, r, write),
                                   .origin = &op->origin,
                                   .addr = a,
                                   .base = r->lo,
                                   .len = r->hi - r->lo,
                                   .access = write,
                                   .ucontext = mpii_fault_context };
                mc_report(&f);
                unguard_range(r);
                released = 1;
            } else if (++op->steps > MC_STEP_LIMIT) {
                unguard_range(r); /* a hot neighbour: stop paying a fault per access */
                mc_stats[MS_UNCHECKED_GUARD]++;
                released = 1;
            }
        }
    }
    if (!mine) return MPII_FAULT_NOT_MINE;
    mc_stats[MS_FAULTS]++;
    if (!released) mc_stats[MS_STEPS]++;
    return released ? MPII_FAULT_RELEASED : MPII_FAULT_STEP;
}

void mc_pending_access(uintptr_t lo, uintptr_t hi, int library)
{
    for (int n = 0; n < n_live; n++) {
        mc_op_t *op = &ops[live[n]];
        for (int k = 0; k < op->nranges; k++) {
            mc_range_t *r = &op->r[k];
            /* open: the library's own system call inside an MPI call (UCX's tcp transport) */
            if (r->kind == 0xff || r->open || r->phi <= lo || hi <= r->plo) continue;
            int hit = r->lo < hi && lo < r->hi;
            mc_finding_t f = { .kind = MC_SYSCALL_PENDING,
                               .origin = &op->origin,
                               .addr = lo > r->lo ? lo : r->lo,
                               .base = r->lo,
                               .len = r->hi - r->lo,
                               .access = -1 };
            unguard_range(r); /* the kernel would fail with EFAULT: the check ends here (before the
                               * report, whose write() comes back to this function) */
            if (hit && !library && !mc_owner_library_caller()) mc_report(&f); /* the library's own call: its right */
        }
    }
}

void mc_pending_block_released(mpii_block_t *b)
{
    forget_lifted(b);
    for (int n = n_live - 1; n >= 0; n--) {
        if (n >= n_live) continue;
        int i = live[n];
        mc_op_t *op = &ops[i];
        for (int k = 0; k < op->nranges; k++) {
            mc_range_t *r = &op->r[k];
            if (r->block != b && !(r->lo >= b->start && r->lo < b->start + b->pages * mpii_page_size)) continue;
            mc_finding_t f = { .kind = MC_FREE_PENDING,
                               .origin = &op->origin,
                               .addr = r->lo,
                               .base = r->lo,
                               .len = r->hi - r->lo,
                               .access = -1 };
            mc_report(&f);
            unguard_range(r);
            r->block = NULL;
            r->lo = r->hi = 0; /* the memory is gone: nothing to check or track later */
        }
    }
}

void mc_pending_finalize(void)
{
    while (n_live) {
        int i = live[n_live - 1];
        deactivate(i, NULL);
    }
    mc_guarded_ops = 0;
}

/* The post-communication phase: what the program does first with data it received.
 * After a receive completes, the pages holding the received bytes get a NOACCESS guard. The
 * first access to received bytes on a page decides for that page: a read means the data was
 * used; a write means it was overwritten before being read (a finding, E7). The page then opens
 * for good, so each page faults once. Pages never touched when the same memory is received into
 * again, freed, or at MPI_Finalize held data that was never read (E10, in bytes per call site).
 * Small receives (at most 64 elements of a small contiguous type) are followed element by
 * element instead: the page stays guarded and each access is let through one instruction at a
 * time (a fault each) until every element is decided or MC_PRECISE_STEPS accesses have been
 * seen; so a 2-byte message whose first byte is never read is found (the thesis's E10). Larger
 * receives are followed per page: one read on a page marks all its received bytes as used, so
 * "never read" is a lower bound there.
 *
 * Sampled per call site (memcheck.c), so a hot loop rarely pays the fault per page;
 * `unread=all` tracks every receive. */
#define _GNU_SOURCE
#include <string.h>
#include "state.h"
#include "sample.h"
#include "access_width.h"
#include "findings.h"
#include "unread.h"
#include "owner.h"

#define MC_RECORDS 1024
#define MC_RECORD_PAGES 64
#define MC_RECORDS_PER_RECV 16
#define MC_STEP_LIMIT 256
#define MC_PRECISE_ELEMS 64
#define MC_PRECISE_STEPS 256

typedef struct {
    uintptr_t lo, hi; /* received bytes covered by this record */
    uintptr_t plo;    /* first guarded page */
    mpii_block_t *block;
    uint64_t guarded; /* pages (bit i = plo + i pages) still guarded = never touched */
    uint32_t steps;
    mc_origin_t origin;
    int used;
    unsigned elem, nelem; /* precise records: element size and count (nelem 0: per page) */
    int at;               /* index in active[] */
    uint64_t decided;     /* precise: elements read or written since the receive */
    uint64_t overwritten; /* bytes the library overwrote unread (library_fault), reported at finish */
    uint32_t faults;      /* taken on its pages (the sampler is charged those beyond one per page) */
} mc_record_t;

volatile int mc_tracked;

/* pending.c's mc_pending_send_pages, set at start: pending.c is above this file (it reports its
 * completed receives here), so the question goes up through this hook. */
static int no_pages(uintptr_t plo, uintptr_t phi)
{
    (void) plo;
    (void) phi;
    return 0;
}
static int (*send_pages)(uintptr_t plo, uintptr_t phi) = no_pages;

void mc_unread_keep_readable(int (*fn)(uintptr_t plo, uintptr_t phi))
{
    send_pages = fn ? fn : no_pages;
}
static mc_record_t records[MC_RECORDS];
static int free_records[MC_RECORDS], n_free = -1;
static int active[MC_RECORDS]; /* records in use: mc_tracked of them (scans touch only these) */

/* Every record in use, last first (finish() may remove the current one). */
#define FOR_ACTIVE(r)                            \
    for (int n_ = mc_tracked - 1; n_ >= 0; n_--) \
        for (mc_record_t *r = n_ < mc_tracked ? &records[active[n_]] : NULL; r; r = NULL)

static uintptr_t page_at(const mc_record_t *r, int i)
{
    return r->plo + (uintptr_t) i * mpii_page_size;
}

/* Received bytes of record r on its page i. */
static size_t bytes_on_page(const mc_record_t *r, int i)
{
    uintptr_t a = page_at(r, i), b = a + mpii_page_size;
    uintptr_t lo = r->lo > a ? r->lo : a, hi = r->hi < b ? r->hi : b;
    return hi > lo ? hi - lo : 0;
}

static void open_page(mc_record_t *r, int i)
{
    if (!(r->guarded >> i & 1)) return;
    r->guarded &= ~(1ull << i);
    mpii_guard_remove(r->block, page_at(r, i), page_at(r, i) + mpii_page_size, MPII_GUARD_NOACCESS);
}

static void report_unread(const mc_origin_t *origin, uintptr_t lo, uintptr_t len, uint64_t unread, int kind)
{
    mc_stats[MS_UNREAD_BYTES] += unread;
    mc_finding_t f = {
        .kind = kind, .origin = origin, .addr = lo, .base = lo, .len = len, .bytes = unread, .access = -1
    };
    mc_report(&f);
}

/* The record ends: bytes on pages never touched were never read. */
static void finish(mc_record_t *r)
{
    if (!r->used) return;
    uint64_t unread = 0;
    if (r->nelem) {
        unread = (uint64_t) (r->nelem - (unsigned) __builtin_popcountll(r->decided)) * r->elem;
    } else {
        for (int i = 0; i < MC_RECORD_PAGES; i++)
            if (r->guarded >> i & 1) unread += bytes_on_page(r, i);
    }
    /* one guard change (one mprotect) per run of untouched pages */
    for (int i = 0; i < MC_RECORD_PAGES && r->guarded; i++) {
        if (!(r->guarded >> i & 1)) continue;
        int j = i;
        while (j + 1 < MC_RECORD_PAGES && r->guarded >> (j + 1) & 1) j++;
        mpii_guard_remove(r->block, page_at(r, i), page_at(r, j) + mpii_page_size, MPII_GUARD_NOACCESS);
        r->guarded &= ~((j == 63 ? ~0ull : (1ull << (j + 1)) - 1) & ~((1ull << i) - 1));
        i = j;
    }
    int pages = (int) ((mpii_page_up(r->hi) - r->plo) / mpii_page_size);
    if (r->faults > (uint32_t) pages) mc_sample_charge(r->origin.site, MC_SAMPLE_UNREAD, r->faults - (unsigned) pages);
    /* released before reporting: the report writes to stderr, and write() comes back here */
    mc_origin_t origin = r->origin;
    uintptr_t lo = r->lo, len = r->hi - r->lo;
    uint64_t over = r->overwritten;
    r->used = 0;
    free_records[n_free++] = (int) (r - records);
    int last = active[--mc_tracked];
    active[r->at] = last;
    records[last].at = r->at;
    if (over) report_unread(&origin, lo, len, over, MC_UNREAD_OVERWRITTEN);
    if (unread) report_unread(&origin, lo, len, unread, MC_UNREAD);
}

static uint64_t all_elements(const mc_record_t *r)
{
    return r->nelem >= 64 ? ~0ull : (1ull << r->nelem) - 1;
}

/* Every element is decided, or following them costs too much (then the undecided ones count
 * as used: "never read" stays a lower bound): the record ends. */
static void stop_watching(mc_record_t *r)
{
    if (r->decided != all_elements(r)) r->decided = all_elements(r);
    finish(r);
}

/* An access to a precise record's page: decide the elements it touches (the first access to
 * an element decides: read = used, write = write before read). One instruction may touch
 * several elements (a vector load): all of them are decided by it. */
static void precise_access(mc_record_t *r, uintptr_t a, int write)
{
    mc_stats[MS_FAULTS]++;
    r->faults++;
    uintptr_t end = r->lo + (uintptr_t) r->nelem * r->elem;
    unsigned width = mc_access_width(mpii_fault_context);
    uintptr_t last = a + (width ? width - 1 : 0);
    if (last < a) last = a;
    if (a < end && last >= r->lo) {
        unsigned e = a >= r->lo ? (unsigned) ((a - r->lo) / r->elem) : 0;
        unsigned e_last = last < end ? (unsigned) ((last - r->lo) / r->elem) : r->nelem - 1;
        uint64_t touched = (e_last >= 63 ? ~0ull : (1ull << (e_last + 1)) - 1) & ~((1ull << e) - 1);
        uint64_t fresh = touched & ~r->decided;
        r->decided |= touched;
        if (fresh) {
            e = (unsigned) __builtin_ctzll(fresh);
            a = r->lo + (uintptr_t) e * r->elem;
            if (write) { /* bytes: the received elements the write lost */
                mc_finding_t f = { .kind = MC_WRITE_BEFORE_READ,
                                   .origin = &r->origin,
                                   .addr = a,
                                   .base = r->lo,
                                   .len = r->hi - r->lo,
                                   .bytes = (uint64_t) __builtin_popcountll(fresh) * r->elem,
                                   .access = 1,
                                   .ucontext = mpii_fault_context };
                mc_report(&f);
            }
        }
    }
    if (r->decided == all_elements(r) || ++r->steps > MC_PRECISE_STEPS) stop_watching(r);
}

static void init_free(void)
{
    n_free = 0;
    for (int i = MC_RECORDS - 1; i >= 0; i--) free_records[n_free++] = i;
}

void mc_unread_received(const mc_origin_t *o, uintptr_t lo, size_t n, unsigned elem)
{
    if (!mc_sample_mode[MC_SAMPLE_UNREAD] || n == 0) return;
    if (n_free < 0) init_free();
    mpii_block_t *b = mpii_heap_find((void *) lo);
    if (!b || b->pins) return;
    if (!mc_sampled(o->site, MC_SAMPLE_UNREAD, n)) {
        mc_stats[MS_TRACK_SKIPPED]++;
        return;
    }
    uintptr_t end = lo + n, bend = b->start + b->pages * mpii_page_size;
    if (end > bend) end = bend;
    /* a first or last page that also holds a pending send's bytes must stay readable for the
     * library (pending.c's mc_pending_send_pages, through the hook): its received bytes are not watched (they count as used) */
    uintptr_t first = mpii_page_down(lo), last = mpii_page_down(end - 1);
    if (send_pages(first, first + mpii_page_size)) {
        lo = first + mpii_page_size;
        elem = 0;
    }
    if (lo < end && send_pages(last, last + mpii_page_size)) {
        end = last;
        elem = 0;
    }
    if (lo >= end) return;
    /* a pending send on a page in between: its bytes are received bytes (the receive overwrote a
     * pending send, an error reported at the call), and the peer may still read those pages at any
     * moment (UCX aborted: "process_vm_readv … Bad address"): nothing of it is watched */
    if (send_pages(mpii_page_down(lo), mpii_page_up(end))) {
        mc_stats[MS_UNWATCHED_SEND_PAGES]++;
        return;
    }
    mc_stats[MS_TRACKED]++;
    for (int k = 0; k < MC_RECORDS_PER_RECV && lo < end && n_free > 0; k++) {
        uintptr_t plo = mpii_page_down(lo), stop = plo + (uintptr_t) MC_RECORD_PAGES * mpii_page_size;
        uintptr_t hi = end < stop ? end : stop;
        uintptr_t phi = mpii_page_up(hi) < bend ? mpii_page_up(hi) : bend;
        if (mpii_guard_add(b, plo, phi, MPII_GUARD_NOACCESS) != 0) {
            mc_stats[MS_UNCHECKED_GUARD]++;
            return;
        }
        mc_record_t *r = &records[free_records[--n_free]];
        int pages = (int) ((phi - plo) / mpii_page_size);
        *r = (mc_record_t){ .lo = lo,
                            .hi = hi,
                            .plo = plo,
                            .block = b,
                            .origin = *o,
                            .used = 1,
                            .guarded = pages >= 64 ? ~0ull : (1ull << pages) - 1 };
        if (k == 0 && hi == end && elem && (hi - lo) / elem <= MC_PRECISE_ELEMS) {
            r->elem = elem;
            r->nelem = (unsigned) ((hi - lo) / elem);
        }
        r->at = mc_tracked;
        active[mc_tracked++] = (int) (r - records);
        lo = hi;
    }
}

/* Whether r guards a page that [lo, hi) touches: the library, or the kernel for it (Open MPI's
 * single-copy process_vm_readv, a read() into the buffer), is about to access those pages, and a
 * kernel access to a guarded page does not fault: it fails (EFAULT, "Read -1 … errno = 14"). So
 * pages count, not bytes: a message received into the rest of a page whose other bytes await
 * their first read (LAMMPS receives its second message right behind its first) opens it too. */
/* Whether [lo, hi) shares a page with r's received bytes (the pages r may guard; not the 64 pages
 * a record could cover: a receive into another buffer a few pages further on ended the watch of a
 * small receive, and its bytes never read were counted as used). */
static int overlaps(const mc_record_t *r, uintptr_t lo, uintptr_t hi)
{
    uintptr_t end =
        mpii_page_up(r->hi) < page_at(r, MC_RECORD_PAGES) ? mpii_page_up(r->hi) : page_at(r, MC_RECORD_PAGES);
    return r->used && r->guarded && r->plo < mpii_page_up(hi) && mpii_page_down(lo) < end;
}

/* [lo, hi) is about to be received into again: what of r lies there and was not read by now
 * never will be. The rest of r stays watched, except on the pages the library is about to write
 * (they open for it: what else they hold counts as used, "never read" stays a lower bound). */
static void received_again(mc_record_t *r, uintptr_t lo, uintptr_t hi)
{
    uint64_t unread = 0;
    if (r->nelem) {
        for (unsigned e = 0; e < r->nelem; e++) {
            uintptr_t a = r->lo + (uintptr_t) e * r->elem;
            if (a >= lo && a + r->elem <= hi && !(r->decided >> e & 1)) {
                r->decided |= 1ull << e;
                unread += r->elem;
            }
        }
    } else {
        for (int p = 0; p < MC_RECORD_PAGES; p++) {
            if (!(r->guarded >> p & 1)) continue;
            uintptr_t a = page_at(r, p), b = a + mpii_page_size;
            uintptr_t x = r->lo > a ? r->lo : a, y = r->hi < b ? r->hi : b;
            if (x < lo) x = lo;
            if (y > hi) y = hi;
            if (y > x) unread += y - x;
        }
    }
    if (unread) report_unread(&r->origin, r->lo, r->hi - r->lo, unread, MC_UNREAD_OVERWRITTEN);
    if (r->nelem) { /* followed element by element on guarded pages the library now needs open */
        stop_watching(r);
        return;
    }
    for (int p = 0; p < MC_RECORD_PAGES; p++)
        if (r->guarded >> p & 1 && page_at(r, p) < hi && lo < page_at(r, p) + mpii_page_size) open_page(r, p);
    if (!r->guarded) finish(r);
}

void mc_unread_library_uses(uintptr_t lo, uintptr_t hi, int dir)
{
    FOR_ACTIVE(r)
    {
        if (!overlaps(r, lo, hi)) continue;
        if (dir == MC_DIR_RECV) {
            received_again(r, lo, hi);
            continue;
        }
        if (r->nelem) { /* the library reads it to send it on: those elements are used */
            for (unsigned e = 0; e < r->nelem; e++)
                if (r->lo + e * r->elem < hi && lo < r->lo + (e + 1) * r->elem) r->decided |= 1ull << e;
            stop_watching(r); /* its page must open for the library (the rest counts as used) */
            continue;
        }
        for (int p = 0; p < MC_RECORD_PAGES; p++) /* the library reads it to send it on: used */
            if (r->guarded >> p & 1 && page_at(r, p) < hi && lo < page_at(r, p) + mpii_page_size) open_page(r, p);
        if (!r->guarded) finish(r);
    }
}

/* A fault inside an MPI call, or in the library's code (owner.c): the library (Open MPI's ob1 unpacking a fragment with
 * opal_convertor_unpack, MPICH's shared-memory copy) touches watched data for a receive or a send
 * whose buffer memcheck could not see at its call (MPI_BOTTOM with absolute addresses, a receive
 * that was not sampled before data was watched on its pages, a user callback). Never the
 * program's access: a write into received bytes means a later receive overwrote them (those not
 * read by now never will be: a hint at the first receive's site); anything else counts as used.
 * The page opens for the rest of the call. */
static int library_fault(uintptr_t a, int write)
{
    int mine = 0;
    FOR_ACTIVE(r)
    {
        if (a < r->plo || a >= page_at(r, MC_RECORD_PAGES)) continue;
        int p = (int) ((a - r->plo) / mpii_page_size);
        if (!(r->guarded >> p & 1)) continue;
        mine = 1;
        mc_stats[MS_LIBRARY_FAULTS]++;
        if (write && a >= r->lo && a < r->hi) { /* the page's unread bytes: one finding at finish */
            uintptr_t lo = page_at(r, p), hi = lo + mpii_page_size;
            if (r->nelem) {
                for (unsigned e = 0; e < r->nelem; e++) {
                    uintptr_t x = r->lo + (uintptr_t) e * r->elem;
                    if (x >= lo && x < hi && !(r->decided >> e & 1)) {
                        r->decided |= 1ull << e;
                        r->overwritten += r->elem;
                    }
                }
                stop_watching(r);
            } else {
                r->overwritten += bytes_on_page(r, p);
                open_page(r, p);
                if (!r->guarded) finish(r);
            }
        } else if (r->nelem) {
            stop_watching(r);
        } else {
            open_page(r, p);
            if (!r->guarded) finish(r);
        }
    }
    return mine;
}

/* Whether a record still guards the page holding a. */
static int watched(uintptr_t a)
{
    FOR_ACTIVE(r)
    {
        if (a < r->plo || a >= page_at(r, MC_RECORD_PAGES)) continue;
        if (r->guarded >> ((a - r->plo) / mpii_page_size) & 1) return 1;
    }
    return 0;
}

int mc_unread_library_fault(void *addr, int write)
{
    return library_fault((uintptr_t) addr, write);
}

int mc_unread_fault(void *addr, int write)
{
    uintptr_t a = (uintptr_t) addr;
    int mine = 0;
    /* inside an MPI call memcheck wraps, or a write by the library's own code outside one (a
     * Fortran binding that calls PMPI_ directly: Open MPI's opal_convertor_unpack in CP2K's
     * MPI_Iallgatherv landing on an earlier MPI_Irecv's data): never the program's write */
    if (mc_in_library || (write && watched(a) && mc_owner_library_fault(mpii_fault_context)))
        return library_fault(a, write);
    FOR_ACTIVE(r)
    {
        if (a < r->plo || a >= page_at(r, MC_RECORD_PAGES)) continue;
        int p = (int) ((a - r->plo) / mpii_page_size);
        if (!(r->guarded >> p & 1)) continue;
        mine = 1;
        if (r->nelem) {
            precise_access(r, a, write);
            continue;
        }
        mc_stats[MS_FAULTS]++;
        r->faults++;
        if (a >= r->lo && a < r->hi) {
            if (write) { /* bytes: what the instruction wrote (0: not decoded) */
                unsigned width = mc_access_width(mpii_fault_context);
                mc_finding_t f = { .kind = MC_WRITE_BEFORE_READ,
                                   .origin = &r->origin,
                                   .addr = a,
                                   .base = r->lo,
                                   .len = r->hi - r->lo,
                                   .bytes = a + width <= r->hi ? width : r->hi - a,
                                   .access = 1,
                                   .ucontext = mpii_fault_context };
                mc_report(&f);
            }
            open_page(r, p);
            if (!r->guarded) finish(r);
        } else if (mc_stats[MS_STEPS]++, ++r->steps > MC_STEP_LIMIT) {
            open_page(r, p); /* other data on the page is hot: stop watching this page */
            if (!r->guarded) finish(r);
        }
    }
    return mine;
}

void mc_unread_access(uintptr_t lo, uintptr_t hi)
{
    /* a system call moves the data (direction unknown): its pages count as used */
    FOR_ACTIVE(r)
    {
        if (!r->guarded || r->plo >= hi || page_at(r, MC_RECORD_PAGES) <= lo) continue;
        for (int p = 0; p < MC_RECORD_PAGES; p++)
            if (r->guarded >> p & 1 && page_at(r, p) < hi && lo < page_at(r, p) + mpii_page_size) open_page(r, p);
        if (!r->guarded) finish(r);
    }
}

void mc_unread_block_released(mpii_block_t *b)
{
    FOR_ACTIVE(r)
    if (r->block == b) finish(r);
}

void mc_unread_finalize(void)
{
    FOR_ACTIVE(r) finish(r);
}

/* memcheck's sampling per call site (sample.h). */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "util.h" /* mpii_now_ns, mpii_xorshift, MPII_LIKELY */
#include "sample.h"

/* A checked operation costs a few mprotect calls (and, for a watched receive, a fault per page
 * read): 15-20 us on this project's VMs, 50x an 8-byte message. So after a site's first
 * MC_ALWAYS operations, checks are spaced to cost about 1/MC_BUDGET of the site's time: the gap
 * to the next check is the check's cost over the site's time per operation since the last one,
 * jittered (0.5-1.5x) so that no loop period aliases with it. Operations that are cheap next to
 * a check (small messages) are checked rarely, expensive ones more often; an operation that took
 * no time at all (a clock that stands still) is never worth a check. The clock is read only when
 * a check is made. */
#define MC_SITES 1024
#define MC_ALWAYS 16
#define MC_BUDGET 128
#define MC_MAX_GAP (1u << 20)
int mc_sample_mode[2] = { 1, 1 };
static mc_check_cost_t check_cost[2]; /* set at start (mc_sample_start) */
static uint64_t (*now)(void) = mpii_now_ns;
static uint64_t rng = 0x9E3779B97F4A7C15ull;
typedef struct {
    uint64_t n, skip, n_last, t_last;
    double debt_ns; /* what checks here cost beyond the model since the last gap was set */
} mc_sampler_t;
static struct {
    void *site;
    mc_sampler_t s[2];
} sites[MC_SITES];

static __attribute__((noinline)) int check_now(mc_sampler_t *s, int what, size_t bytes)
{
    uint64_t t = now();
    if (s->n > 1) { /* the site's first operation only starts its clock */
        double per_op = (double) (t - s->t_last) / (double) (s->n - s->n_last);
        double cost = check_cost[what].check_ns + check_cost[what].page_ns * (double) (bytes / 4096 + 1) + s->debt_ns;
        s->debt_ns = 0;
        double gap = per_op > 0 ? cost * MC_BUDGET / per_op : MC_MAX_GAP;
        gap *= 0.5 + (double) (mpii_xorshift(&rng) >> 11) / (double) (1ull << 53);
        s->skip = gap < 1 ? 0 : gap > MC_MAX_GAP ? MC_MAX_GAP : (uint64_t) gap;
    }
    s->t_last = t;
    s->n_last = s->n;
    return 1;
}

int mc_sampled(void *site, int what, size_t bytes)
{
    if (mc_sample_mode[what] != 1) return mc_sample_mode[what];
    unsigned h = (unsigned) ((uintptr_t) site >> 3) & (MC_SITES - 1);
    for (int i = 0; i < MC_SITES; i++, h = (h + 1) & (MC_SITES - 1)) {
        if (sites[h].site == site || !sites[h].site) {
            sites[h].site = site;
            mc_sampler_t *s = &sites[h].s[what];
            s->n++;
            /* the first starts the site's clock; the 16th sets the first gap */
            if (s->n < MC_ALWAYS) return s->n > 1 ? 1 : check_now(s, what, bytes);
            if (MPII_LIKELY(s->skip > 0)) {
                s->skip--;
                return 0;
            }
            return check_now(s, what, bytes);
        }
    }
    return 0; /* more call sites than the table holds: the rest are not checked */
}

void mc_sample_charge(void *site, int what, unsigned faults)
{
    if (mc_sample_mode[what] != 1 || !faults) return;
    unsigned h = (unsigned) ((uintptr_t) site >> 3) & (MC_SITES - 1);
    for (int i = 0; i < MC_SITES && sites[h].site; i++, h = (h + 1) & (MC_SITES - 1))
        if (sites[h].site == site) {
            sites[h].s[what].debt_ns += (double) faults * check_cost[what].page_ns;
            return;
        }
}

/* Time of one mprotect of `pages` pages inside a mapping (the kernel splits and merges it each
 * time, as for a guard), in ns. */
static double mprotect_ns(size_t pages)
{
    size_t page = (size_t) sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, (pages + 2) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 5000;
    memset(p, 1, (pages + 2) * page);
    uint64_t t = mpii_now_ns();
    for (int i = 0; i < 8; i++) {
        mprotect(p + page, pages * page, PROT_READ);
        mprotect(p + page, pages * page, PROT_READ | PROT_WRITE);
    }
    double ns = (double) (mpii_now_ns() - t) / 16;
    munmap(p, (pages + 2) * page);
    return ns;
}

/* The cost of a check, from mprotect calls measured at start. A guarded pending operation makes
 * ~4 calls over its pages (guard, open and close around a progressing call, release) and ~2 more
 * in kernel round trips; a watched receive ~3 calls, and a fault (a kernel round trip, a signal,
 * an mprotect, often a single step: ~3 calls' worth in a VM) on every page the program reads.
 * Measured on this project's VMs: 15-20 us for an 8-byte message, milliseconds to watch 1 MiB. */
void mc_sample_measure_cost(mc_check_cost_t cost[2])
{
    double one = mprotect_ns(1), per_page = (mprotect_ns(65) - one) / 64;
    if (per_page < 0) per_page = 0;
    cost[MC_SAMPLE_PENDING] = (mc_check_cost_t){ 6 * one, 4 * per_page };
    cost[MC_SAMPLE_UNREAD] = (mc_check_cost_t){ 6 * one, 3 * per_page + 4 * one };
}

void mc_sample_start(uint64_t (*clock)(void), const mc_check_cost_t cost[2])
{
    now = clock;
    check_cost[0] = cost[0];
    check_cost[1] = cost[1];
}

/* overlap's adaptive mode: per call site, does the background version pay? (adaptive.c)
 * MPI-free and clock-free: the caller passes the time, so tests drive it with a made-up clock. */
#ifndef MPII_OVERLAP_ADAPTIVE_H
#define MPII_OVERLAP_ADAPTIVE_H
#include <stdint.h>

#define OV_SITES 256
#define OV_PAIRS 4 /* blocks per mode compared pairwise: background block i vs plain block i */
/* A receive finished less than this long after it was posted, with no other converted call in
 * between, had nothing to hide behind: the method's fault, mprotect and copies (a few µs each
 * here) were pure cost. Also the gap below which a chain end is worth waiting at. */
#define OV_HIDE_NS 20000u
#define OV_UNHIDDEN 3      /* such receives in a row, none hidden, and a site is given up at once */
#define OV_RECHECK_CALLS 4 /* a doubtful first decision is explored again this many calls later (adaptive.c) */

/* Why a site runs as it does (its latest decision), for the report's per-site lines. */
enum {
    OV_WHY_EXPLORING,    /* no decision yet: blocks of each mode take turns */
    OV_WHY_UNHIDDEN,     /* plain: its background receives were touched at once, nothing hidden */
    OV_WHY_EARLY_SLOWER, /* plain: slower in the background by the early margin (1.25x or 1.5x) */
    OV_WHY_EARLY_FASTER, /* background: 1.25x faster in its first blocks, long periods */
    OV_WHY_WON,          /* background: won every block pair, 5 % faster over all */
    OV_WHY_NOT_WON,      /* plain: lost a block pair, or less than 5 % faster (in doubt, plain) */
};
#define OV_WHY_NAMES "exploring", "unhidden", "early-slower", "early-faster", "won", "not-won"

enum { OV_EXPLORE, OV_EXPLOIT }; /* a site's state: blocks of each mode take turns, or decided */

typedef struct {
    void *addr;
    uint8_t state, on, mode_prev, mode_prev2;
    uint8_t why;         /* OV_WHY_* of the latest decision */
    uint32_t background; /* calls run in the background, all told */
    uint32_t decisions;
    uint64_t decided_period[2]; /* the mean periods (ns) of each mode (plain, background) that
                                 * the latest decision compared (0: it compared none) */
    uint32_t calls, until, backoff;
    uint32_t phase; /* calls since this exploration began: its blocks start at 0 */
    uint64_t t_last;
    uint64_t block[2][OV_PAIRS]; /* nanoseconds of the periods that followed a call in each mode,
                                  * by block (three per block) */
    uint64_t max[2];             /* the longest of them (left out of the final comparison: one stall) */
    uint8_t max_block[2];        /* the block that holds it */
    uint32_t n[2];
    /* per mode, the shortest and longest of the periods no other site changed mode in
     * (adaptive.c): an early decision on the modes apart looks at these */
    uint64_t unmixed_min[2], unmixed_max[2];
    uint16_t unmixed_n[2];
    uint8_t ran_on;            /* the mode of its latest call, decided or exploring */
    uint32_t switches_at;      /* the count of mode changes of all sites right after its latest call */
    uint16_t unhidden, hidden; /* this exploration's background receives, by what they hid */
    uint64_t explore_t0;       /* the first clock read of the latest exploration (0: none yet) */
    uint64_t explore_t1;       /* its second (0: none yet): its first period ends there */
    uint64_t decided_t;        /* the clock at the latest decision (0: none, or the give-up rule's) */
    uint8_t rechecked;         /* a doubtful first decision was sent to explore again (adaptive.c) */
} ov_site_t;

/* The site record of a call site (created on first use), NULL when the table is full. */
ov_site_t *ov_site_of(void *addr);
/* The table of sites (OV_SITES rows, addr NULL: empty), for the report at the end. */
const ov_site_t *ov_sites(void);
/* Whether this call of site s runs in the background; `now` in ns (read only while exploring:
 * pass a function so a decided site costs no clock read). */
int ov_site_on(ov_site_t *s, uint64_t (*now)(void));
/* A background receive of site s finished: `hidden` 0 when it had nothing to hide behind
 * (ov_receive_hid). */
void ov_site_receive_done(ov_site_t *s, int hidden);
/* Whether a receive posted at t_post and finished at t_done hid anything: other converted calls
 * were made meanwhile (concurrent transfers), or the program computed long enough. */
static inline int ov_receive_hid(uint64_t t_post, uint64_t t_done, uint64_t calls_between)
{
    return calls_between > 0 || t_done - t_post >= OV_HIDE_NS;
}

#endif

/* memcheck's sampling per call site (sample.c): a site's first 16 operations are checked, then as
 * many as cost about 1/128 of the site's time (mode 1), or every one (mode 2), or none (mode 0).
 * `what`: MC_SAMPLE_PENDING or MC_SAMPLE_UNREAD. */
#ifndef MPII_MEMCHECK_SAMPLE_H
#define MPII_MEMCHECK_SAMPLE_H
#include <stddef.h>
#include <stdint.h>

enum { MC_SAMPLE_PENDING, MC_SAMPLE_UNREAD };
extern int mc_sample_mode[2];
int mc_sampled(void *site, int what, size_t bytes); /* bytes: what the check covers (its cost grows with it) */
/* A check at `site` took `faults` faults more than its pages (the model's one per page): a watched
 * receive on a page whose other data is hot steps the program over every access (up to 256),
 * which costs a hundred times what the model says. The next gap at that site pays for them. */
void mc_sample_charge(void *site, int what, unsigned faults);
/* What one check costs (ns), per kind: `check_ns`, plus `page_ns` per page it covers. */
typedef struct {
    double check_ns, page_ns;
} mc_check_cost_t;
/* What a check costs here, from mprotect calls timed now (at start, page engine only). */
void mc_sample_measure_cost(mc_check_cost_t cost[2]);
/* Start sampling with the clock the spacing reads and the checks' cost. memcheck.c gives
 * mpii_now_ns and the measured cost, or a clock that stands still (MPII_CLOCK=frozen: an
 * operation then takes no time, so after a site's first 16 nothing is checked, by counts alone);
 * test/programs/memcheck_sample_unit.c gives a made-up clock and cost. */
void mc_sample_start(uint64_t (*clock)(void), const mc_check_cost_t cost[2]);
#endif

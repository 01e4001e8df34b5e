/* memcheck_sample_unit.c - memcheck's sampling per call site (preload/tools/memcheck/sample.c)
 * driven with a made-up clock and check cost, no MPI: built with cc by
 * test/memcheck-sample.unit.test.ts.
 *
 *   memcheck_sample_unit OPS OP_NS CHECK_NS [FAULTS [MODE]]
 *
 * One call site makes OPS operations of 8 bytes. Each takes OP_NS on the clock, and each checked
 * one also its check: CHECK_NS (one page) and, if FAULTS is given, that many faults more than the
 * model's one per page, each charged to the site (mc_sample_charge) at PAGE_NS = CHECK_NS / 4.
 * OP_NS 0 with CHECK_NS 0 is a clock that stands still. MODE: 1 sample (default), 2 all, 0 none.
 * A second site makes one operation per 1000 of the first's (its checks take no time here), so
 * its operations each take the time of 1000 of the first's. Prints one line:
 *   checked=<the first site's checked operations> first=<of its first 16, how many were checked>
 *   share_ppm=<the checks' time, faults included, over all the clock's time, parts per million>
 *   other=<the second site's checked operations> other_ops=<its operations> */
#include <stdio.h>
#include <stdlib.h>
#include "sample.h"

static uint64_t clock_ns = 1;

static uint64_t made_up_clock(void)
{
    return clock_ns;
}

int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    long ops = atol(argv[1]);
    uint64_t op_ns = (uint64_t) atoll(argv[2]), check_ns = (uint64_t) atoll(argv[3]);
    unsigned faults = argc > 4 ? (unsigned) atoi(argv[4]) : 0;
    int mode = argc > 5 ? atoi(argv[5]) : 1;
    double page_ns = (double) check_ns / 4;
    /* the model's cost of an 8-byte check: check_ns + page_ns for its one page */
    mc_check_cost_t cost = { (double) check_ns - page_ns, page_ns };
    mc_check_cost_t costs[2] = { cost, cost };
    mc_sample_start(made_up_clock, costs);
    mc_sample_mode[MC_SAMPLE_PENDING] = mode;
    static char site, other_site;
    long checked = 0, first = 0, other = 0, other_ops = 0;
    uint64_t checks_ns = 0;
    for (long i = 0; i < ops; i++) {
        clock_ns += op_ns;
        if (mc_sampled(&site, MC_SAMPLE_PENDING, 8)) { /* 1, or 2 in mode all */
            uint64_t spent = check_ns + (uint64_t) (faults * page_ns);
            clock_ns += spent;
            checks_ns += spent;
            checked++;
            if (i < 16) first++;
            mc_sample_charge(&site, MC_SAMPLE_PENDING, faults);
        }
        if (i % 1000 == 999) {
            other_ops++;
            other += !!mc_sampled(&other_site, MC_SAMPLE_PENDING, 8);
        }
    }
    printf("checked=%ld first=%ld share_ppm=%.0f other=%ld other_ops=%ld\n", checked, first,
           clock_ns > 1 ? 1e6 * (double) checks_ns / (double) (clock_ns - 1) : 0.0, other, other_ops);
    return 0;
}

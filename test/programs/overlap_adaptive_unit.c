/* overlap_adaptive_unit.c - overlap's adaptive decisions (preload/tools/overlap/adaptive.c) driven
 * with a made-up clock, no MPI: built with `cc -I preload/tools/overlap` by
 * test/overlap-decisions.test.ts.
 *
 *   overlap_adaptive_unit SCENARIO CALLS
 *
 * One call site is called CALLS times; between two calls the clock advances by the period of the
 * mode the call ran in (background or plain), and every background call's receive is reported
 * finished as the scenario says. Prints one line:
 *   background=<calls run in the background> first_off=<call at which the site first went off, 0 never>
 *   first_decision=<call at which the site was first decided>
 *   unhidden_giveups=<sites given up by the rule> decisions=<decisions> on=<final state>
 *   why=<OV_WHY_* of the latest decision> site_background=<the site's own count of background calls>
 *   site_decisions=<its decisions> plain_ns= background_ns=<the mean periods the latest decision compared>
 * Scenarios:
 *   randomaccess   receive touched at once (1 µs later, no call between); background period 1.2x
 *                  plain (the method's cost on a small message: below the 1.25x of the early rule)
 *   randomaccess-unreported   the same periods, no receive reported (what the give-up rule adds)
 *   halo           receive touched after 2 ms of computation; background period 0.6x plain
 *   between        receive touched 1 µs later but after another call (SOR's first of two shifts);
 *                  background 0.7x plain
 *   tie            receive hidden (2 ms) but the background no faster (equal periods)
 *   slower         receive hidden (2 ms) but the background 1.3x slower (SOR on a fast link:
 *                  the method's cost per message above what it hides)
 *   halo-short     as halo, in a 40 µs loop (periods too short for an early decision)
 *   halo-stall     halo-short with the background 0.9x plain, and one period of the first
 *                  background block 20 µs longer (another site's mode switch, a lost time
 *                  slice): that block alone is slower than its plain pair
 *   noisy-start    a ~100 µs loop (plain 100 µs) whose background is 1.2x slower (120 µs) but
 *                  whose first background periods were 60, 60 and 105 µs: 1.25x faster as means
 *   fast-start     the same first periods, then 60 µs: the background is faster
 * Two sites, A and B, each called once per step (A first, B half a step later), B's first call two
 * steps after A's (so their blocks are shifted by two calls), receives hidden; a step's time
 * depends on both sites' modes in it (A, B: background 1, plain 0), µs:
 *   mix            (1,1) 90, (0,0) 100, (1,0) 110, (0,1) 115: issue 33's MPICH stencil, where
 *                  each site's exploration saw the other's blocks too: A wins, B is in doubt,
 *                  and A background with B plain is slower than both uniform choices
 *   mix-fine       the same but (1,0) 90: beside A in the background, B's mode makes no difference
 *   mix-tie        every step 100: both in doubt, neither in the background (nobody explores again)
 * Their line: a=<A's on> b=<B's on> b_decisions= b_why= rechecked=<ST_SITES_RECHECKED>
 *   last_step_us=<the last step's time>
 *   halo-pair      a halo exchange of two sites in one loop, B right after A from the first step
 *                  (blocks in step), then 11 ms of computation; a plain exchange costs its 3 ms
 *                  transfer, a background one hides it: B's period from one call to the next
 *                  holds A's next exchange, so each of B's blocks ends with a period past A's
 *                  switch (bench/overlap-net.mjs halo-50m). Its line: a= b= a_why= b_why=
 *                  a_first=<call of A's first decision> b_first=
 *   heavy-pair     the same loop (8 ms of computation) where a background exchange costs 1.8 ms
 *                  and a plain one 1 ms: 1.16x slower in the background, below the early 1.25x
 *                  (halo-large-inf: 512 KiB rows on a link too fast to hide them)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"
#include "adaptive.h"

uint64_t stats[ST_COUNT];
uint64_t *ov_stats = stats;
int ov_mode = OV_ADAPTIVE;

static uint64_t clock_ns = 1000000;
static uint64_t now(void) { return clock_ns; }

/* The two-site scenarios: `calls` steps. */
static int two_sites(const char *sc, long calls)
{
    int tie = !strcmp(sc, "mix-tie");
    double t_mix = !strcmp(sc, "mix") ? 110000 : !strcmp(sc, "mix-fine") ? 90000 : tie ? 100000 : 0;
    if (!t_mix) return 2;
    const double step_us[2][2] = { { 100000, tie ? 100000 : 115000 }, { t_mix, tie ? 100000 : 90000 } }; /* [A][B] */
    ov_site_t *a = ov_site_of((void *) 0x401234), *b = ov_site_of((void *) 0x405678);
    double last = 0;
    for (long i = 1; i <= calls; i++) {
        int on_a = ov_site_on(a, now);
        if (on_a) ov_site_receive_done(a, 1);
        clock_ns += (uint64_t) (last / 2);
        int on_b = 0; /* B has not started: plain */
        if (i > 2) {
            on_b = ov_site_on(b, now);
            if (on_b) ov_site_receive_done(b, 1);
        }
        last = step_us[on_a][on_b];
        clock_ns += (uint64_t) (last / 2);
    }
    printf("a=%d b=%d b_decisions=%u b_why=%d rechecked=%llu last_step_us=%.0f\n", a->on, b->on, b->decisions, b->why,
           (unsigned long long) stats[ST_SITES_RECHECKED], last / 1000);
    return 0;
}

/* halo-pair, heavy-pair: `calls` steps */
static int pair(const char *sc, long calls)
{
    int heavy = !strcmp(sc, "heavy-pair");
    const uint64_t exchange[2] = { heavy ? 1000000 : 3000000, heavy ? 1800000 : 0 }; /* [on] */
    const uint64_t compute = heavy ? 8000000 : 11000000;
    ov_site_t *a = ov_site_of((void *) 0x401234), *b = ov_site_of((void *) 0x405678);
    long a_first = 0, b_first = 0;
    for (long i = 1; i <= calls; i++) {
        int on_a = ov_site_on(a, now);
        if (on_a) ov_site_receive_done(a, 1);
        if (!a_first && a->decisions) a_first = i;
        clock_ns += exchange[on_a];
        int on_b = ov_site_on(b, now);
        if (on_b) ov_site_receive_done(b, 1);
        if (!b_first && b->decisions) b_first = i;
        clock_ns += exchange[on_b] + compute;
    }
    printf("a=%d b=%d a_why=%d b_why=%d a_first=%ld b_first=%ld\n", a->on, b->on, a->why, b->why, a_first, b_first);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    const char *sc = argv[1];
    long calls = atol(argv[2]);
    if (!strncmp(sc, "mix", 3)) return two_sites(sc, calls);
    if (!strcmp(sc, "halo-pair") || !strcmp(sc, "heavy-pair")) return pair(sc, calls);
    double plain = 100000, bg; /* ns per period */
    uint64_t gap = 1000, between = 0, stall = 0;
    long stall_after = 0; /* the call after which the clock stalls once */
    int report = 1, set_start = 0;
    if (!strcmp(sc, "randomaccess")) bg = 1.2 * plain;
    else if (!strcmp(sc, "randomaccess-unreported")) bg = 1.2 * plain, report = 0;
    else if (!strcmp(sc, "halo")) bg = 0.6 * plain, gap = 2000000;
    else if (!strcmp(sc, "between")) bg = 0.7 * plain, between = 1;
    else if (!strcmp(sc, "tie")) bg = plain, gap = 2000000;
    else if (!strcmp(sc, "slower")) bg = 1.3 * plain, gap = 2000000;
    else if (!strcmp(sc, "halo-short")) plain = 40000, bg = 0.6 * plain, gap = 30000;
    else if (!strcmp(sc, "halo-stall")) plain = 40000, bg = 0.9 * plain, gap = 30000, stall_after = 3, stall = 20000;
    else if (!strcmp(sc, "noisy-start")) bg = 1.2 * plain, gap = 30000, set_start = 1;
    else if (!strcmp(sc, "fast-start")) bg = 0.6 * plain, gap = 30000, set_start = 1;
    else return 2;
    /* the periods after the first block's calls 2-4 (the three it counts), where a scenario sets them */
    const double start[3] = { 60000, 60000, 105000 };
    ov_site_t *s = ov_site_of((void *) 0x401234);
    long background = 0, first_off = 0, first_decision = 0;
    for (long i = 1; i <= calls; i++) {
        int on = ov_site_on(s, now);
        if (!first_decision && stats[ST_DECISIONS]) first_decision = i;
        if (on) {
            background++;
            if (report) ov_site_receive_done(s, ov_receive_hid(clock_ns, clock_ns + gap, between));
        } else if (!first_off) {
            first_off = i;
        }
        double period = set_start && i >= 2 && i <= 4 ? start[i - 2] : on ? bg : plain;
        clock_ns += (uint64_t) period + (i == stall_after ? stall : 0);
    }
    printf("background=%ld first_off=%ld first_decision=%ld unhidden_giveups=%llu decisions=%llu on=%d why=%d site_background=%u "
           "site_decisions=%u plain_ns=%llu background_ns=%llu\n",
           background, first_off, first_decision, (unsigned long long) stats[ST_SITES_UNHIDDEN], (unsigned long long) stats[ST_DECISIONS], s->on,
           s->why, s->background, s->decisions, (unsigned long long) s->decided_period[0], (unsigned long long) s->decided_period[1]);
    return 0;
}

/* overlap's adaptive mode: per call site, is the background version faster? (adaptive.h)
 *
 * Each site alternates blocks of OV_BLOCK calls with and without the method and compares the
 * mean period from one of its calls to the next in each mode; a site is called several times per
 * loop iteration, so single periods range from back-to-back calls to a whole computation phase:
 * means over whole blocks compare the loop with and without the method.
 *
 * Give-up rule (issue 22, HPCC RandomAccess): a site whose background receives are touched as soon
 * as the call returns (no other converted call, less than OV_HIDE_NS) hides nothing; the method
 * only adds its costs. OV_UNHIDDEN of them in a row, none hidden, and the site is switched off at
 * once, before the periods have a say: the first block pays for three receives, not for a whole
 * exploration of 24 calls. The re-check after the backoff still looks again.
 *
 * Early decisions, after OV_EARLY periods of each mode: 1.5x slower in the background and the
 * site goes plain; where the plain period is 100 µs or more (a full exploration would take a
 * short job's first iterations), 1.25x slower already, and 1.25x faster keeps it in the
 * background if the modes' unmixed periods (no other site switched inside) are apart. Apart the
 * other way, the sites that explored meanwhile in step, it goes plain at any margin. In between,
 * the full exploration decides (in doubt, plain).
 *
 * Sites decide alone, but they run together: while a site explores, the others explore too (their
 * blocks take turns with its own, in step or shifted by a few calls) or keep their decisions, and
 * its periods are the loop's as they all ran. A site that ends in doubt (not-won) beside another
 * one that took turns while it explored and went background (before or after it) measured a mix
 * that no longer runs: issue 33's MPICH stencil (st2-256k-pairs) left rank 0's send plain, in
 * doubt while its partners took turns, and every other site background, and that mix was slower
 * than both uniform choices (20.0 ms a step against 18.3 all-background, 19.2 all-plain). Such a
 * site explores once more OV_RECHECK_CALLS calls later, the others settled: then its blocks
 * compare the combination as decided with itself in the background. */
#include <string.h>
#include "stats.h"
#include "adaptive.h"

#define OV_BLOCK 4                    /* calls per exploration block; the modes take turns */
#define OV_SAMPLES 12                 /* periods per mode before a decision (4 blocks each) */
#define OV_EARLY 3                    /* periods per mode after which a clear loser is dropped at once */
#define OV_MAX_PERIOD 1000000000ull   /* a period above 1 s is a stall, not the method's doing */
#define OV_EARLY_MIN_PERIOD 100000ull /* 1.25x decides early only where exploring is long */
#define OV_EARLY_UNMIXED 2            /* unmixed periods per mode a decision on the modes apart needs */

static ov_site_t sites[OV_SITES];
/* How many times any site's call ran in another mode than its previous call. A period of one site
 * in which this moved is mixed: another site switched inside it. Sites called once per iteration
 * take turns in step, but a site called after another one in the iteration has each block's last
 * period end past that one's switch (halo-50m: the second Sendrecv's last background period held
 * the first one's plain exchange, its last plain period the first one's background exchange). */
static uint32_t switches;

ov_site_t *ov_site_of(void *addr)
{
    for (unsigned i = 0, h = (unsigned) ((uintptr_t) addr >> 2) & (OV_SITES - 1); i < OV_SITES;
         i++, h = (h + 1) & (OV_SITES - 1)) {
        if (sites[h].addr == addr) return &sites[h];
        if (!sites[h].addr) {
            sites[h] = (ov_site_t){ .addr = addr, .state = OV_EXPLORE, .on = 1, .backoff = 256 };
            ov_stats[ST_SITES]++;
            return &sites[h];
        }
    }
    return NULL;
}

const ov_site_t *ov_sites(void)
{
    return sites;
}

/* The mean period of mode m so far, ns (0 when none was measured). */
static uint64_t mean_period(const ov_site_t *s, int m)
{
    uint64_t sum = 0;
    for (int i = 0; i < OV_PAIRS; i++) sum += s->block[m][i];
    return s->n[m] ? sum / s->n[m] : 0;
}

/* How many of mode m's periods block i holds: three, the last block all past the others'. */
static uint64_t block_periods(const ov_site_t *s, int m, int i)
{
    uint64_t n = s->n[m], first = 3 * (uint64_t) i;
    if (n <= first) return 0;
    return i == OV_PAIRS - 1 || n - first < 3 ? n - first : 3;
}

/* Whether background block i beat plain block i, as means, each block without its mode's longest
 * period if it holds it: the stall the overall comparison leaves out too (another site's switch of
 * mode, a time slice lost), which alone would lose the pair. */
static int block_won(const ov_site_t *s, int i)
{
    uint64_t sum[2], n[2];
    for (int m = 0; m < 2; m++) {
        sum[m] = s->block[m][i];
        n[m] = block_periods(s, m, i);
        if (i == s->max_block[m] && n[m] > 1) sum[m] -= s->max[m], n[m]--;
    }
    return sum[1] * n[0] < sum[0] * n[1];
}

/* Whether site d is in doubt beside site b: d's first exploration ended not-won (plain), it has
 * not explored again, and b, now in the background, took turns while d explored (their
 * explorations overlapped): d's blocks measured b in both modes, and b no longer runs plain. */
static int in_doubt_beside(const ov_site_t *d, const ov_site_t *b)
{
    return d != b && d->addr && b->addr && d->state == OV_EXPLOIT && d->why == OV_WHY_NOT_WON && d->decisions == 1 &&
           !d->rechecked && b->state == OV_EXPLOIT && b->on && b->decided_t >= d->explore_t0 &&
           b->explore_t0 <= d->decided_t;
}

/* Whether every other site that explored while s did took turns in step with it: began its
 * exploration within s's first period (the same iteration of the loop), and, if still exploring,
 * is at the same call of its blocks or one ahead (called just before s in that iteration). Then
 * s's unmixed periods compared all of them in one mode with all of them in the other; a site
 * shifted by some calls (unit scenario mix) was measured by s's blocks in both modes, and a loss
 * there may be the mix's, not s's. A scan, only where an early loss is in view. */
static int in_step(const ov_site_t *s)
{
    uint64_t first = s->explore_t1 - s->explore_t0;
    for (int i = 0; i < OV_SITES; i++) {
        const ov_site_t *o = &sites[i];
        if (o == s || !o->addr) continue;
        int exploring = o->state == OV_EXPLORE && o->explore_t0;
        if (!exploring && (o->state == OV_EXPLORE || o->decided_t < s->explore_t0)) continue; /* not beside s */
        if (o->explore_t0 + first <= s->explore_t0 || o->explore_t0 >= s->explore_t1) return 0;
        if (exploring && o->phase != s->phase && o->phase != s->phase + 1) return 0;
    }
    return 1;
}

/* d explores again OV_RECHECK_CALLS calls from now, the others settled */
static void recheck(ov_site_t *d)
{
    d->rechecked = 1;
    d->until = d->calls + OV_RECHECK_CALLS;
    ov_stats[ST_SITES_RECHECKED]++;
}

/* t: the clock now (0 from the give-up rule, which reads none) */
static void decide(ov_site_t *s, int on, int why, uint64_t t)
{
    s->why = (uint8_t) why;
    s->decisions++;
    s->decided_t = t;
    s->decided_period[0] = mean_period(s, 0);
    s->decided_period[1] = mean_period(s, 1);
    int was = s->on;
    s->on = (uint8_t) on;
    if (s->on != was) ov_stats[ST_SITES_OFF] += s->on ? (uint64_t) -1 : 1; /* sites off now */
    ov_stats[ST_DECISIONS]++;
    /* a stable answer is re-checked less and less often */
    s->backoff = (was == s->on && s->backoff < (1u << 16)) ? s->backoff * 2 : 256;
    s->state = OV_EXPLOIT;
    s->until = s->calls + s->backoff;
    /* a doubt beside a site that went background, whichever decided first (rare: a scan) */
    if (why == OV_WHY_NOT_WON && s->decisions == 1) {
        for (int i = 0; i < OV_SITES && !s->rechecked; i++)
            if (in_doubt_beside(s, &sites[i])) recheck(s);
    } else if (on) {
        for (int i = 0; i < OV_SITES; i++)
            if (in_doubt_beside(&sites[i], s)) recheck(&sites[i]);
    }
}

void ov_site_receive_done(ov_site_t *s, int hidden)
{
    if (!s || s->state != OV_EXPLORE) return;
    if (hidden) {
        if (s->hidden < UINT16_MAX) s->hidden++;
    } else if (s->unhidden < UINT16_MAX) {
        s->unhidden++;
    }
}

static int site_mode(ov_site_t *s, uint64_t (*now)(void))
{
    s->calls++;
    if (s->state == OV_EXPLOIT) {
        if (__builtin_expect(s->calls < s->until, 1)) return s->on; /* decided: no clock */
        s->state = OV_EXPLORE;
        s->max[0] = s->max[1] = 0;
        s->max_block[0] = s->max_block[1] = 0;
        memset(s->block, 0, sizeof s->block);
        s->n[0] = s->n[1] = 0;
        s->unmixed_n[0] = s->unmixed_n[1] = 0;
        s->unhidden = s->hidden = 0;
        s->t_last = 0;    /* the period since the last decided call is not charged, */
        s->mode_prev = 2; /* nor the one after the first call of the new exploration */
        s->phase = 0;
        s->explore_t0 = s->explore_t1 = 0;
    }
    if (s->unhidden >= OV_UNHIDDEN && !s->hidden) {
        ov_stats[ST_SITES_UNHIDDEN]++;
        decide(s, 0, OV_WHY_UNHIDDEN, 0);
        return 0;
    }
    uint64_t t = now();
    if (!s->explore_t0) s->explore_t0 = t;
    else if (!s->explore_t1)
        s->explore_t1 = t;
    if (s->t_last && s->mode_prev == s->mode_prev2) {
        uint64_t dt = t - s->t_last;
        int m = s->mode_prev;
        if (dt > OV_MAX_PERIOD) dt = OV_MAX_PERIOD;
        int b = s->n[m] / 3 < OV_PAIRS ? (int) s->n[m] / 3 : OV_PAIRS - 1;
        if (dt > s->max[m]) s->max[m] = dt, s->max_block[m] = (uint8_t) b;
        if (s->switches_at == switches) { /* unmixed: nobody else switched since its last call */
            if (!s->unmixed_n[m] || dt < s->unmixed_min[m]) s->unmixed_min[m] = dt;
            if (!s->unmixed_n[m] || dt > s->unmixed_max[m]) s->unmixed_max[m] = dt;
            if (s->unmixed_n[m] < UINT16_MAX) s->unmixed_n[m]++;
        }
        s->block[m][b] += dt;
        s->n[m]++;
    }
    s->t_last = t;
    if (s->n[0] >= OV_EARLY && s->n[1] >= OV_EARLY) {
        uint64_t sum[2] = { 0, 0 }; /* every period so far, per mode */
        for (int i = 0; i < OV_PAIRS; i++) sum[0] += s->block[0][i], sum[1] += s->block[1][i];
        /* mean on / mean off, without division: on * n_off vs off * n_on */
        uint64_t on = sum[1] * s->n[0], off = sum[0] * s->n[1];
        /* periods of 100 µs and more: a full exploration takes a short job's first iterations,
         * so 1.25x either way decides now; below, 1.5x slower does, and three periods of a
         * 40 µs loop are too few to call a win (testbed: SOR n=256 kept in the background on
         * such a first look, 1.15x of plain) */
        int long_periods = sum[0] >= OV_EARLY_MIN_PERIOD * s->n[0];
        int unmixed = s->unmixed_n[0] >= OV_EARLY_UNMIXED && s->unmixed_n[1] >= OV_EARLY_UNMIXED;
        if (on > off + (long_periods ? off / 4 : off / 2) ||
            (unmixed && s->unmixed_min[1] > s->unmixed_max[0] && in_step(s))) {
            /* slower in the background: stop looking (the re-check after the backoff corrects
             * a first block that only paid the method's warm-up or a stall). A full exploration
             * of such a site ran a short job's first 26 iterations half in the background
             * (issue 22's testbed: SOR at 100 Mbit/s, 30 iterations, 1.22x of plain) */
            /* Or slower by any margin, every unmixed background period longer than every unmixed
             * plain one, the other exploring sites in step: the full exploration keeps the
             * background only where each of its blocks won, so it would end plain too, after 16
             * background calls instead of 4. At 1.16x slower (halo-large-inf: 512 KiB rows on a
             * link too fast to hide them) those 16 of a 60-iteration job made adaptive 1.07x of
             * plain. Not beside a site out of step (unit scenario mix): there the loss may be the
             * mix's, and the full exploration, then the second look at a doubt, find the way out. */
            decide(s, 0, OV_WHY_EARLY_SLOWER, t);
        } else if (long_periods && on + on / 4 < off && unmixed && s->unmixed_max[1] < s->unmixed_min[0]) {
            /* 1.25x faster in the background, and every unmixed background period so far shorter
             * than every unmixed plain one: keep it now. A halo exchange that hides its transfers
             * behind the interior wins from its first block; waiting for 12 periods of each mode
             * ran half of a short job's iterations plain (issue 22's testbed: 30 iterations, all
             * but the last few exploring). The means alone kept MPICH's 4 KiB stencil (st1-4k,
             * ~100 µs steps, paging 1.2x slower) in the background in 3 of 12 site decisions on
             * two fast background periods beside a slow one, for the rest of the run; both modes'
             * periods apart is 1 in 20 by chance for three each. Mixed periods are left out of
             * that test: with them, a site called after another in the loop never had its modes
             * apart (its blocks' last periods hold the other's switch), and halo-50m's second
             * Sendrecv explored a 30-iteration job to its end, adaptive as slow as plain while
             * paging ran 1.56x faster. The re-check after the backoff, and the rule above,
             * correct a first block a stall of one mode decided. */
            decide(s, 1, OV_WHY_EARLY_FASTER, t);
        } else if (s->n[0] >= OV_SAMPLES && s->n[1] >= OV_SAMPLES) {
            /* the background must win each block against the plain block after it (the two ran
             * under the same load), and by 5 % over all, each mode without its longest period
             * (a time slice lost to another process would decide alone): in doubt, stay plain.
             * (Ending at the first lost pair instead made overlap.test.ts's adaptive test lose its
             * receive site under a CPU hog 16 times in 40, against 6 in 60.) */
            int wins = 0;
            for (int i = 0; i < OV_PAIRS; i++) wins += block_won(s, i);
            on = (sum[1] - s->max[1]) * (s->n[0] - 1);
            off = (sum[0] - s->max[0]) * (s->n[1] - 1);
            int won = wins == OV_PAIRS && on < off - off / 20;
            decide(s, won, won ? OV_WHY_WON : OV_WHY_NOT_WON, t);
        }
        if (s->state == OV_EXPLOIT) return s->on;
    }
    /* blocks of four calls, background first: each block then has three periods counted,
     * and block i of one mode is compared with block i of the other */
    int mode = (s->phase++ / OV_BLOCK) % 2 == 0;
    s->mode_prev2 = s->mode_prev;
    s->mode_prev = (uint8_t) mode;
    return mode;
}

int ov_site_on(ov_site_t *s, uint64_t (*now)(void))
{
    int on = site_mode(s, now);
    if (on != s->ran_on) switches++, s->ran_on = (uint8_t) on;
    s->switches_at = switches;
    s->background += (uint32_t) on;
    return on;
}

/* Chain learning (Natvig's chaining method, made safe).
 *
 * Every converted call has a signature (call site, direction, buffer, count, type, peer, tag,
 * communicator). Records link each signature to the one that followed it, with a confidence
 * count, and remember how often it was the last call before the program touched guarded memory
 * (a fault): that is the end of a chain, the point where computation starts. Once a record has
 * been the end `threshold` times, overlap completes every request right after it, so the
 * computation that follows runs without faults.
 *
 * Unlike the thesis, chain members stay guarded: a mispredicted end (its Algorithm 8, where the
 * loop exits before the end arrives) costs a fault, never a wrong answer. Every 32nd time at an
 * end the wait is skipped on purpose; if no fault follows before the next call, the end was
 * wrong and is forgotten.
 *
 * In adaptive mode a chain end is waited at only where the program touched every received buffer
 * within OV_HIDE_NS of the end call: where it computes before touching one of them (a halo exchange
 * updating the interior before the border, or a 1-D stencil whose update reads the upper ghost row
 * first and the lower one last), waiting at the end would serialize that computation behind the
 * transfers, and paging's wait on touch is faster. Every fault until the next converted call
 * counts, not only the first: the first touch of a stencil's update comes at once, the last one
 * after the whole computation (issue 33: adaptive waited at such ends and lost the lower halo's
 * overlap, slower than plain). */
#include <string.h>
#include "stats.h"
#include "state.h" /* ov_threshold */
#include "chain.h"

#define OV_RECORDS 1024 /* power of two */

typedef struct {
    uint64_t sig;       /* 0: empty */
    int next;           /* record that followed last time, -1 */
    uint16_t nextcount; /* how many times in a row it did */
    uint16_t ends;      /* times it was the last call before a fault */
    uint16_t visits;
    uint8_t compute_follows; /* adaptive: at the last fault after it, the program had computed
                              * for OV_HIDE_NS or more: waiting there would lose that overlap */
} ov_record_t;

static ov_record_t records[OV_RECORDS];
static int last = -1;    /* the record of the latest converted call, until a fault or wait */
static int probing = -1; /* an end whose wait was skipped to check it */
static uint64_t last_ns; /* adaptive: when `last` was called */
static int ended = -1;   /* adaptive: the end whose computation phase is running (faults since it) */

static int record_of(uint64_t sig)
{
    sig |= 1; /* 0 marks empty slots */
    for (unsigned i = 0, h = (unsigned) (sig ^ sig >> 29) & (OV_RECORDS - 1); i < OV_RECORDS;
         i++, h = (h + 1) & (OV_RECORDS - 1)) {
        if (records[h].sig == sig) return (int) h;
        if (!records[h].sig) {
            records[h] = (ov_record_t){ .sig = sig, .next = -1 };
            ov_stats[ST_CHAIN_RECORDS]++;
            return (int) h;
        }
    }
    return -1; /* table full: this call is not learned */
}

int ov_chain_call(uint64_t sig, uint64_t (*now)(void))
{
    ended = -1;
    if (probing >= 0) { /* no fault since the skipped wait: it was not a chain end */
        records[probing].ends = 0;
        probing = -1;
    }
    int r = record_of(sig);
    if (r < 0) return 0;
    if (last >= 0) {
        ov_record_t *p = &records[last];
        if (p->next == r) {
            if (p->nextcount < UINT16_MAX) p->nextcount++;
        } else {
            p->next = r;
            p->nextcount = 1;
        }
    }
    last = r;
    if (ov_mode == OV_ADAPTIVE) last_ns = now();
    ov_record_t *rec = &records[r];
    if (ov_mode == OV_PAGING || rec->ends < ov_threshold) return 0;
    if (ov_mode == OV_ADAPTIVE && rec->compute_follows) {
        /* paging's wait on touch keeps the transfers going during that computation (each
         * fault measures the gap again) */
        ov_stats[ST_CHAIN_ENDS_SKIPPED]++;
        return 0;
    }
    if (++rec->visits % 32 == 0) {
        ov_stats[ST_CHAIN_PROBES]++;
        probing = r;
        return 0;
    }
    last = -1;
    return 1; /* the caller completes every request */
}

void ov_chain_fault(uint64_t (*now)(void))
{
    probing = -1;
    if (last < 0) {
        /* a later fault of the same computation phase: computed this long before touching it */
        if (ended >= 0 && now() - last_ns >= OV_HIDE_NS) records[ended].compute_follows = 1;
        return;
    }
    ov_record_t *rec = &records[last];
    if (rec->ends < UINT16_MAX && ++rec->ends == ov_threshold) ov_stats[ST_CHAIN_ENDS]++;
    if (ov_mode == OV_ADAPTIVE) {
        rec->compute_follows = now() - last_ns >= OV_HIDE_NS;
        ended = last;
    }
    last = -1;
}

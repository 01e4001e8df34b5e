/* overlap's chain learning (chain.c): below the requests, which report faults to it; the
 * wrappers (overlap.c) report each converted call and, at a learned chain end, complete every
 * request themselves (so the chain needs nothing of the requests). */
#ifndef MPII_OVERLAP_CHAIN_H
#define MPII_OVERLAP_CHAIN_H
#include <stdint.h>

/* A converted call happened: 1 when it is a chain end, where the caller completes every
 * request (ov_complete_all(ST_WAIT_CHAIN)). `now`: the clock in ns, read only in adaptive mode
 * (a function, so tests drive chain.c with a made-up clock: overlap_chain_unit.c). */
int ov_chain_call(uint64_t signature, uint64_t (*now)(void));
/* The program faulted on a guarded page. */
void ov_chain_fault(uint64_t (*now)(void));
#endif

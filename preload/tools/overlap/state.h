/* overlap's shared state (state.c): the options the lower layers read and the adaptive
 * bookkeeping of the call being converted. Set by overlap.c (the wrappers, top); read by chain.c
 * and requests.c, below it. */
#ifndef MPII_OVERLAP_STATE_H
#define MPII_OVERLAP_STATE_H
#include <stdint.h>
#include "stats.h"
#include "adaptive.h"

extern int ov_tool;           /* this instance's tool id (overlap runs once per process) */
extern int ov_threshold;      /* chain confidence */
extern uint64_t ov_max_bytes; /* larger messages pass through */
/* overlap's clock (ns): mpii_decision_clock(), which stands still with MPII_CLOCK=frozen so
 * that tests of real jobs see the decisions counts make, whatever the machine's load */
extern uint64_t (*ov_now)(void);

/* Adaptive bookkeeping of the call being converted: its site (NULL unless adaptive) and the
 * count of the program's Send/Recv/Sendrecv calls so far, this one included. */
extern ov_site_t *ov_current_site;
extern uint64_t ov_p2p_calls;
#endif

/* overlap_chain_unit.c - overlap's chain learning (preload/tools/overlap/chain.c) driven with a
 * made-up clock, no MPI: built with `cc -I preload/tools/overlap` by
 * test/overlap-adaptive.unit.test.ts.
 *
 *   overlap_chain_unit MODE SCENARIO STEPS          MODE = adaptive | chaining
 *
 * Each step makes two converted calls (two signatures, A then B: a halo exchange with two
 * neighbours) and then computes; where the chain says B is an end the caller completes every
 * request there and the computation takes no fault, otherwise it faults on each received buffer
 * as the scenario says. Prints one line: waits=<steps waited at a chain end> steps=<STEPS>
 * Scenarios:
 *   stencil     the first buffer is touched 1 µs after B, the second 500 µs later (a 1-D stencil
 *               whose update reads the upper ghost row first and the lower one last)
 *   immediate   both buffers touched within 2 µs of B (nothing to hide behind: waiting at the end
 *               saves the faults)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"
#include "state.h"
#include "chain.h"

uint64_t stats[ST_COUNT];
uint64_t *ov_stats = stats;
int ov_mode;
int ov_threshold = 2;

static uint64_t clock_ns = 1000000;
static uint64_t now(void) { return clock_ns; }

int main(int argc, char **argv)
{
    if (argc != 4) return 2;
    ov_mode = !strcmp(argv[1], "chaining") ? OV_CHAINING : OV_ADAPTIVE;
    int stencil = !strcmp(argv[2], "stencil");
    int steps = atoi(argv[3]), waits = 0;
    for (int i = 0; i < steps; i++) {
        ov_chain_call(0xa0, now);
        clock_ns += 5000;
        int end = ov_chain_call(0xb0, now);
        waits += end;
        clock_ns += 1000;
        if (!end) ov_chain_fault(now); /* the first buffer */
        clock_ns += stencil ? 500000 : 1000;
        if (!end) ov_chain_fault(now); /* the second */
        clock_ns += stencil ? 10000 : 500000;
    }
    printf("waits=%d steps=%d\n", waits, steps);
    return 0;
}

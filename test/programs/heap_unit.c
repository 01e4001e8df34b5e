/* heap_unit.c - the page-exclusive heap's block table (preload/core/heap.c) on its own, no MPI:
 * linked with heap.c, so this program's malloc family is the shim's. A seeded random mix of
 * malloc, calloc, realloc, posix_memalign and free over `slots` live allocations, in random and
 * first-in-first-out order; after every operation each live allocation must be found from its
 * first byte, a random interior byte and its last page, exactly, and the table must hold as many
 * blocks as are live. Prints "ops=<n> finds=<n> live=<n> blocks=<n> bad=<n>".
 *
 * Usage: heap_unit [ops=200000] [slots=2000] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "heap.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct {
    unsigned char *p;
    size_t n;
} live_t;

int main(int argc, char **argv)
{
    long ops = argc > 1 ? atol(argv[1]) : 200000, slots = argc > 2 ? atol(argv[2]) : 2000;
    live_t *live = calloc((size_t) slots, sizeof *live); /* before the heap starts: ordinary */
    mpii_heap_start(1);
    long finds = 0, bad = 0, nlive = 0, fifo = 0;
    for (long i = 0; i < ops; i++) {
        /* a phase of first-in-first-out frees every 50,000 operations (communicators made and
         * freed in bulk), random slots otherwise */
        long s = (i / 50000) % 2 ? fifo++ % slots : (long) (next_rand() % (uint64_t) slots);
        live_t *l = &live[s];
        size_t n = 1 + next_rand() % (next_rand() % 4 ? 256 : 40000);
        if (l->p && next_rand() % 3 == 0) {
            l->p = realloc(l->p, n);
            l->n = n;
        } else if (l->p) {
            free(l->p);
            l->p = NULL;
            nlive--;
        } else {
            switch (next_rand() % 3) {
            case 0: l->p = malloc(n); break;
            case 1: l->p = calloc(1, n); break;
            default: if (posix_memalign((void **) &l->p, 64, n)) l->p = NULL;
            }
            l->n = n;
            if (l->p) nlive++;
        }
        if (l->p) memset(l->p, 0xab, l->n);
        if (i % 97) continue; /* a full check now and then: every live allocation */
        for (long k = 0; k < slots; k++) {
            if (!live[k].p) continue;
            unsigned char *at[3] = { live[k].p, live[k].p + next_rand() % live[k].n, live[k].p + live[k].n - 1 };
            for (int j = 0; j < 3; j++) {
                mpii_block_t *b = mpii_heap_find(at[j]);
                finds++;
                if (!b || b->start != (uintptr_t) live[k].p || b->size != live[k].n) bad++;
            }
        }
        if (mpii_heap_blocks != (size_t) nlive) bad++;
    }
    /* an address below every block and one past a block's pages find nothing */
    unsigned char *one = malloc(10);
    if (mpii_heap_find(one + mpii_page_size) && mpii_heap_find(one + mpii_page_size)->start == (uintptr_t) one) bad++;
    if (mpii_heap_find((void *) 4096)) bad++;
    printf("ops=%ld finds=%ld live=%ld blocks=%zu bad=%ld\n", ops, finds, nlive + 1, (size_t) mpii_heap_blocks, bad);
    return bad != 0;
}

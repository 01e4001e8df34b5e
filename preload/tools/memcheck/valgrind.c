/* The Valgrind engine: when the program already runs under Valgrind, page protection is off and
 * the same rules become Memcheck client requests (stock Valgrind: no patched requests needed):
 * pending receive buffers (and send buffers in strict mode) are NOACCESS until completion,
 * received bytes become DEFINED, send buffers are checked for addressability (E1) and
 * definedness (E3), receive buffers for addressability (E2), and MPI_ERROR of a status after a
 * single-completion call is made UNDEFINED (E4): Valgrind then reports any use of it with its own
 * stack trace. Outside Valgrind each request is a few no-op instructions. */
#include "state.h"
#include "valgrind.h"
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>
#else
/* Valgrind's headers are not installed: the shim never detects Valgrind, the page engine runs. */
#define RUNNING_ON_VALGRIND 0
#define VALGRIND_MAKE_MEM_NOACCESS(p, n) ((void) (p), (void) (n))
#define VALGRIND_MAKE_MEM_DEFINED(p, n) ((void) (p), (void) (n))
#define VALGRIND_MAKE_MEM_UNDEFINED(p, n) ((void) (p), (void) (n))
#define VALGRIND_CHECK_MEM_IS_DEFINED(p, n) 0
#define VALGRIND_CHECK_MEM_IS_ADDRESSABLE(p, n) 0
#endif

int mc_valgrind_running(void)
{
    return RUNNING_ON_VALGRIND != 0;
}

static int hidden(const mc_range_t *r)
{
    return r->dir == MC_DIR_RECV || mc_strict;
}

void mc_vg_start(const mc_range_t *r, int nranges)
{
    for (int k = 0; k < nranges; k++)
        if (r[k].lo < r[k].hi && hidden(&r[k])) VALGRIND_MAKE_MEM_NOACCESS((void *) r[k].lo, r[k].hi - r[k].lo);
}

void mc_vg_lift(const mc_range_t *r, int nranges)
{
    /* the library writes received data and reads what it sends: let it */
    for (int k = 0; k < nranges; k++)
        if (r[k].lo < r[k].hi && hidden(&r[k])) VALGRIND_MAKE_MEM_DEFINED((void *) r[k].lo, r[k].hi - r[k].lo);
}

void mc_vg_complete(const mc_range_t *r, int nranges, uint64_t received)
{
    for (int k = 0; k < nranges; k++) {
        if (r[k].lo >= r[k].hi) continue;
        if (r[k].dir == MC_DIR_RECV) {
            /* the bytes that arrived are defined; the rest keep what they had before (defined as far
             * as the library is concerned: Memcheck cannot restore the old state after NOACCESS) */
            VALGRIND_MAKE_MEM_DEFINED((void *) r[k].lo, r[k].hi - r[k].lo);
            (void) received;
        } else if (mc_strict) {
            VALGRIND_MAKE_MEM_DEFINED((void *) r[k].lo, r[k].hi - r[k].lo);
        }
    }
}

void mc_vg_check(const void *p, size_t n, int defined)
{
    if (!n) return;
    if (defined) (void) VALGRIND_CHECK_MEM_IS_DEFINED(p, n);
    else
        (void) VALGRIND_CHECK_MEM_IS_ADDRESSABLE(p, n);
}

void mc_vg_status_error(MPI_Status *st)
{
    if (st && st != MPI_STATUS_IGNORE) VALGRIND_MAKE_MEM_UNDEFINED(&st->MPI_ERROR, sizeof st->MPI_ERROR);
}

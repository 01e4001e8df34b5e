/* trace-count: how many times each rank called each MPI function. The counters live in the
 * rank's profile file (mpii_profile_counters), so a crashed run still reports them. */
#include <stdlib.h>
#include <string.h>
#include "mpii_core.h" /* mpii_next: QMPI_Get_function inlined */
#include "mpii_tool.h"

#define TC_WRAPPER(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND) \
    MPII_HOOK RET tc_##NAME QPARAMS                               \
    {                                                             \
        (void) context;                                           \
        ((uint64_t *) mpii_tool_storage(tool_id))[ID]++;          \
        return MPII_CALL_NEXT_ARGS(tool_id, ID, QTYPE, NEXTARGS); \
    }
MPII_FOREACH_FUNC(TC_WRAPPER)

/* What it wraps (everything) and with which hook: its registration and a specialised stack's
 * both read these two (dispatch.h). */
static inline int mpii_trace_count_wraps(int id)
{
    (void) id;
    return 1;
}
#define TC_HOOK(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND) [ID] = (void (*)(void)) tc_##NAME,
static void (*const mpii_trace_count_hooks[MPII_NFUNCS])(void) = { MPII_FOREACH_FUNC(TC_HOOK) };

/* "MPI_Abort\nMPI_Accumulate\n…": one label per function id, so the CLI can name counters. */
static char *labels(void)
{
    size_t len = 0;
    for (int i = 0; i < MPII_NFUNCS; i++) len += (mpii_fn_info[i].name ? strlen(mpii_fn_info[i].name) : 0) + 1;
    char *s = malloc(len + 1), *p = s;
    if (!s) return NULL;
    for (int i = 0; i < MPII_NFUNCS; i++) {
        const char *n = mpii_fn_info[i].name ? mpii_fn_info[i].name : "";
        size_t l = strlen(n);
        memcpy(p, n, l);
        p[l] = '\n';
        p += l + 1;
    }
    *p = 0;
    return s;
}

void mpii_trace_count_init(int tool_id)
{
    char *names = labels();
    uint64_t *counts = mpii_profile_counters(tool_id, "calls", MPII_NFUNCS, names);
    free(names);
    if (!counts) return; /* no memory at all: stay out of the chain rather than crash */
    QMPI_Register_tool_storage(tool_id, counts);
    mpii_register_hooks(tool_id, mpii_trace_count_wraps, mpii_trace_count_hooks);
}

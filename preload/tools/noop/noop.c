/* noop: wraps every MPI function and only calls the next layer. Used to measure the cost of
 * one layer and to test deep stacks. It registers through the QMPI API like any external tool;
 * only the next-layer lookup is QMPI_Get_function inlined (mpii_next), since it lives in the shim. */
#include "mpii_core.h" /* mpii_next: QMPI_Get_function inlined */

#define NOOP_WRAPPER(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND) \
    MPII_HOOK RET noop_##NAME QPARAMS                               \
    {                                                               \
        return MPII_CALL_NEXT_ARGS(tool_id, ID, QTYPE, NEXTARGS);   \
    }
MPII_FOREACH_FUNC(NOOP_WRAPPER)

/* What it wraps (everything) and with which hook: its registration and a specialised stack's
 * both read these two (dispatch.h). */
static inline int mpii_noop_wraps(int id)
{
    (void) id;
    return 1;
}
#define NOOP_HOOK(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND) [ID] = (void (*)(void)) noop_##NAME,
static void (*const mpii_noop_hooks[MPII_NFUNCS])(void) = { MPII_FOREACH_FUNC(NOOP_HOOK) };

void mpii_noop_init(int tool_id)
{
    mpii_register_hooks(tool_id, mpii_noop_wraps, mpii_noop_hooks);
}

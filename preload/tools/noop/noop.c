/* noop: wraps every MPI function and only calls the next layer. Used to measure the cost of
 * one layer and to test deep stacks. It registers through the QMPI API like any external tool;
 * only the next-layer lookup is QMPI_Get_function inlined (mpii_next), since it lives in the shim. */
#include "mpii_core.h" /* mpii_next: QMPI_Get_function inlined */

#define NOOP_WRAPPER(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND)                 \
    static RET noop_##NAME QPARAMS                                                  \
    {                                                                               \
        return MPII_CALL_NEXT_ARGS(tool_id, ID, QTYPE, NEXTARGS);                   \
    }
MPII_FOREACH_FUNC(NOOP_WRAPPER)

void mpii_noop_init(int tool_id)
{
#define NOOP_REGISTER(RET, NAME, ID, QTYPE, QPARAMS, NEXTARGS, KIND) \
    QMPI_Register_function(tool_id, ID, (void (*)(void)) noop_##NAME);
    MPII_FOREACH_FUNC(NOOP_REGISTER)
}

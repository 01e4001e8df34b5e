/* hello: counts MPI_Barrier calls into the rank's profile file; its options (generated struct)
 * go there too, so the report shows what the tool was given. */
#include "mpii_core.h"
#include "mpii_tool.h"
#include "mpii_options_hello.h" /* generated from tool.yaml */

static uint64_t *counts; /* [0] barriers, [1] greeting, [2] times */
static int me;

static int hello_barrier(QMPI_Context context, int tool_id, MPI_Comm comm)
{
    counts[0]++;
    int next_id;
    void (*next)(void) = mpii_next(tool_id, MPI_BARRIER_T, &next_id);
    return ((QMPI_Barrier_t *) next)(context, next_id, comm);
}

void mpii_hello_init(int tool_id)
{
    mpii_hello_options_t o;
    mpii_hello_options(tool_id, &o);
    me = tool_id;
    counts = mpii_profile_counters(tool_id, "hello", 3, "barriers\ngreeting\ntimes");
    if (!counts) return;
    counts[1] = (uint64_t) o.greeting + 1; /* stored +1: a zero counter is not written */
    counts[2] = (uint64_t) o.times;
    QMPI_Register_function(tool_id, MPI_BARRIER_T, (void (*)(void)) hello_barrier);
}

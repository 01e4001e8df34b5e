/* The tools the MPI library itself was asked to run. An MPICH built with QMPI (--enable-qmpi)
 * dispatches every MPI call through the tools its control variable QMPI_TOOL_LIST names (read from
 * MPIR_CVAR_QMPI_TOOL_LIST, MPIR_PARAM_QMPI_TOOL_LIST or MPICH_QMPI_TOOL_LIST), tools that announce
 * themselves from their constructors with QMPI_Register_tool_name. With the shim in the process,
 * those calls reach the shim, not the library: the shim comes first in the search order. So the
 * shim settles, once per process at its first MPI call (an MPICH with QMPI reads its variables at
 * whichever call comes first, MPI_Initialized too), who runs them:
 *
 *  - mpii's stack runs here: the listed tools join it, on top, with the ids 1..N the library
 *    would give them (tools may index their own arrays by them), and the list leaves the
 *    environment, so the library dispatches nothing and no call goes through a tool twice. This
 *    works on every MPI, with QMPI in the library or not.
 *  - INJ_IGNORE is set: the registrations go on to the library, and every QMPI_ call after them,
 *    so the library runs its tools as it would without mpii (one without QMPI dispatch, Open MPI
 *    or Debian's MPICH, runs none, as without mpii).
 *
 * docs/qmpi.md ("An MPI that runs QMPI tools itself"). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpii_gen.h"
#include "dispatch.h"
#include "env_int.h"
#include "library_tools.h"
#include "log.h"
#include "mpii_env.h"
#include "site.h"

/* MPICH reads them in this order, and the last one set wins. */
static const char *const list_vars[] = {
    MPII_ENV_MPICH_QMPI_TOOL_LIST,
    MPII_ENV_MPIR_PARAM_QMPI_TOOL_LIST,
    MPII_ENV_MPIR_CVAR_QMPI_TOOL_LIST,
};
#define NVARS (sizeof list_vars / sizeof list_vars[0])

static int settled;
static enum mpii_listed_owner owner = MPII_LISTED_NONE;
static char *list;
static const char *list_var;
static mpii_qmpi_lib_t lib;
static const char *decision; /* what was settled, for the debug output */

/* The library's six QMPI functions, or 0 when it lacks one (Open MPI). */
static int library_qmpi(void)
{
#define R(field, name) *(void **) &lib.field = mpii_library_own(name) /* resolve.c: however it was loaded */
    R(register_tool_name, "QMPI_Register_tool_name");
    R(register_tool_storage, "QMPI_Register_tool_storage");
    R(register_function, "QMPI_Register_function");
    R(get_function, "QMPI_Get_function");
    R(get_tool_storage, "QMPI_Get_tool_storage");
    R(get_calling_address, "QMPI_Get_calling_address");
#undef R
    return lib.register_tool_name && lib.register_tool_storage && lib.register_function && lib.get_function &&
           lib.get_tool_storage && lib.get_calling_address;
}

void mpii_library_tools_settle_first(void)
{
    if (settled || mpii_shadowed()) return;
    settled = 1;
    int stack_runs = mpii_env_int(MPII_ENV_INJ_IGNORE, MPII_ENV_INJ_IGNORE_DEFAULT) == 0;
    const char *value = NULL;
    for (size_t i = 0; i < NVARS; i++) {
        const char *v = getenv(list_vars[i]);
        if (v) { /* set, even empty, it wins: MPICH's reading */
            value = v;
            list_var = list_vars[i];
        }
    }
    if (!value || !value[strspn(value, ":")]) return; /* no name in it: MPICH runs no tool */
    list = strdup(value);
    if (stack_runs) {
        owner = MPII_LISTED_STACK;
        for (size_t i = 0; i < NVARS; i++) unsetenv(list_vars[i]);
        decision = "mpii's stack runs these tools, first, as tools 1 to N; the MPI library is not given the list";
        return;
    }
    owner = MPII_LISTED_LIBRARY;
    decision = "with INJ_IGNORE set: the MPI library has no QMPI functions, so no tool runs";
    if (library_qmpi()) {
        mpii_qmpi_forward_to(&lib);
        decision = "with INJ_IGNORE set: the tools' registrations go to the MPI library";
    }
}

/* Said once the debug output is set up (INJ_DEBUG, read at MPI_Init, later than the settling). */
void mpii_library_tools_log(void)
{
    if (decision) mpii_log("%s=%s%s%s", list_var, list, owner == MPII_LISTED_STACK ? ": " : " ", decision);
}

enum mpii_listed_owner mpii_library_tools_owner(void)
{
    return owner;
}

const char *mpii_library_tools_list(const char **var)
{
    if (owner != MPII_LISTED_STACK) return NULL;
    if (var) *var = list_var;
    return list;
}

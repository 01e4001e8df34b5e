/* The MPICH QMPI API on any MPI: tool registration, per-instance storage and the precomputed
 * next-function tables that make one layer cost one table load and one indirect call. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin_tools.h"
#include "dispatch.h"
#include "log.h"
#include "options.h"
#include "profile_file.h"

mpii_slot_t mpii_first[MPII_NFUNCS];
void **mpii_storage;

/* Tools announce themselves with QMPI_Register_tool_name, usually from a library constructor
 * (possibly before this library's own constructors ran), so the registry is static memory. */
#define MPII_MAX_REGISTERED 256
static struct {
    char name[QMPI_MAX_TOOL_NAME_LENGTH];
    void (*init)(int);
} registry[MPII_MAX_REGISTERED];
static int nregistered;

/* The stack: tool ids 1..ntools, the library's listed tools first, then those of TOOLS. */
static int ntools;
static char **tool_names;
static void (**registered_fn)(void); /* [(ntools+1) * MPII_NFUNCS], what each tool wraps */
static mpii_slot_t *next_slot;       /* [MPII_NFUNCS][ntools+1], precomputed chains */
static int tables_ready;
int mpii_spec_on;
/* Defined only in a specialised shim (gen/mpii_spec.c): whether the stack just built is the one
 * compiled into it (the same tools in the same places, each function's chain the same hooks). */
extern int mpii_spec_matches(void) __attribute__((weak, visibility("hidden")));

/* mpii_chain[f][t]: the layer after tool t for function f. One row per function keeps the
 * slots a deep chain walks next to each other (cache lines, TLB). */
mpii_slot_t *mpii_chain[MPII_NFUNCS];

/* Set while the MPI library runs the tools itself (mpii_qmpi_forward_to): every QMPI_ call goes
 * there, and mpii's stack stays empty. */
static const mpii_qmpi_lib_t *forward;

int QMPI_Register_tool_name(const char *tool_name, void (*init_function_ptr)(int tool_id))
{
    if (MPII_UNLIKELY(forward != NULL)) return forward->register_tool_name(tool_name, init_function_ptr);
    if (!tool_name || !init_function_ptr || nregistered == MPII_MAX_REGISTERED) return MPI_ERR_ARG;
    snprintf(registry[nregistered].name, sizeof registry[0].name, "%s", tool_name);
    registry[nregistered].init = init_function_ptr;
    nregistered++;
    return MPI_SUCCESS;
}

int QMPI_Register_tool_storage(int tool_id, void *tool_storage)
{
    if (MPII_UNLIKELY(forward != NULL)) return forward->register_tool_storage(tool_id, tool_storage);
    if (tool_id < 1 || tool_id > ntools) return MPI_ERR_ARG;
    mpii_storage[tool_id] = tool_storage;
    return MPI_SUCCESS;
}

static void build_tables(void);

int QMPI_Register_function(int calling_tool_id, mpii_qmpi_id_t function_enum, void (*function_ptr)(void))
{
    if (MPII_UNLIKELY(forward != NULL))
        return forward->register_function(calling_tool_id, (int) function_enum, function_ptr);
    if (calling_tool_id < 1 || calling_tool_id > ntools) return MPI_ERR_ARG;
    if ((int) function_enum < 0 || (int) function_enum >= MPII_NFUNCS || !mpii_fn_info[function_enum].name)
        return MPI_ERR_ARG;
    registered_fn[(size_t) calling_tool_id * MPII_NFUNCS + function_enum] = function_ptr;
    if (tables_ready) build_tables(); /* registering late (after init) is rare: rebuild */
    return MPI_SUCCESS;
}

int QMPI_Get_function(int calling_tool_id, mpii_qmpi_id_t function_enum, void (**function_ptr)(void), int *next_tool_id)
{
    if (MPII_UNLIKELY(forward != NULL))
        return forward->get_function(calling_tool_id, (int) function_enum, function_ptr, next_tool_id);
    if (MPII_UNLIKELY((unsigned) function_enum >= MPII_NFUNCS || (unsigned) calling_tool_id > (unsigned) ntools))
        return MPI_ERR_ARG;
    if (MPII_UNLIKELY(!tables_ready)) { /* asked during tool init: only the library is there yet */
        *function_ptr = mpii_bottom_fn[function_enum];
        *next_tool_id = 0;
        return MPI_SUCCESS;
    }
    const mpii_slot_t *s = &mpii_chain[function_enum][calling_tool_id];
    *function_ptr = s->fn;
    *next_tool_id = s->id;
    return MPI_SUCCESS;
}

int QMPI_Get_tool_storage(QMPI_Context context, int tool_id, void **storage)
{
    if (MPII_UNLIKELY(forward != NULL)) return forward->get_tool_storage(context, tool_id, storage);
    if (MPII_UNLIKELY((unsigned) tool_id > (unsigned) ntools)) return MPI_ERR_ARG;
    *storage = mpii_storage ? mpii_storage[tool_id] : NULL;
    return MPI_SUCCESS;
}

/* The top-level wrapper puts { storage, return address } on its stack and points the context at
 * it: no global state, so it is correct for nested calls and threads, and costs two stores. */
int QMPI_Get_calling_address(QMPI_Context context, void **address)
{
    if (MPII_UNLIKELY(forward != NULL)) return forward->get_calling_address(context, address);
    *address = context.storage_stack ? (void *) (uintptr_t) mpii_calling_address(context) : NULL;
    return MPI_SUCCESS;
}

/* Walk each function's chain from the bottom up: mpii_chain[f][t] is the first tool below t
 * that wraps f, else the library's QMPI_f. O(ntools * nfuncs), once. */
static void build_tables(void)
{
    for (int f = 0; f < MPII_NFUNCS; f++) {
        mpii_slot_t cur = { mpii_bottom_fn[f], 0 };
        mpii_slot_t *row = mpii_chain[f] = &next_slot[(size_t) f * ((size_t) ntools + 1)];
        for (int t = ntools; t >= 0; t--) {
            row[t] = cur;
            void (*fn)(void) = t > 0 ? registered_fn[(size_t) t * MPII_NFUNCS + f] : NULL;
            if (fn) cur = (mpii_slot_t){ fn, t };
        }
        mpii_slot_t first = row[0];
        mpii_first[f] = first.id > 0 ? first : (mpii_slot_t){ NULL, 0 };
    }
    tables_ready = 1;
    /* a specialised shim runs its compiled-in stack only if it is this one, hook for hook */
    mpii_spec_on = mpii_spec_matches ? mpii_spec_matches() : 0;
}

static int is_path(const char *entry)
{
    size_t n = strlen(entry);
    return strchr(entry, '/') || (n > 3 && strcmp(entry + n - 3, ".so") == 0);
}

/* The registration whose init function lives in the library at `path`. */
static int registration_in(const char *path)
{
    char want[PATH_MAX], have[PATH_MAX];
    if (!realpath(path, want)) return -1;
    for (int i = nregistered - 1; i >= 0; i--) {
        Dl_info info;
        if (dladdr((void *) registry[i].init, &info) && info.dli_fname && realpath(info.dli_fname, have) &&
            strcmp(want, have) == 0)
            return i;
    }
    return -1;
}

static int registration_named(const char *name)
{
    for (int i = 0; i < nregistered; i++)
        if (strcmp(registry[i].name, name) == 0) return i;
    return -1;
}

/* Resolve one TOOLS entry to a registration: a path is dlopen'ed (its constructor registers it);
 * a name is an external tool already registered (linked or preloaded) or a built-in. */
static int resolve_entry(const char *entry)
{
    if (is_path(entry)) {
        int r = registration_in(entry);
        if (r >= 0) return r;
        if (!dlopen(entry, RTLD_NOW | RTLD_GLOBAL)) {
            mpii_error("cannot load tool library %s: %s", entry, dlerror());
            return -1;
        }
        r = registration_in(entry);
        if (r < 0) mpii_error("tool library %s did not call QMPI_Register_tool_name from a constructor", entry);
        return r;
    }
    int r = registration_named(entry);
    if (r >= 0) return r;
    for (const mpii_builtin_t *b = mpii_builtins; b->name; b++) {
        if (strcmp(b->name, entry) == 0) {
            QMPI_Register_tool_name(b->name, b->init);
            return registration_named(entry);
        }
    }
    mpii_error("unknown tool '%s' in TOOLS (not a built-in, not registered, not a .so path)", entry);
    return -1;
}

/* Resolve one entry of the library's tool list: as the library would, a name some loaded library
 * registered. */
static int resolve_listed(const char *entry, const char *var)
{
    int r = registration_named(entry);
    if (r < 0)
        mpii_error("%s names '%s', but no library in this process registered a QMPI tool of that name: preload or link "
                   "the tool's library, or give its path in TOOLS",
                   var, entry);
    return r;
}

/* Appends the registrations of a ':'-separated list to regs[*n]; -1 if one does not resolve. */
static int resolve_list(const char *text, const char *listed_var, int *regs, int *n)
{
    char *list = strdup(text);
    int rc = 0;
    for (char *save = NULL, *tok = strtok_r(list, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
        int r = listed_var ? resolve_listed(tok, listed_var) : resolve_entry(tok);
        if (r < 0) {
            rc = -1;
            break;
        }
        regs[(*n)++] = r;
    }
    free(list);
    return rc;
}

int mpii_build_stack(const char *tools, const char *listed, const char *listed_var)
{
    tools = tools ? tools : "";
    listed = listed ? listed : "";
    int cap = 2;
    for (const char *p = tools; *p; p++) cap += *p == ':';
    for (const char *p = listed; *p; p++) cap += *p == ':';
    int *regs = calloc((size_t) cap, sizeof *regs), *own = calloc((size_t) cap, sizeof *own);
    int nown = 0;
    ntools = 0;
    /* TOOLS first, which may load the libraries the list names; then the library's tools go on
     * top, with the ids 1..N the library would give them (a tool may index its own arrays by
     * them, as MPICH's mpi_t/qmpi_test does), and mpii's after them */
    if (!regs || !own || resolve_list(tools, NULL, own, &nown) != 0 ||
        resolve_list(listed, listed_var, regs, &ntools) != 0) {
        free(regs);
        free(own);
        return -1;
    }
    mpii_options_shift(ntools); /* MPII_OPT_<n> is the n-th tool of TOOLS, now tool id n + the listed ones */
    memcpy(regs + ntools, own, (size_t) nown * sizeof *own);
    ntools += nown;
    free(own);
    mpii_storage = calloc((size_t) ntools + 1, sizeof *mpii_storage);
    tool_names = calloc((size_t) ntools + 1, sizeof *tool_names);
    registered_fn = calloc(((size_t) ntools + 1) * MPII_NFUNCS, sizeof *registered_fn);
    next_slot = calloc(((size_t) ntools + 1) * MPII_NFUNCS, sizeof *next_slot);
    if (!mpii_storage || !tool_names || !registered_fn || !next_slot) {
        mpii_error("out of memory building a stack of %d tools", ntools);
        free(regs);
        return -1;
    }
    tool_names[0] = "mpi";
    /* A tool listed twice gets two ids and its init is called twice: two instances. */
    for (int t = 1; t <= ntools; t++) {
        tool_names[t] = registry[regs[t - 1]].name;
        mpii_profile_add_tool(t, tool_names[t], "");
        registry[regs[t - 1]].init(t);
    }
    free(regs);
    build_tables();
    mpii_log("stack of %d tool%s built", ntools, ntools == 1 ? "" : "s");
    return 0;
}

void mpii_qmpi_forward_to(const mpii_qmpi_lib_t *lib)
{
    for (int i = 0; i < nregistered; i++) lib->register_tool_name(registry[i].name, registry[i].init);
    forward = lib;
}

void mpii_disable_stack(void)
{
    mpii_spec_on = 0;
    memset(mpii_first, 0, sizeof mpii_first);
}

int mpii_tool_count(void)
{
    return ntools;
}

const char *mpii_tool_name(int tool_id)
{
    return tool_id >= 0 && tool_id <= ntools && tool_names ? tool_names[tool_id] : NULL;
}

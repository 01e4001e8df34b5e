/* The QMPI stack (dispatch.c): the chains of every MPI function, per-instance storage, and the
 * one way a built-in tool calls the layer below it (MPII_CALL_NEXT). */
#ifndef MPII_DISPATCH_H
#define MPII_DISPATCH_H
#include <stdint.h>
#include "mpii_gen.h"
#include "log.h"
#include "util.h"

/* One step of a chain: the function to call and the tool id to hand it. */
typedef struct {
    void (*fn)(void);
    int id;
} mpii_slot_t;

/* First tool per MPI function; fn == NULL means "no tool: call the next layer directly". */
extern mpii_slot_t mpii_first[MPII_NFUNCS] __attribute__((visibility("hidden")));
/* mpii_chain[f][t]: the layer after tool t for function f (built before any tool runs). */
extern mpii_slot_t *mpii_chain[MPII_NFUNCS] __attribute__((visibility("hidden")));

/* QMPI_Get_function, inlined for the built-in tools that live inside the shim: the same table,
 * without a call per layer. External tools call QMPI_Get_function. */
static inline void (*mpii_chain_next(int tool_id, int id, int *next_id))(void)
{
    const mpii_slot_t *s = &mpii_chain[id][tool_id];
    *next_id = s->id;
    return s->fn;
}

/* Set while the specialised stack compiled into this shim (gen/mpii_spec.c, when a stack of
 * built-in tools was specialised: docs/architecture.md) is the stack that was built, hook for
 * hook; cleared when the stack is disabled. 0 in the general shim. */
extern int mpii_spec_on __attribute__((visibility("hidden")));

/* mpii_next(tool_id, id, &next_id): the layer below. In the general shim, the chain's table. In a
 * specialised stack (MPII_SPEC, each tool's wrappers compiled with MPII_SPEC_SELF = its place),
 * mpii_spec_next_<place>, generated: while mpii_spec_on, the next tool's hook chosen when the shim
 * was compiled, so a constant ID makes it a direct call the compiler can inline. */
#ifdef MPII_SPEC
#define mpii_next(tool_id, id, next_id) MPII_SPEC_NEXT_OF_(MPII_SPEC_SELF, tool_id, id, next_id)
#define MPII_SPEC_NEXT_OF_(self, tool_id, id, next_id) MPII_SPEC_NEXT_OF__(self, tool_id, id, next_id)
#define MPII_SPEC_NEXT_OF__(self, tool_id, id, next_id) mpii_spec_next_##self(tool_id, id, next_id)
#else
#define mpii_next(tool_id, id, next_id) mpii_chain_next(tool_id, id, next_id)
#endif

/* How a specialisable tool defines its hooks: in a specialised stack inlined into the layer
 * above (each is called from one place there), elsewhere a plain static function. */
#ifdef MPII_SPEC
#define MPII_HOOK static inline __attribute__((always_inline))
#else
#define MPII_HOOK static
#endif

/* A specialisable tool (tool.yaml `specialise`) says which functions it wraps in two definitions
 * that both its registration and the specialised stack use: `static inline int
 * mpii_<tool>_wraps(int id)` and `static void (*const mpii_<tool>_hooks[MPII_NFUNCS])(void)`.
 * This registers hooks[id] for every id it wraps. */
static inline void mpii_register_hooks(int tool_id, int (*wraps)(int), void (*const *hooks)(void))
{
    for (int id = 0; id < MPII_NFUNCS; id++)
        if (hooks[id] && wraps(id)) QMPI_Register_function(tool_id, (mpii_qmpi_id_t) id, hooks[id]);
}

/* The layer below tool `tool_id` for function ID (QMPI typedef QTYPE), called with the wrapper's
 * `context` and the arguments after it; the value is what that layer returned. Every built-in
 * tool calls on through this macro: in the general shim one table load and one indirect call, in a
 * specialised stack a direct call (MPII_CALL_BELOW_). */
#define MPII_CALL_NEXT(tool_id, ID, QTYPE, ...)                                                       \
    ({                                                                                                \
        int mpii_nid_;                                                                                \
        void (*mpii_fn_)(void);                                                                       \
        MPII_CALL_BELOW_(tool_id, ID, QTYPE, mpii_fn_, mpii_nid_, (context, mpii_nid_, __VA_ARGS__)); \
    })

/* The same for wrappers written with MPII_FOREACH_FUNC, whose NEXTARGS name `context` and
 * `next_id`: ((QTYPE *) next) NEXTARGS. */
#define MPII_CALL_NEXT_ARGS(tool_id, ID, QTYPE, NEXTARGS)                  \
    ({                                                                     \
        int next_id;                                                       \
        void (*mpii_fn_)(void);                                            \
        MPII_CALL_BELOW_(tool_id, ID, QTYPE, mpii_fn_, next_id, NEXTARGS); \
    })

/* Both macros' call: the layer's pointer and id into FN and NID first (ARGS read NID), then the
 * call. In a specialised stack the call is written once per branch of mpii_spec_on: the compiled-in
 * branch's callee is then a constant, a direct call the compiler inlines down to the library's
 * function. One call through a pointer that may be either of two layers stays an indirect call
 * (GCC merges the two callees before it inlines): for profile's and monitor's wrappers an extra
 * call and the QMPI arguments' shuffle on every MPI call. */
#ifdef MPII_SPEC
#define MPII_CALL_BELOW_(tool_id, ID, QTYPE, FN, NID, ARGS)                                                         \
    (MPII_LIKELY(mpii_spec_on) ? ((FN) = MPII_SPEC_STATIC_OF_(MPII_SPEC_SELF, (ID), &(NID)), ((QTYPE *) (FN)) ARGS) \
                               : ((FN) = mpii_chain_next((tool_id), (ID), &(NID)), ((QTYPE *) (FN)) ARGS))
#define MPII_SPEC_STATIC_OF_(self, id, next_id) MPII_SPEC_STATIC_OF__(self, id, next_id)
#define MPII_SPEC_STATIC_OF__(self, id, next_id) mpii_spec_static_##self(id, next_id)
#else
#define MPII_CALL_BELOW_(tool_id, ID, QTYPE, FN, NID, ARGS) \
    ((FN) = mpii_chain_next((tool_id), (ID), &(NID)), ((QTYPE *) (FN)) ARGS)
#endif

/* A hook's outlined parts (functions of its own that its wrapper calls, for the rarer cases) take
 * MPII_OUTLINED_PARAMS(QPARAMS), are called with MPII_OUTLINED_ARGS(NEXTARGS) and start with
 * MPII_OUTLINED_CONTEXT. In a specialised stack that is the application's return address in place of
 * the context, the context built again inside: there the context is an array on the stack of the
 * entry point the hook is inlined into, and once its address is passed to a call GCC makes no tail
 * call anywhere in that function (the callee might read the array), so the common case would return
 * through the wrapper, with a stack frame, instead of jumping to the layer below. Elsewhere the
 * context is a parameter, and they take it as it came. */
#define MPII_SKIP_FIRST(first, ...) __VA_ARGS__
#ifdef MPII_SPEC
#define MPII_OUTLINED_PARAMS(QPARAMS) (uint64_t mpii_ra, MPII_SKIP_FIRST QPARAMS)
#define MPII_OUTLINED_ARGS(NEXTARGS) (mpii_return_address(context), MPII_SKIP_FIRST NEXTARGS)
#define MPII_OUTLINED_CONTEXT                                                     \
    void *mpii_call[2] = { (void *) mpii_storage, (void *) (uintptr_t) mpii_ra }; \
    QMPI_Context context = { mpii_call }
#else
#define MPII_OUTLINED_PARAMS(QPARAMS) QPARAMS
#define MPII_OUTLINED_ARGS(NEXTARGS) NEXTARGS
#define MPII_OUTLINED_CONTEXT (void) context
#endif

/* Per-instance tool storage, indexed by tool id (0 = the MPI library). */
extern void **mpii_storage __attribute__((visibility("hidden")));

/* QMPI_Get_tool_storage, inlined for built-in tools. */
static inline void *mpii_tool_storage(int tool_id)
{
    return mpii_storage[tool_id];
}

/* QMPI_Get_calling_address, inlined for built-in tools: the top-level wrapper keeps the
 * application's return address in the context; a layer always gets that context. */
static inline uint64_t mpii_calling_address(QMPI_Context context)
{
    uint64_t ra = (uint64_t) (uintptr_t) context.storage_stack[1];
    return MPII_UNLIKELY(mpii_python_site != NULL) ? mpii_python_site(ra) : ra;
}

/* The application's return address itself, also in a Python rank: which object made the call. */
static inline uint64_t mpii_return_address(QMPI_Context context)
{
    return (uint64_t) (uintptr_t) context.storage_stack[1];
}

/* The stack: the tools the MPI library was asked to run (`listed`, names of registered tools
 * only, from the variable `listed_var`: library_tools.c), outermost with the library's ids 1..N,
 * then those of TOOLS (names of built-in or registered tools, paths of tool libraries). Returns 0
 * or -1 (message printed). */
int mpii_build_stack(const char *tools, const char *listed, const char *listed_var);
void mpii_disable_stack(void);
int mpii_tool_count(void);
const char *mpii_tool_name(int tool_id);

/* The MPI library's own QMPI functions. While the library runs the tools (library_tools.c: its
 * tool list set and mpii's stack off), every QMPI_ call of a tool is forwarded to it. */
typedef struct {
    int (*register_tool_name)(const char *, void (*)(int));
    int (*register_tool_storage)(int, void *);
    int (*register_function)(int, int, void (*)(void));
    int (*get_function)(int, int, void (**)(void), int *);
    int (*get_tool_storage)(QMPI_Context, int, void **);
    int (*get_calling_address)(QMPI_Context, void **);
} mpii_qmpi_lib_t;
/* Hands every registration made so far to the library, then forwards every QMPI_ call there. */
void mpii_qmpi_forward_to(const mpii_qmpi_lib_t *lib);
#endif

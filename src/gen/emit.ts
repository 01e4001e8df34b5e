// Emits the C side of the shim from the annotated function list:
//   qmpi.h           the MPICH QMPI API for tools (MPICH already declares it: we only include mpi.h)
//   mpii_gen.h       ids, role/kind enums, the X-macro list every built-in tool expands
//   mpii_wrappers.c  MPI_X entry points, the chains' bottoms (mpii_bottom_X), lazy resolution of the next layer
//   mpii_objects.h   Open MPI's predefined objects (MPI_COMM_WORLD, MPI_INT …) reached through pointers
//                    set when the MPI library is found, so the shim loads anywhere and follows an
//                    MPI that an interpreter's extension dlopens RTLD_LOCAL later
import type { SpecFunction } from './spec.js';
import { qmpiNameOf } from './spec.js';
import { emitView } from './view.js';

export interface EmitInput {
  flavor: 'openmpi' | 'mpich' | 'abi';
  /** every wrapped function; `enumName` is a C constant usable as an index */
  functions: SpecFunction[];
  /** true when mpi.h already declares the QMPI API (MPICH) */
  headerHasQmpi: boolean;
  /** the type of a function id in QMPI_Register_function and QMPI_Get_function as mpi.h declares
   * them (MPICH 4.1+: `int`), else `enum QMPI_Functions_enum` */
  qmpiIdType: string;
  /** functions whose enum constant, typedef and QMPI_X prototype mpi.h already declares */
  declaredByHeader: Set<string>;
  /** functions that get an id after MPI_LAST_FUNC_T because MPICH's enum lacks them */
  extraIds: string[];
  roles: string[];
  kinds: string[];
  /** role -> field type of the per-call argument view (spec `view`) */
  view: Record<string, string>;
  weakObjects: string[];
  mpiVersion: string;
}

// Kinds the core must see: `top` runs in MPI_X before any tool, `before`/`after` bracket the
// library call in the chain bottom, below every tool.
const HOOKED: Record<string, { top?: string; before?: string; after?: string }> = {
  init: { top: 'mpii_before_init();', after: 'mpii_after_init(rc, 0);' },
  'session-init': { top: 'mpii_before_init();', after: 'mpii_after_init(rc, 1);' },
  finalize: { before: 'mpii_before_finalize();', after: 'mpii_after_finalize();' },
  abort: { before: 'mpii_on_abort();' },
};

// Functions the core must see, by name: MPI_Type_free drops the handle from the core's datatype
// cache (extent.h) under every stack, whichever tools run: the library may give the freed handle
// to the next type made, and a size or extent cached for the old one would then be wrong. The
// parameter's name differs between mpi.h files (Open MPI `type`, MPICH `datatype`).
//
// The completion functions make the standard's empty status whole (status.h: Open MPI leaves its
// MPI_ERROR as it was, MPICH's MPI_Testany writes none): parameters by position, which the
// standard fixes (the names differ: MPICH's `indx`).
const arg = (f: SpecFunction, i: number) => f.params[i].name;
const testAny = (f: SpecFunction) => ({ after: `if (rc == MPI_SUCCESS && *${arg(f, 3)}) mpii_status_any(*${arg(f, 2)}, ${arg(f, 4)});` });
const testAll = (f: SpecFunction) => ({ after: `if (rc == MPI_SUCCESS && *${arg(f, 2)}) mpii_statuses_whole(${arg(f, 0)}, ${arg(f, 3)});` });
const testOne = (f: SpecFunction) => ({ after: `if (rc == MPI_SUCCESS && *${arg(f, 1)}) mpii_status_whole(${arg(f, 2)});` });
const HOOKED_BY_NAME: Record<string, (f: SpecFunction) => { top?: string; before?: string; after?: string }> = {
  MPI_Type_free: (f) => ({ before: `mpii_type_forget(*${f.params[0].name});` }),
  MPI_Wait: (f) => ({ after: `if (rc == MPI_SUCCESS) mpii_status_whole(${arg(f, 1)});` }),
  MPI_Test: testOne,
  MPI_Request_get_status: testOne,
  MPI_Waitany: (f) => ({ after: `if (rc == MPI_SUCCESS) mpii_status_any(*${arg(f, 2)}, ${arg(f, 3)});` }),
  MPI_Testany: testAny,
  MPI_Request_get_status_any: testAny,
  MPI_Waitall: (f) => ({ after: `if (rc == MPI_SUCCESS) mpii_statuses_whole(${arg(f, 0)}, ${arg(f, 2)});` }),
  MPI_Testall: testAll,
  MPI_Request_get_status_all: testAll,
};
const hookOf = (f: SpecFunction) => HOOKED[f.kind] ?? HOOKED_BY_NAME[f.name]?.(f);

// Kinds the core answers itself instead of the library: `mpit` functions (the MPI_T interface)
// go to the core's provider `mpii_mpit_<name>` (preload/core/mpit.c), which adds the tools'
// performance variables to the library's and forwards the rest. Tools still wrap them as usual.
const PROVIDED = new Set(['mpit']);
const providerName = (f: SpecFunction) => `mpii_mpit_${f.name}`;

const cIdent = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]+/g, '_');

function paramDecls(f: SpecFunction): string {
  const list = f.params.map((p) => p.decl);
  if (f.variadic) list.push('...');
  return list.length ? list.join(', ') : 'void';
}
function qParamDecls(f: SpecFunction): string {
  return ['QMPI_Context context', 'int tool_id', ...f.params.map((p) => p.decl), ...(f.variadic ? ['...'] : [])].join(', ');
}
function argNames(f: SpecFunction): string {
  return f.params.map((p) => p.name).join(', ');
}
function withLead(lead: string, f: SpecFunction): string {
  return f.params.length ? `${lead}, ${argNames(f)}` : lead;
}
const realType = (f: SpecFunction) => `mpii_real_${f.name}_t`;
const qType = (f: SpecFunction) => `${qmpiNameOf(f.name)}_t`;

export function emitQmpiHeader(inp: EmitInput): string {
  const out: string[] = [
    '/* Generated by mpii from the installed mpi.h: the MPICH QMPI tool API. Do not edit. */',
    '#ifndef MPII_QMPI_H',
    '#define MPII_QMPI_H',
    '#include <mpi.h>',
    '',
  ];
  if (!inp.headerHasQmpi) {
    out.push(
      '#ifdef __cplusplus',
      'extern "C" {',
      '#endif',
      'typedef struct {',
      '    void **storage_stack;',
      '} QMPI_Context;',
      '',
      '#define QMPI_MAX_TOOL_NAME_LENGTH 256',
      '',
      'enum QMPI_Functions_enum {',
      ...inp.functions.map((f) => `    ${f.enumName},`),
      '    MPI_LAST_FUNC_T',
      '};',
      '',
      'int QMPI_Register_tool_name(const char *tool_name, void (*init_function_ptr) (int tool_id));',
      'int QMPI_Register_tool_storage(int tool_id, void *tool_storage);',
      'int QMPI_Register_function(int calling_tool_id, enum QMPI_Functions_enum function_enum,',
      '                           void (*function_ptr) (void));',
      'int QMPI_Get_function(int calling_tool_id, enum QMPI_Functions_enum function_enum,',
      '                      void (**function_ptr) (void), int *next_tool_id);',
      'int QMPI_Get_tool_storage(QMPI_Context context, int tool_id, void **storage);',
      'int QMPI_Get_calling_address(QMPI_Context context, void **address);',
      '',
    );
  }
  const missing = inp.functions.filter((f) => !inp.declaredByHeader.has(f.name));
  if (missing.length) {
    out.push('/* functions this MPI declares that have no QMPI declarations of their own */');
    if (inp.headerHasQmpi) {
      inp.extraIds.forEach((name, i) => out.push(`#define ${name.toUpperCase()}_T ((enum QMPI_Functions_enum) (MPI_LAST_FUNC_T + ${i}))`));
    }
    for (const f of missing) {
      out.push(`typedef ${f.ret} (${qType(f)}) (${qParamDecls(f)});`);
      out.push(`${f.ret} ${qmpiNameOf(f.name)}(${qParamDecls(f)});`);
    }
  }
  if (!inp.headerHasQmpi) out.push('#ifdef __cplusplus', '}', '#endif');
  out.push(
    '',
    "/* a function id as QMPI_Register_function and QMPI_Get_function take it here: the shim's definitions",
    " * of both agree with the library's declarations (MPICH 4.1 and later: int) */",
    `typedef ${inp.qmpiIdType} mpii_qmpi_id_t;`,
  );
  out.push('', `#define MPII_QMPI_NFUNCS (MPI_LAST_FUNC_T + ${inp.headerHasQmpi ? inp.extraIds.length : 0})`, '#endif', '');
  return out.join('\n');
}

/** A function's parameter roles as a bit mask over the role enum (at most 64 roles). */
function roleMask(roles: string[], fnRoles: string[]): bigint {
  if (roles.length > 64) throw new Error(`${roles.length} parameter roles: mpii_fn_roles holds 64`);
  return fnRoles.reduce((m, r) => m | (1n << BigInt(roles.indexOf(r))), 0n);
}

export function emitGenHeader(inp: EmitInput): string {
  const xm = inp.functions.map((f) => {
    const nextArgs = `(${withLead('context, next_id', f)})`;
    return `    X(${f.ret}, ${f.name}, ${f.enumName}, ${qType(f)}, (${qParamDecls(f)}), ${nextArgs}, MPII_KIND_${cIdent(f.kind)}) \\`;
  });
  return [
    '/* Generated by mpii: ids, roles and the function list for the core and built-in tools. */',
    '#ifndef MPII_GEN_H',
    '#define MPII_GEN_H',
    '#include "qmpi.h"',
    '#include "mpii_objects.h" /* every built-in tool may name MPI_COMM_WORLD & co. and still load anywhere */',
    '',
    `#define MPII_MPI_FLAVOR "${inp.flavor}"`,
    `#define MPII_MPI_VERSION "${inp.mpiVersion.replace(/"/g, '')}"`,
    `#define MPII_NFUNCS MPII_QMPI_NFUNCS`,
    `#define MPII_NWRAPPED ${inp.functions.length}`,
    '',
    `typedef enum { ${inp.roles.map((r) => `MPII_ROLE_${cIdent(r)}`).join(', ')} } mpii_role_t;`,
    `typedef enum { ${inp.kinds.map((k) => `MPII_KIND_${cIdent(k)}`).join(', ')} } mpii_kind_t;`,
    '',
    'typedef struct { const char *name; const char *type; mpii_role_t role; } mpii_param_info_t;',
    'typedef struct { const char *name; int id; mpii_kind_t kind; int nparams; const mpii_param_info_t *params; } mpii_fn_info_t;',
    '/* indexed by QMPI function id; name == NULL where this MPI has no such function */',
    'extern const mpii_fn_info_t mpii_fn_info[MPII_NFUNCS];',
    'extern const char *const mpii_role_names[];',
    'extern const char *const mpii_kind_names[];',
    '',
    ...emitView(inp.functions, inp.view),
    '',
    '/* X(ret, name, id, qmpi typedef, (QMPI parameters), (arguments for the next layer), kind):',
    ' * expand it to write one wrapper per MPI function; the arguments use `context` and `next_id`. */',
    '#define MPII_FOREACH_FUNC(X) \\',
    ...xm,
    '',
    "/* each function's kind, and its parameter roles as bits (1ull << MPII_ROLE_X): constant tables,",
    " * so that a tool's test of them folds where the id is a constant (the tools' wraps(id): their",
    ' * registration and a specialised stack, dispatch.h) */',
    'static const unsigned char mpii_fn_kind[MPII_NFUNCS] __attribute__((unused)) = {',
    ...inp.functions.map((f) => `    [${f.enumName}] = MPII_KIND_${cIdent(f.kind)},`),
    '};',
    '#define MPII_ROLE_BIT(r) (1ull << (r))',
    'static const unsigned long long mpii_fn_roles[MPII_NFUNCS] __attribute__((unused)) = {',
    ...inp.functions.map((f) => `    [${f.enumName}] = 0x${roleMask(inp.roles, f.roles).toString(16)}ull,`),
    '};',
    '',
    '/* the next layer below the shim, found with dlsym(RTLD_NEXT), and the PMPI_ entry points */',
    'extern void *mpii_real_fn[MPII_NFUNCS] __attribute__((visibility("hidden")));',
    'extern void *mpii_pmpi_fn[MPII_NFUNCS] __attribute__((visibility("hidden")));',
    'void mpii_resolve_all(void);',
    "/* the chains' bottoms (mpii_bottom_X), indexed by function id: the MPI library as tool 0 (dispatch.c builds the chains on them) */",
    'extern void (*const mpii_bottom_fn[MPII_NFUNCS])(void);',
    '/* resolve.c: where the layer below is, however the MPI library was loaded */',
    'void mpii_lookup(const char *name, const char *pname, void **next, void **pmpi);',
    'void *mpii_lookup_object(const char *name);',
    'void *mpii_library_own(const char *name);',
    'void mpii_check_library(void);',
    ...inp.functions.map((f) => `typedef ${f.ret} (*${realType(f)})(${paramDecls(f)});`),
    '#define MPII_PMPI(name, id) ((mpii_real_##name##_t) mpii_pmpi_fn[id])',
    "/* the core's MPI_T provider (preload/core/mpit.c): what the chains of these functions end in */",
    ...inp.functions.filter((f) => PROVIDED.has(f.kind)).map((f) => `${f.ret} ${providerName(f)}(${paramDecls(f)});`),
    '#endif',
    '',
  ].join('\n');
}

// The application's entry point MPI_X: the body is an always-inline helper taking the caller's
// address, so the Fortran entry points (fortran.ts) enter the same stack with their own caller's
// address (QMPI_Get_calling_address, call-site keyed tools) at no extra cost.
function topWrapper(f: SpecFunction): string {
  const hooked = hookOf(f);
  // hooked kinds always pass through their bottom, even with no tool, so the core sees them
  const direct = hooked
    ? `return ${bottomName(f)}((QMPI_Context){ 0 }, 0${f.params.length ? ', ' + argNames(f) : ''});`
    : PROVIDED.has(f.kind)
      ? `return ${providerName(f)}(${argNames(f)});`
      : `return ((${realType(f)}) mpii_real_fn[${f.enumName}])(${argNames(f)});`;
  const body = (ra: string) => [
    ...(hooked?.top ? [`    ${hooked.top}`] : []),
    // a specialised stack (gen/mpii_spec.c includes this file): the first hook is known when the
    // shim is compiled, so this is a direct call the compiler can inline, the tools' own calls
    // to the layer below too (dispatch.h, mpii_next)
    '#ifdef MPII_SPEC',
    '    if (MPII_LIKELY(mpii_spec_on)) {',
    '        int mpii_nid;',
    `        void (*mpii_fn)(void) = mpii_spec_next_0(0, ${f.enumName}, &mpii_nid);`,
    '        if (mpii_nid == 0) {',
    `            ${direct}`,
    '        }',
    `        void *call[2] = { (void *) mpii_storage, ${ra} };`,
    '        QMPI_Context context = { call };',
    `        return ((${qType(f)} *) mpii_fn)(${withLead('context, mpii_nid', f)});`,
    '    }',
    '#endif',
    `    const mpii_slot_t *s = &mpii_first[${f.enumName}];`,
    `    if (MPII_LIKELY(s->fn == NULL)) {`,
    `        ${direct}`,
    '    }',
    `    void *call[2] = { (void *) mpii_storage, ${ra} };`,
    '    QMPI_Context context = { call };',
    `    return ((${qType(f)} *) s->fn)(${withLead('context, s->id', f)});`,
  ];
  if (f.variadic) return [`${f.ret} MPII_ENTRY(${f.name})(${paramDecls(f)})`, '{', ...body('__builtin_return_address(0)'), '}', ''].join('\n');
  return [
    `static inline __attribute__((always_inline)) ${f.ret} mpii_top_${f.name}(${['void *mpii_ra', ...f.params.map((p) => p.decl)].join(', ')})`,
    '{',
    ...body('mpii_ra'),
    '}',
    `${f.ret} MPII_ENTRY(${f.name})(${paramDecls(f)})`,
    '{',
    `    return mpii_top_${f.name}(${['__builtin_return_address(0)', ...f.params.map((p) => p.name)].join(', ')});`,
    '}',
    '',
  ].join('\n');
}

// The chain's bottom of MPI_X, the MPI library as tool 0: not named QMPI_X, and not exported. An
// MPICH built with QMPI defines QMPI_X itself and dispatches its MPI_X through the address of its
// own QMPI_X: a QMPI_X of the shim's would take that place (the shim comes first in the search
// order), call the library's MPI_X and go round for ever.
const bottomName = (f: SpecFunction) => `mpii_bottom_${f.name.replace(/^MPI_/, '')}`;

function bottom(f: SpecFunction): string {
  const hooked = hookOf(f);
  const realCall = PROVIDED.has(f.kind) ? `${providerName(f)}(${argNames(f)})` : `((${realType(f)}) mpii_real_fn[${f.enumName}])(${argNames(f)})`;
  const lines = [`__attribute__((visibility("hidden"))) ${f.ret} ${bottomName(f)}(${qParamDecls(f)})`, '{', '    (void) context; (void) tool_id;'];
  if (hooked) {
    if (hooked.before) lines.push(`    ${hooked.before}`);
    lines.push(`    ${f.ret} rc = ${realCall};`);
    if (hooked.after) lines.push(`    ${hooked.after}`);
    lines.push('    return rc;');
  } else {
    lines.push(`    return ${realCall};`);
  }
  lines.push('}', '');
  return lines.join('\n');
}

function lazyStub(f: SpecFunction): string {
  return [
    `static ${f.ret} mpii_lazy_${f.name}(${paramDecls(f)})`,
    '{',
    '    mpii_resolve_all();',
    `    if (mpii_real_fn[${f.enumName}] == (void *) mpii_lazy_${f.name}) mpii_missing("${f.name}");`,
    `    return ((${realType(f)}) mpii_real_fn[${f.enumName}])(${argNames(f)});`,
    '}',
  ].join('\n');
}

export function emitWrappers(inp: EmitInput): string {
  const fns = inp.functions;
  const info = fns.map((f) => {
    const params = f.params.length ? `mpii_params_${f.name}` : 'NULL';
    return `    [${f.enumName}] = { "${f.name}", ${f.enumName}, MPII_KIND_${cIdent(f.kind)}, ${f.params.length}, ${params} },`;
  });
  const paramTables = fns
    .filter((f) => f.params.length)
    .map(
      (f) =>
        `static const mpii_param_info_t mpii_params_${f.name}[] = { ${f.params
          .map((p, i) => `{ "${p.name}", "${p.type.replace(/"/g, '')}", MPII_ROLE_${cIdent(f.roles[i])} }`)
          .join(', ')} };`,
    );
  return [
    '/* Generated by mpii from the installed mpi.h and preload/spec/mpi.yaml. Do not edit. */',
    '#define _GNU_SOURCE',
    '#include <dlfcn.h>',
    '#include <pthread.h>',
    '#include <stddef.h>',
    '#include "mpii_gen.h"',
    '#include <string.h>',
    '#include "mpii_objects.h"',
    '#include "mpii_core.h"',
    '#include "init.h" /* the hooks MPI_Init, MPI_Finalize and MPI_Abort call */',
    '#include "extent.h" /* MPI_Type_free forgets the handle */',
    '#include "status.h" /* the completion functions make empty statuses whole */',
    '#include "fortran.h" /* the Fortran entry points at the end */',
    '#include "fdesc.h" /* and the descriptors of their choice buffers */',
    '#include "library_tools.h" /* the library\'s own QMPI tool list, settled at the first MPI call */',
    '',
    `const char *const mpii_role_names[] = { ${inp.roles.map((r) => `"${r}"`).join(', ')} };`,
    `const char *const mpii_kind_names[] = { ${inp.kinds.map((k) => `"${k}"`).join(', ')} };`,
    ...paramTables,
    'const mpii_fn_info_t mpii_fn_info[MPII_NFUNCS] = {',
    ...info,
    '};',
    '',
    '/* ---- resolution of the next layer (lazy: processes that never call MPI pay nothing) ---- */',
    ...fns.map(lazyStub),
    '',
    'void *mpii_real_fn[MPII_NFUNCS] = {',
    ...fns.map((f) => `    [${f.enumName}] = (void *) mpii_lazy_${f.name},`),
    '};',
    'void *mpii_pmpi_fn[MPII_NFUNCS];',
    ...inp.weakObjects.map((o) => `__typeof__(mpii_obj_${o}) mpii_obj_${o};`),
    '',
    '#ifdef MPII_STATIC',
    '/* declared before its use: an implicit declaration is an error from GCC 14 (Debian 13) on */',
    'void mpii_static_resolve(void);',
    '#endif',
    'static void mpii_resolve_once(void)',
    '{',
    '#ifdef MPII_STATIC',
    '    mpii_static_resolve(); /* linked against a static MPI: its functions by address (mpii_static.c) */',
    '    mpii_library_tools_settle_first();',
    '    return;',
    '#endif',
    '    static const struct { int id; const char *name; const char *pname; } names[] = {',
    ...fns.map((f) => `        { ${f.enumName}, "${f.name}", "P${f.name}" },`),
    '    };',
    '    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {',
    '        void *next, *pmpi;',
    '        mpii_lookup(names[i].name, names[i].pname, &next, &pmpi); /* resolve.c */',
    '        mpii_pmpi_fn[names[i].id] = pmpi ? pmpi : next;',
    '        if (next || pmpi) mpii_real_fn[names[i].id] = next ? next : pmpi;',
    '    }',
    ...inp.weakObjects.map((o) => `    mpii_obj_${o} = mpii_lookup_object("${o}");`),
    '    mpii_check_library(); /* resolve.c: the MPI found is the one the shim was built for */',
    '    /* before the library reads its variables: MPICH with QMPI does at any first call, MPI_Initialized too */',
    '    mpii_library_tools_settle_first();',
    '}',
    '',
    'void mpii_resolve_all(void)',
    '{',
    '    static pthread_once_t once = PTHREAD_ONCE_INIT;',
    '    pthread_once(&once, mpii_resolve_once);',
    '}',
    '',
    '/* ---- mpii_bottom_X: the bottom of every chain, tool id 0 = the MPI library ---- */',
    ...fns.map(bottom),
    'void (*const mpii_bottom_fn[MPII_NFUNCS])(void) = {',
    ...fns.map((f) => `    [${f.enumName}] = (void (*)(void)) ${bottomName(f)},`),
    '};',
    '',
    '/* ---- MPI_X: what the application calls (MPII_MPI_X in the archive for programs that include',
    " * mpii.h and link a static MPI: there MPI_X stays the library's and is the next layer) ---- */",
    '#ifdef MPII_STATIC',
    '#define MPII_ENTRY(name) MPII_##name',
    'void mpii_static_resolve(void);',
    '#else',
    '#define MPII_ENTRY(name) name',
    '#endif',
    ...fns.map(topWrapper),
  ].join('\n');
}

/** mpii_objects.h: Open MPI's predefined handles (MPI_COMM_WORLD, MPI_INT, …) are addresses of
 * global objects in libmpi. A reference to them in the shim would be bound when the shim is
 * loaded: to nothing in a process without libmpi (a launcher, a shell) and, worse, to nothing in a
 * Python rank whose mpi4py dlopens libmpi RTLD_LOCAL later. So each object is renamed to a pointer
 * the shim sets when it finds the MPI library (mpii_resolve_all); a use costs one load, as the GOT
 * entry it replaces did. MPICH's handles are integer constants: nothing to do there. */
export function emitObjectsHeader(inp: EmitInput): string {
  return [
    "/* Generated by mpii: Open MPI's predefined objects through pointers set at MPI resolution. */",
    '#ifndef MPII_OBJECTS_H',
    '#define MPII_OBJECTS_H',
    '#include <mpi.h>',
    ...inp.weakObjects.flatMap((o) => [`extern __typeof__(${o}) *mpii_obj_${o} __attribute__((visibility("hidden")));`, `#define ${o} (*mpii_obj_${o})`]),
    '#endif',
    '',
  ].join('\n');
}

/** mpii.h: the original design's compile-time mode. A program that includes it instead of mpi.h
 * calls MPII_MPI_X, defined by the shim's archive, whose next layer is the static MPI's MPI_X. */
export function emitStaticHeader(inp: EmitInput): string {
  return [
    '/* Generated by mpii: include this instead of <mpi.h> and link libmpii.a before a static MPI. */',
    '#ifndef MPII_H',
    '#define MPII_H',
    '#include <mpi.h>',
    '#ifdef __cplusplus',
    'extern "C" {',
    '#endif',
    ...inp.functions.map((f) => `${f.ret} MPII_${f.name}(${paramDecls(f)});`),
    '#ifdef __cplusplus',
    '}',
    '#endif',
    ...inp.functions.map((f) => `#ifndef ${f.name}\n#define ${f.name} MPII_${f.name}\n#endif`),
    '#endif',
    '',
  ].join('\n');
}

/** mpii_static.c: the next layer of every function the static MPI library defines, by address. */
export function emitStaticResolve(inp: EmitInput, defined: Set<string>): string {
  const fns = inp.functions.filter((f) => defined.has(f.name) || defined.has(`P${f.name}`));
  return [
    "/* Generated by mpii: the archive's next layer, taken by address from the static MPI library. */",
    '#include "mpii_gen.h"',
    '',
    ...inp.weakObjects.map((o) => `extern char mpii_sym_${o}[] __asm__("${o}");`),
    'void mpii_static_resolve(void)',
    '{',
    ...inp.weakObjects.map((o) => `    mpii_obj_${o} = (void *) mpii_sym_${o};`),
    ...fns.map((f) => {
      const real = defined.has(f.name) ? f.name : `P${f.name}`;
      const pmpi = defined.has(`P${f.name}`) ? `P${f.name}` : f.name;
      return `    mpii_real_fn[${f.enumName}] = (void *) &${real};\n    mpii_pmpi_fn[${f.enumName}] = (void *) &${pmpi};`;
    }),
    '}',
    '',
  ].join('\n');
}

/* Python call sites: which line of the Python program made an MPI call.
 *
 * In a Python rank every MPI call comes from the same few addresses inside mpi4py's extension
 * module, so the C return address says nothing to a Python programmer. This helper, compiled
 * against the interpreter's own headers by `mpii run` and loaded by the shim only in a Python
 * process, turns the current Python frame into a call-site key the tools use in place of the
 * return address: one key per (code object, instruction), described once in the profile as
 * "pysite <key> <line> <file>\t<function>\t<C frame>".
 *
 * Per call (the fast path, CPython 3.11): the calling thread's state (a thread-local lookup), its
 * current frame, and a probe of a fixed table: no allocation, no lock, no GIL. mpi4py releases the
 * GIL around blocking calls, which is why the thread's frame is read directly (it is the calling
 * thread's own, and does not change while that thread is inside MPI). A new site takes the GIL
 * once to read its file, line and function name and keeps its code object alive so the key
 * stays unique. Other Python versions use the public API under the GIL for every call (correct,
 * slower: see docs/python.md); MPII_PYSITE_PUBLIC_API forces that path (tested on 3.11 too). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr; Python.h's pyconfig.h defines it too */
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000 && !defined(MPII_PYSITE_PUBLIC_API)
#define MPII_PYSITE_FAST 1
#define Py_BUILD_CORE 1
#include "internal/pycore_frame.h"
#undef Py_BUILD_CORE
#endif
#include <dlfcn.h>
#include <link.h> /* ElfW */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int mpii_profile_text(int tool_id, const char *section, const char *text); /* the shim's */

/* Keys sit above every user-space code address (< 2^47) and stay exact in a double (< 2^53),
 * which is how the report reads counters. */
#define KEY_BASE (UINT64_C(1) << 52)
#define SLOTS 8192 /* a power of two; at most SLOTS/2 sites, then calls keep their C address */

typedef struct {
    const void *code;
    uint64_t where; /* instruction offset (3.11+) or line (older) */
    uint64_t key;   /* written last: 0 means "not ready" */
} slot_t;

static slot_t table[SLOTS];
static int nsites;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static inline size_t slot_of(const void *code, uint64_t where)
{
    uint64_t h = ((uint64_t) (uintptr_t) code ^ (where << 32) ^ where) * 0x9E3779B97F4A7C15ull;
    return (size_t) (h >> 40) & (SLOTS - 1);
}

/* "file:line" and the function of a new site, the C frame that called MPI; under the GIL. */
static uint64_t register_site(PyCodeObject *code, uint64_t where, int line, uint64_t ra)
{
    pthread_mutex_lock(&lock);
    size_t i = slot_of(code, where);
    while (table[i].key && !(table[i].code == code && table[i].where == where)) i = (i + 1) & (SLOTS - 1);
    uint64_t key = table[i].key;
    if (!key && nsites < SLOTS / 2) {
        key = KEY_BASE + 16 * (uint64_t) ++nsites;
        PyGILState_STATE g = PyGILState_Ensure();
        Py_INCREF(code); /* never freed: its address is this site's name for the whole run */
        const char *file = PyUnicode_AsUTF8(code->co_filename);
#if PY_VERSION_HEX >= 0x030B0000
        const char *fn = PyUnicode_AsUTF8(code->co_qualname);
#else
        const char *fn = PyUnicode_AsUTF8(code->co_name);
#endif
        char text[2048], cframe[600] = "";
        Dl_info d;
        const ElfW(Sym) *sym = NULL;
        if (ra && dladdr1((void *) (uintptr_t) ra, &d, (void **) &sym, RTLD_DL_SYMENT) && d.dli_fname) {
            /* dladdr names the nearest exported symbol below, however far: only one containing
             * the call (the byte before the return address) names it */
            uintptr_t at = (uintptr_t) d.dli_saddr;
            if (!d.dli_sname || !sym || ra - 1 < at || ra - 1 - at >= sym->st_size) d.dli_sname = NULL;
            const char *base = strrchr(d.dli_fname, '/');
            snprintf(cframe, sizeof cframe, "%s%s%s+0x%lx%s", d.dli_sname ? d.dli_sname : "", d.dli_sname ? " (" : "",
                     base ? base + 1 : d.dli_fname, (unsigned long) (ra - (uintptr_t) d.dli_fbase),
                     d.dli_sname ? ")" : "");
        }
        snprintf(text, sizeof text, "%llx %d %s\t%s\t%s", (unsigned long long) key, line, file ? file : "?",
                 fn ? fn : "?", cframe);
        if (PyErr_Occurred()) PyErr_Clear();
        PyGILState_Release(g);
        mpii_profile_text(0, "pysite", text);
        table[i].code = code;
        table[i].where = where;
        __atomic_store_n(&table[i].key, key, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
    return key ? key : ra;
}

static inline uint64_t lookup(PyCodeObject *code, uint64_t where)
{
    size_t i = slot_of(code, where);
    for (;;) {
        uint64_t key = __atomic_load_n(&table[i].key, __ATOMIC_ACQUIRE);
        if (!key) return 0;
        if (table[i].code == code && table[i].where == where) return key;
        i = (i + 1) & (SLOTS - 1);
    }
}

#ifdef MPII_PYSITE_FAST
/* The innermost frame that runs Python code (3.11: skip frames still being set up). */
static inline _PyInterpreterFrame *python_frame(PyThreadState *ts)
{
    _PyInterpreterFrame *f = ts->cframe ? ts->cframe->current_frame : NULL;
    while (f && f->owner != FRAME_OWNED_BY_GENERATOR &&
           f->prev_instr < _PyCode_CODE(f->f_code) + f->f_code->_co_firsttraceable)
        f = f->previous;
    return f;
}

uint64_t mpii_pysite(uint64_t ra)
{
    PyThreadState *ts = PyGILState_GetThisThreadState();
    if (!ts) return ra; /* a thread Python does not know (the MPI library's own) */
    _PyInterpreterFrame *f = python_frame(ts);
    if (!f) return ra; /* no Python frame: called from C (an atexit handler, another extension) */
    PyCodeObject *code = f->f_code;
    uint64_t where = (uint64_t) _PyInterpreterFrame_LASTI(f);
    uint64_t key = lookup(code, where);
    if (key) return key;
    return register_site(code, where, PyCode_Addr2Line(code, (int) (where * sizeof(_Py_CODEUNIT))), ra);
}
#else
/* Any CPython >= 3.9 through the public API: the frame object needs the GIL, so every call takes it. */
uint64_t mpii_pysite(uint64_t ra)
{
    if (!PyGILState_GetThisThreadState()) return ra;
    PyGILState_STATE g = PyGILState_Ensure();
    PyFrameObject *f = PyEval_GetFrame();               /* borrowed */
    PyCodeObject *code = f ? PyFrame_GetCode(f) : NULL; /* new reference */
    int line = f ? PyFrame_GetLineNumber(f) : 0;
#if PY_VERSION_HEX >= 0x030B0000
    uint64_t where = f ? (uint64_t) PyFrame_GetLasti(f) : 0;
#else
    uint64_t where = (uint64_t) line;
#endif
    PyGILState_Release(g);
    if (!code) return ra;
    uint64_t key = lookup(code, where);
    if (!key) key = register_site(code, where, line, ra);
    g = PyGILState_Ensure();
    Py_DECREF(code); /* register_site keeps its own reference */
    PyGILState_Release(g);
    return key;
}
#endif

/* The path this helper was built for, for the shim's debug line. */
const char mpii_pysite_kind[] =
#ifdef MPII_PYSITE_FAST
    "frame read directly (CPython 3.11)";
#else
    "public API under the GIL";
#endif

/* Where the layer below the shim is, however the MPI library came into the process.
 *
 * A program linked with libmpi has it in the global scope: dlsym(RTLD_NEXT) finds the next
 * definition of each MPI_X after the shim (another preloaded tool's, or the library's). An
 * interpreter (Python with mpi4py, Julia, R) instead dlopens an extension that needs libmpi,
 * RTLD_LOCAL, long after the shim was loaded: the extension's calls still bind to the shim (the
 * global scope comes first), but neither RTLD_NEXT nor RTLD_DEFAULT can see the library. Then the
 * library is found among the loaded objects (the one that defines PMPI_Init) and looked up through
 * a handle of its own. Runs once, at the first MPI call (mpii_resolve_all). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpii_gen.h"
#include "dlsym.h"
#include "log.h"

/* The C library's dlsym: the shim's own (dlsym.c) hands out its wrappers for MPI_ names asked
 * through a library handle, and here the library's own functions are wanted. */
#if defined(__x86_64__)
#define library_dlsym(h, n) (mpii_real_dlsym ? mpii_real_dlsym(h, n) : dlsym(h, n))
#else
#define library_dlsym dlsym
#endif

static void *local_mpi; /* handle of an MPI library outside the global scope */
static int local_searched;
static char local_path[512];

struct search {
    void *self_base;
    void *handle;
};

/* dl_iterate_phdr callback: stop at the first object that itself defines PMPI_Init. */
static int find_mpi_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void) size;
    struct search *s = data;
    if (!info->dlpi_name || !info->dlpi_name[0]) return 0; /* the program itself: RTLD_DEFAULT's job */
    if ((void *) info->dlpi_addr == s->self_base) return 0;
    void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD); /* a handle, never a new load */
    if (!h) return 0;
    void *init = library_dlsym(h, "PMPI_Init");
    Dl_info where;
    if (init && dladdr(init, &where) && where.dli_fbase == (void *) info->dlpi_addr) {
        s->handle = h;
        snprintf(local_path, sizeof local_path, "%s", info->dlpi_name);
        return 1;
    }
    dlclose(h); /* drops only the reference RTLD_NOLOAD took */
    return 0;
}

static void *local_library(void)
{
    if (!local_searched) {
        local_searched = 1;
        Dl_info self;
        struct search s = { NULL, NULL };
        if (dladdr((void *) local_library, &self)) s.self_base = self.dli_fbase;
        dl_iterate_phdr(find_mpi_object, &s);
        local_mpi = s.handle;
        if (local_mpi) mpii_log("MPI library %s found outside the global scope (loaded RTLD_LOCAL)", local_path);
    }
    return local_mpi;
}

void mpii_lookup(const char *name, const char *pname, void **next, void **pmpi)
{
    *next = dlsym(RTLD_NEXT, name);
    *pmpi = dlsym(RTLD_DEFAULT, pname);
    if (!*next && !*pmpi && local_library()) {
        *next = library_dlsym(local_mpi, name);
        *pmpi = library_dlsym(local_mpi, pname);
    }
}

void *mpii_lookup_object(const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    if (!p && local_library()) p = library_dlsym(local_mpi, name);
    return p;
}

/* A function of the MPI library itself (the object that defines PMPI_Init), not a definition of
 * the shim, of another copy of it or of another preloaded library: NULL when the library has none
 * (the QMPI functions a library runs its own tools with: library_tools.c). */
void *mpii_library_own(const char *name)
{
    Dl_info where;
    void *init = dlsym(RTLD_NEXT, "PMPI_Init");
    if (!init || !dladdr(init, &where) || !where.dli_fname)
        return local_library() ? library_dlsym(local_mpi, name) : NULL;
    void *h = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD); /* a handle, never a new load */
    if (!h) return NULL;
    void *fn = library_dlsym(h, name);
    Dl_info found;
    if (fn && (!dladdr(fn, &found) || found.dli_fbase != where.dli_fbase)) fn = NULL; /* one of its dependencies' */
    dlclose(h); /* drops only the reference RTLD_NOLOAD took */
    return fn;
}

/* A symbol only this flavour's library defines, and how users call the flavour. */
static const struct {
    const char *flavor, *label, *marker;
} flavors[] = {
    { "openmpi", "Open MPI", "ompi_mpi_comm_world" },
    { "mpich", "MPICH", "MPIR_Err_create_code" },
};

static int defines(const char *symbol)
{
    return dlsym(RTLD_DEFAULT, symbol) || (local_mpi && library_dlsym(local_mpi, symbol));
}

/* The MPI-5 standard ABI's library, whichever MPI implements it: its soname is libmpi_abi.so.1
 * (the MPIs' own libraries define the ABI's functions too, MPI_Abi_get_version: no marker). */
static int standard_abi(const char *path)
{
    const char *base = strrchr(path, '/');
    return strncmp(base ? base + 1 : path, "libmpi_abi", 10) == 0;
}

/* A shim built for one MPI in a process that loaded another would pass handles of one ABI to the
 * other and crash deep inside MPI (or see none of the program's calls): stop with one line that
 * names both instead. */
void mpii_check_library(void)
{
    Dl_info where = { 0 };
    void *init = dlsym(RTLD_NEXT, "PMPI_Init");
    if (!init) init = dlsym(RTLD_DEFAULT, "PMPI_Init");
    if (!init && local_mpi) init = library_dlsym(local_mpi, "PMPI_Init");
    if (!init) return; /* no MPI at all: the first call says which function is missing */
    const char *path = dladdr(init, &where) && where.dli_fname ? where.dli_fname : "the MPI library";
    int abi_shim = strcmp(MPII_MPI_FLAVOR, "abi") == 0;
    if (where.dli_fname && abi_shim != standard_abi(path)) {
        if (abi_shim)
            mpii_error("this process loaded %s, an MPI's own library, but the shim was built for the MPI standard ABI: "
                       "run it with `mpii run` without --mpi abi",
                       path);
        else
            mpii_error("this process loaded %s, the MPI standard ABI, but the shim was built for %s's own ABI: "
                       "run it with `mpii run --mpi abi` (or no --mpi)",
                       path, MPII_MPI_FLAVOR);
        exit(2);
    }
    if (abi_shim) return;
    size_t n = sizeof flavors / sizeof flavors[0], own = 0;
    while (own < n && strcmp(flavors[own].flavor, MPII_MPI_FLAVOR) != 0) own++;
    if (own == n || defines(flavors[own].marker)) return;
    for (size_t i = 0; i < n; i++) {
        if (i == own || !defines(flavors[i].marker)) continue;
        mpii_error("this process loaded %s (%s) but the shim was built for %s: run it with `mpii run --mpi %s` "
                   "(and that MPI's launcher), or make the program load %s",
                   path, flavors[i].label, flavors[own].label, flavors[i].flavor, flavors[own].label);
        exit(2);
    }
}

/* Whose code made an access: the MPI library's or the program's.
 *
 * memcheck knows the library is at work while the program is inside an MPI call it wraps
 * (mc_in_library). The library also runs where no wrapper sees it: Fortran bindings that call
 * the C layer below the MPI_ names (Open MPI's libmpi_mpifh calls PMPI_Iallgather, PMPI_Rget, …
 * for every function the shim has no Fortran entry point for: CP2K's MPI_Irecv data was
 * overwritten by opal_convertor_unpack inside such calls), progress threads (Open MPI's btl/tcp
 * progress thread, MPICH's async progress thread, UCX's), and system calls the library makes
 * outside any call memcheck sees. Those accesses are not the program's, so the code that made
 * them decides: the objects of the MPI library are
 *   - those that define PMPI_Init or pmpi_init_ (libmpi, libmpich, the Fortran bindings), or
 *     ompi_mpi_init: Open MPI 6's core, split out of libmpi as libopen_mpi, which its mpicc links
 *     into the program too, so that "needed by the program" cannot tell it from libc,
 *   - those they need (DT_NEEDED, transitively) that the program does not need by itself
 *     (libopen-pal, libucp, libhwloc; not libc, libm, libgfortran: those are shared),
 *   - and every object loaded while MPI_Init ran (Open MPI's components, UCX's transports).
 * An access in shared code (memcpy in libc) belongs to its first caller outside shared code.
 * Objects loaded after MPI_Init are the program's (a plug-in it loads); the snapshot is taken at
 * start, and the fault handler only reads it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <string.h>
#include <ucontext.h>
#include "state.h"
#include "owner.h"

#define MC_OWNER_OBJECTS 512
#define MC_OWNER_FRAMES 48

enum { PROGRAM = 0, LIBRARY = 1, SHARED = 2 };

typedef struct {
    uintptr_t base, lo, hi; /* load bias; the executable segments */
    const ElfW(Dyn) * dyn;
    const char *name, *soname;
    uint8_t mpi, cls, from_program, from_library;
} mc_obj_t;

static mc_obj_t objs[MC_OWNER_OBJECTS];
static int n_objs;
static uintptr_t before_init[MC_OWNER_OBJECTS]; /* load biases of the objects before MPI_Init */
static int n_before = -1;

static int note_before(struct dl_phdr_info *info, size_t size, void *data)
{
    (void) size, (void) data;
    if (n_before < MC_OWNER_OBJECTS) before_init[n_before++] = info->dlpi_addr;
    return 0;
}

void mc_owner_before_init(void)
{
    n_before = 0;
    dl_iterate_phdr(note_before, NULL);
}

static int was_before(uintptr_t base)
{
    for (int i = 0; i < n_before; i++)
        if (before_init[i] == base) return 1;
    return 0;
}

static const char *strtab(const mc_obj_t *o)
{
    for (const ElfW(Dyn) *d = o->dyn; d && d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_STRTAB) /* glibc relocates it in place; the vDSO's is not */
            return (const char *) (d->d_un.d_ptr < o->base ? d->d_un.d_ptr + o->base : d->d_un.d_ptr);
    return NULL;
}

static int add(struct dl_phdr_info *info, size_t size, void *data)
{
    (void) size, (void) data;
    if (n_objs == MC_OWNER_OBJECTS) return 1;
    mc_obj_t *o = &objs[n_objs];
    memset(o, 0, sizeof *o);
    o->base = info->dlpi_addr;
    o->lo = UINTPTR_MAX;
    o->name = info->dlpi_name ? info->dlpi_name : "";
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC) o->dyn = (const ElfW(Dyn) *) (info->dlpi_addr + ph->p_vaddr);
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < o->lo) o->lo = a;
        if (a + ph->p_memsz > o->hi) o->hi = a + ph->p_memsz;
    }
    if (o->lo >= o->hi) return 0;
    const char *s = strtab(o);
    for (const ElfW(Dyn) *d = o->dyn; s && d && d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_SONAME) o->soname = s + d->d_un.d_val;
    n_objs++;
    return 0;
}

/* The object a DT_NEEDED name refers to (by soname, else by file name). */
static mc_obj_t *by_name(const char *needed)
{
    for (int i = 0; i < n_objs; i++) {
        const char *slash = strrchr(objs[i].name, '/'), *file = slash ? slash + 1 : objs[i].name;
        if ((objs[i].soname && !strcmp(objs[i].soname, needed)) || !strcmp(file, needed)) return &objs[i];
    }
    return NULL;
}

/* Mark everything o needs (transitively) with `which`, not entering MPI objects when `stop`. */
static void reach(mc_obj_t *o, int which, int stop)
{
    uint8_t *mark = which ? &o->from_library : &o->from_program;
    if (*mark) return;
    *mark = 1;
    if (stop && o->mpi) return;
    const char *s = strtab(o);
    for (const ElfW(Dyn) *d = o->dyn; s && d && d->d_tag != DT_NULL; d++) {
        if (d->d_tag != DT_NEEDED) continue;
        mc_obj_t *n = by_name(s + d->d_un.d_val);
        if (n) reach(n, which, stop);
    }
}

/* Whether the object itself defines one of the MPI library's entry points. */
static int defines_mpi(const mc_obj_t *o, uintptr_t self)
{
    if (!o->name[0] || o->base == self) return 0;
    void *h = dlopen(o->name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h) return 0;
    static const char *const entries[] = { "PMPI_Init", "pmpi_init_", "pmpi_init_f08_", "ompi_mpi_init", NULL };
    int found = 0;
    for (int i = 0; entries[i] && !found; i++) {
        void *p = dlsym(h, entries[i]);
        Dl_info at;
        found = p && dladdr(p, &at) && (uintptr_t) at.dli_fbase == o->base;
    }
    dlclose(h); /* drops only the reference RTLD_NOLOAD took */
    return found;
}

void mc_owner_start(void)
{
    n_objs = 0;
    dl_iterate_phdr(add, NULL);
    Dl_info self;
    uintptr_t self_base = dladdr((void *) mc_owner_start, &self) ? (uintptr_t) self.dli_fbase : 0;
    for (int i = 0; i < n_objs; i++) objs[i].mpi = (uint8_t) defines_mpi(&objs[i], self_base);
    if (n_objs) reach(&objs[0], 0, 1); /* the program: the first object */
    for (int i = 0; i < n_objs; i++)
        if (objs[i].mpi) reach(&objs[i], 1, 0);
    for (int i = 0; i < n_objs; i++) {
        mc_obj_t *o = &objs[i];
        int during_init = n_before >= 0 && !was_before(o->base);
        if (o->base == self_base) o->cls = SHARED; /* the shim: between the program and the library */
        else if (o->mpi || ((o->from_library || during_init) && !o->from_program))
            o->cls = LIBRARY;
        else if (o->from_library || !strncmp(o->name, "linux-vdso", 10) || strstr(o->name, "/ld-linux"))
            o->cls = SHARED;
        else
            o->cls = PROGRAM;
    }
}

static int class_of(uintptr_t pc)
{
    for (int i = 0; i < n_objs; i++)
        if (pc >= objs[i].lo && pc < objs[i].hi) return objs[i].cls;
    return PROGRAM;
}

/* The first frame from `from` on that is not shared code decides. */
static int owner_of_frames(void *const *frames, int n, int from)
{
    for (int i = from; i < n; i++) {
        int c = class_of((uintptr_t) frames[i]);
        if (c != SHARED) return c == LIBRARY;
    }
    return 0;
}

int mc_owner_library_fault(void *ucontext)
{
    if (!n_objs || !ucontext) return 0;
#if defined(__x86_64__)
    uintptr_t pc = (uintptr_t) ((ucontext_t *) ucontext)->uc_mcontext.gregs[REG_RIP];
    int c = class_of(pc);
    if (c != SHARED) return c == LIBRARY;
    void *raw[MC_OWNER_FRAMES];
    int n = backtrace(raw, MC_OWNER_FRAMES);
    for (int i = 0; i < n; i++) /* the handler's own frames come first */
        if ((uintptr_t) raw[i] == pc) return owner_of_frames(raw, n, i + 1);
    return 0;
#else
    return 0;
#endif
}

int mc_owner_library_caller(void)
{
    if (!n_objs) return 0;
    void *raw[MC_OWNER_FRAMES];
    return owner_of_frames(raw, backtrace(raw, MC_OWNER_FRAMES), 0);
}

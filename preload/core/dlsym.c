/* MPI functions looked up through a handle of the MPI library go through the shim too.
 *
 * A program that loads the MPI library at run time and calls it through function pointers it
 * asks for by name — Python's ctypes, Julia's `ccall((:MPI_Send, libmpi), …)` in MPI.jl, plug-in
 * hosts — gets them from dlsym(handle, "MPI_Send"), which searches that library only: the
 * preloaded wrappers are never asked. So the shim defines dlsym: a lookup of an MPI_ name through
 * a library handle returns the shim's wrapper of that function when the shim has one (the
 * wrapper then calls the library's own, found by resolve.c with the real dlsym).
 *
 * dlsym(RTLD_NEXT, …) answers relative to the object that called it, which glibc learns from the
 * return address: the special handles (RTLD_NEXT, RTLD_DEFAULT) therefore jump straight to the
 * real dlsym, so the caller's return address is untouched. x86-64 only (the jump is assembly);
 * elsewhere dlsym is not interposed and such programs run without tools. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include "dlsym.h"
#include "mpii_gen.h"

#if defined(__x86_64__)

typedef void *(*dlsym_fn)(void *, const char *);
__attribute__((visibility("hidden"))) dlsym_fn mpii_real_dlsym;
static void *self_handle, *self_base;

static void find_real_dlsym(void)
{
    if (mpii_real_dlsym) return;
    void *f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!f) f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    mpii_real_dlsym = (dlsym_fn) f;
}

__attribute__((constructor(101))) static void dlsym_init(void)
{
    find_real_dlsym();
}

/* A lookup through a library's handle (the caller's identity does not matter for those). */
__attribute__((visibility("hidden"), used)) void *mpii_dlsym_handle(void *handle, const char *name)
{
    find_real_dlsym();
    void *found = mpii_real_dlsym(handle, name);
    if (!found || !name || strncmp(name, "MPI_", 4) != 0) return found;
    if (!self_handle) {
        Dl_info self;
        if (!dladdr((void *) mpii_dlsym_handle, &self) || !self.dli_fname) return found;
        self_base = self.dli_fbase;
        self_handle = dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        if (!self_handle) return found;
    }
    /* only a wrapper the shim itself defines, never what its handle reaches in its dependencies */
    void *mine = mpii_real_dlsym(self_handle, name);
    Dl_info at;
    return mine && dladdr(mine, &at) && at.dli_fbase == self_base ? mine : found;
}

/* Before the constructor ran (another library's constructor asking): resolve, then ask. */
__attribute__((visibility("hidden"), used)) void *mpii_dlsym_early(void *handle, const char *name)
{
    find_real_dlsym();
    return mpii_real_dlsym ? mpii_real_dlsym(handle, name) : NULL;
}

__asm__(".text\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        "dlsym:\n"
        "    cmpq $-1, %rdi\n" /* RTLD_NEXT */
        "    je 1f\n"
        "    testq %rdi, %rdi\n" /* RTLD_DEFAULT */
        "    je 1f\n"
        "    jmp mpii_dlsym_handle\n"
        "1:  movq mpii_real_dlsym(%rip), %rax\n"
        "    testq %rax, %rax\n"
        "    je 2f\n"
        "    jmp *%rax\n" /* the caller's return address stays */
        "2:  jmp mpii_dlsym_early\n"
        ".size dlsym, .-dlsym\n");

#endif

/* Page guards, shared by the tools that watch memory with the MMU (overlap, memcheck).
 * A guard is a count on a range of pages of a page-exclusive heap block (heap.h): a page with a
 * NOACCESS guard is PROT_NONE, a page with only READONLY guards is PROT_READ, other pages are
 * read/write. Counting lets requests share pages: a page opens when its last guard goes.
 *
 * When the program touches a guarded page, the SIGSEGV handler asks the attached clients to
 * deal with the address; a fault nobody claims is passed to the handler that was there before
 * (the program's, the MPI library's, or the default action: a normal crash with a core dump).
 * System calls that would fail with EFAULT on a guarded page (read, write, recv, …) ask the
 * clients to release the range first; so must every tool before it hands a buffer to MPI. */
#ifndef MPII_GUARD_H
#define MPII_GUARD_H
#include <stddef.h>
#include <stdint.h>
#include "heap.h"

enum { MPII_GUARD_NOACCESS = 0, MPII_GUARD_READONLY = 1 };

/* Pages with at least one guard, process-wide (0: every check is one load). */
extern volatile size_t mpii_guarded_pages;

/* One more guard of `kind` on the pages [lo, hi) of b (page-aligned, inside b). Returns 0, or
 * -1 when the kernel refused (mprotect: too many mappings); then nothing changed. */
int mpii_guard_add(mpii_block_t *b, uintptr_t lo, uintptr_t hi, int kind);
/* Drop one guard of `kind` from [lo, hi); pages open when their last guard goes. */
void mpii_guard_remove(mpii_block_t *b, uintptr_t lo, uintptr_t hi, int kind);
/* mpii_guard_remove for pages the caller has opened (mpii_guard_open) and will close: the
 * counts change now, the protection at mpii_guard_close (one mprotect instead of two). */
void mpii_guard_remove_open(mpii_block_t *b, uintptr_t lo, uintptr_t hi, int kind);
/* Whether any page of [lo, hi) has a guard. */
int mpii_guard_any(const mpii_block_t *b, uintptr_t lo, uintptr_t hi);
/* Guards (of any kind) on the page holding addr. */
unsigned mpii_guard_count(const mpii_block_t *b, uintptr_t addr);
/* Make [lo, hi) read/write for a moment (a tool packing or unpacking), then restore. */
void mpii_guard_open(mpii_block_t *b, uintptr_t lo, uintptr_t hi);
void mpii_guard_close(mpii_block_t *b, uintptr_t lo, uintptr_t hi);
/* The block goes back to the allocator: open its pages, drop its counts (the heap calls it
 * through mpii_heap_on_forget, set with a block's first guard). */
void mpii_guard_forget(mpii_block_t *b);

enum { MPII_FAULT_NOT_MINE = 0, MPII_FAULT_RELEASED = 1, MPII_FAULT_STEP = 2, MPII_FAULT_OPENED = 3 };

typedef struct {
    /* the program touched guarded memory at addr (write: 1 for a write, 0 read, -1 unknown).
     * Return MPII_FAULT_RELEASED after dropping guards, NOT_MINE if this client has no guard
     * there, or STEP when the access is legitimate but the guard must stay (other data sharing a
     * page with a guarded range). Whenever a client claims the fault and the page is still
     * guarded, the core lets this one instruction run on the open page (x86-64 single step)
     * and closes the page again behind it. OPENED: the client opened the page itself
     * (mpii_guard_open) and will close it later; the instruction runs again at once, with no
     * step (another thread's access, which the client may not judge until its own thread can). */
    int (*fault)(void *addr, int write);
    /* something other than the program's own instructions (the kernel, the MPI library) is about
     * to access [lo, hi): release what guards it */
    void (*access)(uintptr_t lo, uintptr_t hi);
} mpii_guard_client_t;

/* While a client's fault() runs: the faulting thread's ucontext_t (registers, for backtraces). */
extern __thread void *mpii_fault_context;

/* Attach a client and install the SIGSEGV handler (after MPI_Init: MPI libraries install their
 * own there, and ours must come first). Returns 0 or -1. */
int mpii_guard_attach(const mpii_guard_client_t *client);

/* The kernel or a library is about to access [p, p + n): let the clients release it. */
void mpii_guard_access_slow(const void *p, size_t n);
static inline void mpii_guard_access(const void *p, size_t n)
{
    if (__builtin_expect(mpii_guarded_pages != 0, 0) && n) mpii_guard_access_slow(p, n);
}
#endif

/* A process-wide memory barrier: membarrier(2)'s private expedited command (Linux 4.14+), which
 * interrupts every CPU running one of the process's threads; where it is missing (an old kernel,
 * a seccomp filter, valgrind) a TLB shootdown does the same: changing the protection of a page the
 * process has touched makes the kernel interrupt every CPU that may cache its mapping, and an
 * interrupt drains that CPU's store buffer. Both cost microseconds; the profile tool asks for one
 * barrier per run at most (when a second thread first calls MPI). */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "process_barrier.h"

static int expedited; /* registered for MEMBARRIER_CMD_PRIVATE_EXPEDITED */
static volatile char *page;

void pf_process_barrier_prepare(void)
{
#ifdef SYS_membarrier
    long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0);
    if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
        syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) == 0) {
        expedited = 1;
        return;
    }
#endif
    void *p = mmap(NULL, (size_t) sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) page = p;
}

void pf_process_barrier(void)
{
    __sync_synchronize(); /* this thread's own stores first */
#ifdef SYS_membarrier
    if (expedited && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) == 0) return;
#endif
    if (!page) return; /* no way left: the caller's handshake narrows to a window of a few instructions */
    size_t n = (size_t) sysconf(_SC_PAGESIZE);
    page[0] = 1; /* mapped and in this CPU's TLB */
    mprotect((void *) page, n, PROT_READ);
    mprotect((void *) page, n, PROT_READ | PROT_WRITE);
    __sync_synchronize();
}

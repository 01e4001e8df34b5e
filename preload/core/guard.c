/* Page guards (guard.h): counts per page, mprotect in runs, the SIGSEGV handler and the
 * system-call wrappers that keep the kernel from meeting a guarded page. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>
#include "guard.h"
#include "log.h"
#include "util.h"

volatile size_t mpii_guarded_pages;
__thread void *mpii_fault_context;

#define MAX_CLIENTS 2
static const mpii_guard_client_t *clients[MAX_CLIENTS];

/* Per block: none[pages] then readonly[pages], 16-bit counts (mmap'd on first guard). */
static uint16_t *counts(mpii_block_t *b)
{
    if (!b->guard) {
        /* the heap drops this block's guards when it is freed (once, before any block has them:
         * a store of the same pointer after that) */
        mpii_heap_on_forget(mpii_guard_forget);
        void *p =
            mmap(NULL, b->pages * 2 * sizeof(uint16_t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return NULL;
        b->guard = p;
    }
    return b->guard;
}

static int prot_of(const mpii_block_t *b, size_t i)
{
    if (!b->guard) return PROT_READ | PROT_WRITE;
    if (b->guard[i]) return PROT_NONE;
    if (b->guard[b->pages + i]) return PROT_READ;
    return PROT_READ | PROT_WRITE;
}

static size_t page_index(const mpii_block_t *b, uintptr_t a)
{
    return (a - b->start) / mpii_page_size;
}

/* mprotect the pages [from, to) of b to what their counts say, one call per run. */
static int apply(mpii_block_t *b, size_t from, size_t to)
{
    int rc = 0;
    size_t run = from;
    for (size_t i = from; i <= to; i++) {
        if (i < to && i > run && prot_of(b, i) == prot_of(b, run)) continue;
        if (i > run &&
            mprotect((void *) (b->start + run * mpii_page_size), (i - run) * mpii_page_size, prot_of(b, run)))
            rc = -1;
        run = i;
    }
    return rc;
}

/* Add `delta` to the `kind` counts of [lo, hi); reapply protection where it changed (unless
 * the caller holds the pages open and will close them itself: `now` = 0). */
static int change_(mpii_block_t *b, uintptr_t lo, uintptr_t hi, int kind, int delta, int now)
{
    uint16_t *c = counts(b);
    if (!c) return -1;
    size_t from = page_index(b, lo), to = page_index(b, hi - 1) + 1;
    uint16_t *k = c + (kind == MPII_GUARD_READONLY ? b->pages : 0);
    size_t first = to, last = from; /* the pages whose protection changes */
    for (size_t i = from; i < to; i++) {
        if (delta > 0 && k[i] == UINT16_MAX) { /* cannot count more: undo and refuse */
            for (size_t j = from; j < i; j++) k[j]--;
            return -1;
        }
        int before = prot_of(b, i), was = c[i] || c[b->pages + i];
        k[i] = (uint16_t) (k[i] + delta);
        int is = c[i] || c[b->pages + i];
        if (is != was) __atomic_add_fetch(&mpii_guarded_pages, is ? 1 : (size_t) -1, __ATOMIC_RELAXED);
        if (prot_of(b, i) != before) {
            if (i < first) first = i;
            last = i + 1;
        }
    }
    if (now && first < last && apply(b, first, last) != 0) {
        if (delta > 0) change_(b, lo, hi, kind, -delta, 1); /* back to how it was */
        return -1;
    }
    return 0;
}

static int change(mpii_block_t *b, uintptr_t lo, uintptr_t hi, int kind, int delta)
{
    return change_(b, lo, hi, kind, delta, 1);
}

int mpii_guard_add(mpii_block_t *b, uintptr_t lo, uintptr_t hi, int kind)
{
    return lo < hi ? change(b, lo, hi, kind, 1) : 0;
}

void mpii_guard_remove(mpii_block_t *b, uintptr_t lo, uintptr_t hi, int kind)
{
    if (lo < hi) change(b, lo, hi, kind, -1);
}

void mpii_guard_remove_open(mpii_block_t *b, uintptr_t lo, uintptr_t hi, int kind)
{
    if (lo < hi) change_(b, lo, hi, kind, -1, 0);
}

int mpii_guard_any(const mpii_block_t *b, uintptr_t lo, uintptr_t hi)
{
    if (!b->guard || lo >= hi) return 0;
    for (size_t i = page_index(b, lo), to = page_index(b, hi - 1); i <= to; i++)
        if (b->guard[i] || b->guard[b->pages + i]) return 1;
    return 0;
}

unsigned mpii_guard_count(const mpii_block_t *b, uintptr_t addr)
{
    if (!b->guard) return 0;
    size_t i = page_index(b, addr);
    return (unsigned) b->guard[i] + b->guard[b->pages + i];
}

void mpii_guard_open(mpii_block_t *b, uintptr_t lo, uintptr_t hi)
{
    if (lo < hi && b->guard) mprotect((void *) lo, hi - lo, PROT_READ | PROT_WRITE);
}

void mpii_guard_close(mpii_block_t *b, uintptr_t lo, uintptr_t hi)
{
    if (lo < hi && b->guard) apply(b, page_index(b, lo), page_index(b, hi - 1) + 1);
}

void mpii_guard_forget(mpii_block_t *b)
{
    if (!b->guard) return;
    size_t guarded = 0;
    for (size_t i = 0; i < b->pages; i++) guarded += b->guard[i] || b->guard[b->pages + i];
    if (guarded) {
        mprotect((void *) b->start, b->pages * mpii_page_size, PROT_READ | PROT_WRITE);
        __atomic_sub_fetch(&mpii_guarded_pages, guarded, __ATOMIC_RELAXED);
    }
    munmap(b->guard, b->pages * 2 * sizeof(uint16_t));
    b->guard = NULL;
}

void mpii_guard_access_slow(const void *p, size_t n)
{
    uintptr_t lo = mpii_page_down((uintptr_t) p), hi = mpii_page_up((uintptr_t) p + n);
    for (int i = 0; i < MAX_CLIENTS && clients[i]; i++)
        if (clients[i]->access) clients[i]->access(lo, hi);
}

/* ---- SIGSEGV: ours first, then whatever was (or later is) installed ---- */

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static struct sigaction chained; /* the handler a fault we do not claim goes to */
static volatile int installed;

static int is_ours(void *addr)
{
    mpii_block_t *b = mpii_heap_find(addr);
    return b && mpii_guard_count(b, (uintptr_t) addr);
}

static void pass_on(int sig, siginfo_t *si, void *ctx)
{
    if (chained.sa_flags & SA_SIGINFO) {
        chained.sa_sigaction(sig, si, ctx);
    } else if (chained.sa_handler != SIG_DFL && chained.sa_handler != SIG_IGN) {
        chained.sa_handler(sig);
    } else {
        /* The default action: a fault re-executes the instruction and dies the normal way (core
         * dump); a signal someone sent must be sent again. */
        struct sigaction dfl = { .sa_handler = SIG_DFL };
        real_sigaction(sig, &dfl, NULL);
        if (si->si_code <= 0) raise(sig);
    }
}

/* ---- stepping over one instruction on a page that must stay guarded ---- */

#define MAX_STEP_PAGES 4
static __thread uintptr_t step_pages[MAX_STEP_PAGES];
static __thread int n_step_pages;
static struct sigaction chained_trap;

static int step_over(void *addr, void *ctx)
{
#if defined(__x86_64__)
    uintptr_t page = mpii_page_down((uintptr_t) addr);
    if (n_step_pages == MAX_STEP_PAGES || mprotect((void *) page, mpii_page_size, PROT_READ | PROT_WRITE) != 0)
        return -1;
    step_pages[n_step_pages++] = page;
    ((ucontext_t *) ctx)->uc_mcontext.gregs[REG_EFL] |= 0x100; /* TF: trap after one instruction */
    return 0;
#else
    (void) addr, (void) ctx;
    return -1;
#endif
}

static void on_trap(int sig, siginfo_t *si, void *ctx)
{
#if defined(__x86_64__)
    if (n_step_pages) {
        for (int i = 0; i < n_step_pages; i++) {
            mpii_block_t *b = mpii_heap_find((void *) step_pages[i]);
            if (b) mpii_guard_close(b, step_pages[i], step_pages[i] + mpii_page_size);
        }
        n_step_pages = 0;
        ((ucontext_t *) ctx)->uc_mcontext.gregs[REG_EFL] &= ~(greg_t) 0x100;
        return;
    }
#endif
    if (chained_trap.sa_flags & SA_SIGINFO) chained_trap.sa_sigaction(sig, si, ctx);
    else if (chained_trap.sa_handler != SIG_IGN && chained_trap.sa_handler != SIG_DFL)
        chained_trap.sa_handler(sig);
    else {
        struct sigaction dfl = { .sa_handler = SIG_DFL };
        real_sigaction(sig, &dfl, NULL);
        raise(sig);
    }
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    int saved = errno;
    if (si->si_code == SEGV_ACCERR && is_ours(si->si_addr)) {
        int is_write = -1, step = 0;
#if defined(__x86_64__)
        is_write = (((ucontext_t *) ctx)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#endif
        /* a client that claims the fault but leaves the page guarded (other guards on it) means
         * "let this access through": step over it */
        mpii_fault_context = ctx;
        for (int i = 0; i < MAX_CLIENTS && clients[i]; i++) {
            int r = clients[i]->fault ? clients[i]->fault(si->si_addr, is_write) : MPII_FAULT_NOT_MINE;
            if (r == MPII_FAULT_OPENED) {
                mpii_fault_context = NULL;
                errno = saved;
                return;
            }
            if (r != MPII_FAULT_NOT_MINE) step = 1;
            if (r == MPII_FAULT_RELEASED && !is_ours(si->si_addr)) break;
        }
        mpii_fault_context = NULL;
        if (!is_ours(si->si_addr) || (step && step_over(si->si_addr, ctx) == 0)) {
            errno = saved;
            return; /* the instruction runs again, now on an open page */
        }
        static const char msg[] =
            "MPII: a guarded page was touched and no tool released it (tool bug); passing the fault on\n";
        ssize_t w = write(2, msg, sizeof msg - 1);
        (void) w;
    }
    errno = saved;
    pass_on(sig, si, ctx);
}

static int resolve_sigaction(void)
{
    if (!real_sigaction)
        real_sigaction = (int (*)(int, const struct sigaction *, struct sigaction *)) dlsym(RTLD_NEXT, "sigaction");
    return real_sigaction ? 0 : -1;
}

int mpii_guard_attach(const mpii_guard_client_t *client)
{
    for (int i = 0; i < MAX_CLIENTS; i++) {
        if (clients[i] == client) break;
        if (!clients[i]) {
            clients[i] = client;
            break;
        }
    }
    if (installed) return 0;
    if (resolve_sigaction() != 0) return -1;
    struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART };
    sigemptyset(&sa.sa_mask);
    if (real_sigaction(SIGSEGV, &sa, &chained) != 0) return -1;
    struct sigaction trap = { .sa_sigaction = on_trap, .sa_flags = SA_SIGINFO | SA_RESTART };
    sigemptyset(&trap.sa_mask);
    real_sigaction(SIGTRAP, &trap, &chained_trap);
    installed = 1;
    return 0;
}

/* A handler the program (or a library) installs for SIGSEGV (or SIGTRAP) later goes behind ours. */
int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (resolve_sigaction() != 0) {
        errno = ENOSYS;
        return -1;
    }
    if ((sig != SIGSEGV && sig != SIGTRAP) || !installed) return real_sigaction(sig, act, old);
    struct sigaction *behind = sig == SIGSEGV ? &chained : &chained_trap;
    if (old) *old = *behind;
    if (act) *behind = *act;
    return 0;
}

sighandler_t signal(int sig, sighandler_t handler)
{
    struct sigaction act = { .sa_handler = handler, .sa_flags = SA_RESTART }, old;
    sigemptyset(&act.sa_mask);
    if (sigaction(sig, &act, &old) != 0) return SIG_ERR;
    return (old.sa_flags & SA_SIGINFO) ? (sighandler_t) old.sa_sigaction : old.sa_handler;
}

/* ---- system calls that take user memory: the kernel returns EFAULT instead of faulting ---- */

#define NEXT(name)                    \
    static __typeof__(name) *next_fn; \
    if (MPII_UNLIKELY(!next_fn)) next_fn = (__typeof__(name) *) dlsym(RTLD_NEXT, #name);

static void access_iov(const struct iovec *iov, int n)
{
    for (int i = 0; i < n; i++) mpii_guard_access(iov[i].iov_base, iov[i].iov_len);
}

ssize_t read(int fd, void *buf, size_t n)
{
    NEXT(read);
    mpii_guard_access(buf, n);
    return next_fn(fd, buf, n);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    NEXT(write);
    mpii_guard_access(buf, n);
    return next_fn(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t at)
{
    NEXT(pread);
    mpii_guard_access(buf, n);
    return next_fn(fd, buf, n, at);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t at)
{
    NEXT(pwrite);
    mpii_guard_access(buf, n);
    return next_fn(fd, buf, n, at);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t at) __attribute__((alias("pread")));
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t at) __attribute__((alias("pwrite")));

ssize_t readv(int fd, const struct iovec *iov, int n)
{
    NEXT(readv);
    if (mpii_guarded_pages) access_iov(iov, n);
    return next_fn(fd, iov, n);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
    NEXT(writev);
    if (mpii_guarded_pages) access_iov(iov, n);
    return next_fn(fd, iov, n);
}

ssize_t preadv(int fd, const struct iovec *iov, int n, off_t at)
{
    NEXT(preadv);
    if (mpii_guarded_pages) access_iov(iov, n);
    return next_fn(fd, iov, n, at);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t at)
{
    NEXT(pwritev);
    if (mpii_guarded_pages) access_iov(iov, n);
    return next_fn(fd, iov, n, at);
}

ssize_t recv(int fd, void *buf, size_t n, int flags)
{
    NEXT(recv);
    mpii_guard_access(buf, n);
    return next_fn(fd, buf, n, flags);
}

ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from, socklen_t *len)
{
    NEXT(recvfrom);
    mpii_guard_access(buf, n);
    return next_fn(fd, buf, n, flags, from, len);
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
    NEXT(recvmsg);
    if (mpii_guarded_pages && msg) access_iov(msg->msg_iov, (int) msg->msg_iovlen);
    return next_fn(fd, msg, flags);
}

ssize_t send(int fd, const void *buf, size_t n, int flags)
{
    NEXT(send);
    mpii_guard_access(buf, n);
    return next_fn(fd, buf, n, flags);
}

ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *to, socklen_t len)
{
    NEXT(sendto);
    mpii_guard_access(buf, n);
    return next_fn(fd, buf, n, flags, to, len);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
    NEXT(sendmsg);
    if (mpii_guarded_pages && msg) access_iov(msg->msg_iov, (int) msg->msg_iovlen);
    return next_fn(fd, msg, flags);
}

/* stdio moves large blocks with read/write inside libc, where the wrappers above cannot see */
size_t fread(void *buf, size_t size, size_t n, FILE *f)
{
    NEXT(fread);
    if (size && n <= SIZE_MAX / size) mpii_guard_access(buf, size * n);
    return next_fn(buf, size, n, f);
}

size_t fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
    NEXT(fwrite);
    if (size && n <= SIZE_MAX / size) mpii_guard_access(buf, size * n);
    return next_fn(buf, size, n, f);
}

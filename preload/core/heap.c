/* The page-exclusive heap (heap.h). The shim interposes the whole malloc family; until a tool
 * calls mpii_heap_start() every call goes straight to the next allocator (glibc, or another
 * preloaded allocator found with dlsym(RTLD_NEXT)), so processes that never call MPI_Init only
 * pay one predictable branch. After it, an allocation of >= min_bytes becomes
 *
 *     raw = next_malloc(pages * page + align)        start = raw rounded up to `align`
 *
 * so [start, start + pages * page) lies strictly inside the next allocator's block: its own
 * headers sit outside the pages a tool may protect. Blocks are kept in a search tree by start
 * (O(log n) per allocation, free and lookup); the bookkeeping lives in mmap'd memory, never in
 * malloc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "heap.h"

#define MPII_HEAP_UNLIKELY(x) __builtin_expect(!!(x), 0)

size_t mpii_page_size = 4096;
volatile size_t mpii_heap_blocks;

static struct {
    void *(*malloc)(size_t);
    void (*free)(void *);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    int (*posix_memalign)(void **, size_t, size_t);
    size_t (*usable)(void *);
} next;

static volatile int heap_on;
static size_t heap_min = (size_t) -1;
/* Allocations smaller than a page cost two pages each when exclusive: cap how many live. */
static size_t small_limit = (size_t) -1;
static volatile size_t small_blocks;

/* ---- the next allocator, and a bump arena for calls made while dlsym itself allocates ---- */

static char boot_arena[64 << 10] __attribute__((aligned(64)));
static size_t boot_used;
static __thread int resolving;

static int in_boot(const void *p)
{
    return (const char *) p >= boot_arena && (const char *) p < boot_arena + sizeof boot_arena;
}

static void *boot_alloc(size_t n)
{
    size_t need = (n + 15 + 16) & ~(size_t) 15; /* 16-byte header holds the size for realloc */
    size_t at = __atomic_fetch_add(&boot_used, need, __ATOMIC_RELAXED);
    if (at + need > sizeof boot_arena) return NULL;
    *(size_t *) (boot_arena + at) = n;
    return boot_arena + at + 16;
}

static size_t boot_size(const void *p)
{
    return *(const size_t *) ((const char *) p - 16);
}

static int resolve(void)
{
    if (next.malloc) return 1;
    if (resolving) return 0;
    resolving = 1;
    long ps = sysconf(_SC_PAGESIZE);
    if (ps > 0) mpii_page_size = (size_t) ps;
    next.free = (void (*)(void *)) dlsym(RTLD_NEXT, "free");
    next.calloc = (void *(*) (size_t, size_t)) dlsym(RTLD_NEXT, "calloc");
    next.realloc = (void *(*) (void *, size_t)) dlsym(RTLD_NEXT, "realloc");
    next.posix_memalign = (int (*)(void **, size_t, size_t)) dlsym(RTLD_NEXT, "posix_memalign");
    next.usable = (size_t(*)(void *)) dlsym(RTLD_NEXT, "malloc_usable_size");
    void *m = dlsym(RTLD_NEXT, "malloc");
    __atomic_store_n(&next.malloc, (void *(*) (size_t)) m, __ATOMIC_RELEASE);
    resolving = 0;
    return next.malloc != NULL;
}

/* ---- the block table ----
 * A treap (a binary search tree by start, heap-ordered by a priority hashed from the start):
 * insert, remove and "the block at or below an address" cost O(log n) expected, whatever order
 * blocks come and go in. A sorted array cost O(n) per insert and free (a memmove): with the MPI
 * library's own small allocations on pages of their own (memcheck), 200 live communicators made
 * every MPI_Comm_dup + MPI_Comm_free 13x (Open MPI) to 23x (MPICH) slower than without mpii. */

static volatile int table_lock;
static uint64_t table_generation; /* bumped whenever a block comes or goes */
static mpii_block_t *root;
static mpii_block_t *spare; /* free nodes, linked through `raw` */

static void lock(void)
{
    while (__atomic_test_and_set(&table_lock, __ATOMIC_ACQUIRE))
        while (table_lock) __builtin_ia32_pause();
}

static void unlock(void)
{
    __atomic_clear(&table_lock, __ATOMIC_RELEASE);
}

static void *map(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* A node from the spare list (refilled a page of nodes at a time). Called with the lock held. */
static mpii_block_t *new_node(void)
{
    if (!spare) {
        mpii_block_t *chunk = map(mpii_page_size * 4);
        if (!chunk) return NULL;
        size_t n = mpii_page_size * 4 / sizeof *chunk;
        for (size_t i = 0; i < n; i++) {
            chunk[i].raw = spare;
            spare = &chunk[i];
        }
    }
    mpii_block_t *b = spare;
    spare = b->raw;
    return b;
}

/* The priority: a mix of the start address (page-aligned addresses in order must not make a list). */
static uint32_t priority(uintptr_t start)
{
    uint64_t x = (uint64_t) start * 0x9e3779b97f4a7c15u;
    return (uint32_t) (x >> 32);
}

/* Split t into the blocks starting below key (*lo) and the rest (*hi). */
static void split(mpii_block_t *t, uintptr_t key, mpii_block_t **lo, mpii_block_t **hi)
{
    while (t) {
        if (t->start < key) {
            *lo = t;
            lo = &t->right;
            t = t->right;
        } else {
            *hi = t;
            hi = &t->left;
            t = t->left;
        }
    }
    *lo = *hi = NULL;
}

/* Join two treaps, every start in a below every start in b. */
static mpii_block_t *merge(mpii_block_t *a, mpii_block_t *b)
{
    mpii_block_t *joined = NULL, **at = &joined;
    while (a && b) {
        if (a->prio >= b->prio) {
            *at = a;
            at = &a->right;
            a = a->right;
        } else {
            *at = b;
            at = &b->left;
            b = b->left;
        }
    }
    *at = a ? a : b;
    return joined;
}

/* Called with the lock held. */
static void insert(mpii_block_t *b)
{
    mpii_block_t *lo, *hi;
    b->prio = priority(b->start);
    b->left = b->right = NULL;
    split(root, b->start, &lo, &hi);
    root = merge(merge(lo, b), hi);
    mpii_heap_blocks++;
    __atomic_add_fetch(&table_generation, 1, __ATOMIC_RELEASE);
}

/* The block with the greatest start <= addr, or NULL. Called with the lock held. */
static mpii_block_t *floor_block(uintptr_t addr)
{
    mpii_block_t *t = root, *best = NULL;
    while (t) {
        if (t->start <= addr) {
            best = t;
            t = t->right;
        } else {
            t = t->left;
        }
    }
    return best;
}

/* The blocks of this thread's recent lookups, valid while no block came or went: a program hands
 * MPI the same few buffers again and again, and a lookup under the lock costs more than the rest
 * of a memory tool's per-call work. Nodes are recycled, never freed, so a stale entry is only
 * ever compared, and the generation check throws it away. */
#define RECENT 8
static __thread struct {
    uint64_t gen;
    mpii_block_t *b;
} recent[RECENT] __attribute__((tls_model("initial-exec")));

mpii_block_t *mpii_heap_find(const void *addr)
{
    if (!mpii_heap_blocks) return NULL;
    uintptr_t a = (uintptr_t) addr;
    size_t slot = (a >> 12) & (RECENT - 1); /* a hash: 4 KiB steps whatever the page size (no division) */
    mpii_block_t *c = recent[slot].b;
    if (c && recent[slot].gen == __atomic_load_n(&table_generation, __ATOMIC_ACQUIRE) && a >= c->start &&
        a < c->start + c->pages * mpii_page_size)
        return c;
    mpii_block_t *found = NULL;
    lock();
    uint64_t gen = table_generation;
    mpii_block_t *b = floor_block(a);
    if (b && a < b->start + b->pages * mpii_page_size) found = b;
    unlock();
    if (found) {
        recent[slot].gen = gen;
        recent[slot].b = found;
    }
    return found;
}

/* Remove and return the block that starts exactly at p, or NULL. */
static mpii_block_t *take(void *p)
{
    uintptr_t a = (uintptr_t) p;
    mpii_block_t *found = NULL, **at = &root;
    lock();
    while (*at && (*at)->start != a) at = a < (*at)->start ? &(*at)->left : &(*at)->right;
    if (*at) {
        found = *at;
        *at = merge(found->left, found->right);
        mpii_heap_blocks--;
        __atomic_add_fetch(&table_generation, 1, __ATOMIC_RELEASE);
    }
    unlock();
    return found;
}

static void (*release_hooks[4])(mpii_block_t *);
static void (*forget_hook)(mpii_block_t *);

void mpii_heap_on_forget(void (*fn)(mpii_block_t *block))
{
    forget_hook = fn;
}

void mpii_heap_on_release(void (*fn)(mpii_block_t *block))
{
    for (int i = 0; i < 4; i++)
        if (!release_hooks[i] || release_hooks[i] == fn) {
            release_hooks[i] = fn;
            return;
        }
}

/* Let the tools finish with the block, drop its protection, give it back. */
static void release(mpii_block_t *b)
{
    for (int i = 0; i < 4 && release_hooks[i]; i++) release_hooks[i](b);
    if (forget_hook) forget_hook(b); /* set before any block has a guard (guard.c) */
    take((void *) b->start);
    if (b->size < mpii_page_size) __atomic_sub_fetch(&small_blocks, 1, __ATOMIC_RELAXED);
    void *raw = b->raw;
    lock();
    b->raw = spare;
    spare = b;
    unlock();
    next.free(raw);
}

static mpii_block_t *find_exact(void *p)
{
    if (!mpii_heap_blocks || ((uintptr_t) p & (mpii_page_size - 1))) return NULL;
    mpii_block_t *b = mpii_heap_find(p);
    return b && b->start == (uintptr_t) p ? b : NULL;
}

void mpii_heap_start(size_t min_bytes)
{
    resolve();
    heap_min = min_bytes ? min_bytes : 1;
    heap_on = 1;
}

void mpii_heap_limit_small(size_t max_blocks)
{
    small_limit = max_blocks;
}

void mpii_heap_stop(void)
{
    heap_on = 0;
}

__thread int mpii_heap_library_depth __attribute__((tls_model("initial-exec")));

static inline int wants_pages(size_t n)
{
    return heap_on && n >= heap_min && !mpii_heap_library_depth && (n >= mpii_page_size || small_blocks < small_limit);
}

/* Pages of its own for an allocation of n bytes, aligned to `align` (a power of two >= page). */
static void *exclusive(size_t n, size_t align)
{
    size_t pages = n / mpii_page_size + (n % mpii_page_size != 0);
    if (!pages) pages = 1;
    if (pages > (SIZE_MAX - align) / mpii_page_size - 1) { /* room for the extra page below */
        errno = ENOMEM;
        return NULL;
    }
    /* The next allocator maps a large block on its own, one page more than asked (its header),
     * right below the previous one: two arrays allocated one after the other start `pages + 2`
     * pages apart. An even number of pages apart can make them alias in the caches (a stencil
     * streaming u into v, 0x3e0000 bytes apart: 1.6x the step time of glibc's placement, issue 33),
     * so the request is made one page longer then: an odd distance, as glibc alone gives for most
     * sizes, for every size. */
    size_t extra = pages % 2 == 0 ? mpii_page_size : 0; /* pages + 2 even */
    void *raw = next.malloc(pages * mpii_page_size + align + extra);
    if (!raw) return NULL;
    lock();
    mpii_block_t *b = new_node();
    if (b) {
        *b = (mpii_block_t){
            .start = ((uintptr_t) raw + align - 1) & ~(uintptr_t) (align - 1), .size = n, .pages = pages, .raw = raw
        };
        insert(b);
    }
    unlock();
    if (!b) return raw; /* no room to track it: an ordinary allocation, never guarded */
    if (n < mpii_page_size) __atomic_add_fetch(&small_blocks, 1, __ATOMIC_RELAXED);
    return (void *) b->start;
}

/* ---- the interposed allocator ---- */

void *malloc(size_t n)
{
    if (MPII_HEAP_UNLIKELY(!next.malloc) && !resolve()) return boot_alloc(n);
    if (MPII_HEAP_UNLIKELY(wants_pages(n))) return exclusive(n, mpii_page_size);
    return next.malloc(n);
}

void free(void *p)
{
    if (!p || in_boot(p)) return;
    mpii_block_t *b = find_exact(p);
    if (b) {
        release(b); /* the hooks see the block while it is still findable */
        return;
    }
    if (!next.free && !resolve()) return;
    next.free(p);
}

void *calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    if (MPII_HEAP_UNLIKELY(!next.calloc) && !resolve()) {
        void *p = boot_alloc(n * size);
        return p ? memset(p, 0, n * size) : NULL; /* the arena is static (zero), but be explicit */
    }
    if (MPII_HEAP_UNLIKELY(wants_pages(n * size))) {
        void *p = exclusive(n * size, mpii_page_size);
        return p ? memset(p, 0, n * size) : NULL;
    }
    return next.calloc(n, size);
}

static size_t old_size(void *p, mpii_block_t *b)
{
    if (b) return b->size;
    if (in_boot(p)) return boot_size(p);
    return next.usable ? next.usable(p) : 0;
}

void *realloc(void *p, size_t n)
{
    if (!p) return malloc(n);
    if (!n) {
        free(p);
        return NULL;
    }
    mpii_block_t *b = find_exact(p);
    if (!b && !in_boot(p) && !wants_pages(n) && (next.realloc || resolve())) return next.realloc(p, n);
    /* one of ours, the bootstrap arena's, or growing into pages of its own: move it ourselves */
    if (b)
        for (int i = 0; i < 4 && release_hooks[i]; i++) release_hooks[i](b); /* finish transfers first */
    void *q = malloc(n);
    if (!q) return NULL;
    size_t keep = old_size(p, b);
    memcpy(q, p, keep < n ? keep : n);
    free(p);
    return q;
}

void *reallocarray(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, n * size);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1))) return EINVAL;
    if (!next.posix_memalign && !resolve()) return ENOMEM;
    if (wants_pages(n)) {
        void *p = exclusive(n, align > mpii_page_size ? align : mpii_page_size);
        if (!p) return ENOMEM;
        *out = p;
        return 0;
    }
    return next.posix_memalign(out, align, n);
}

static void *aligned(size_t align, size_t n)
{
    void *p = NULL;
    int rc = posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, n);
    if (rc) {
        errno = rc;
        return NULL;
    }
    return p;
}

void *aligned_alloc(size_t align, size_t n)
{
    return aligned(align, n);
}
void *memalign(size_t align, size_t n)
{
    return aligned(align, n);
}
void *valloc(size_t n)
{
    return aligned(mpii_page_size, n);
}
void *pvalloc(size_t n)
{
    return aligned(mpii_page_size, (n + mpii_page_size - 1) & ~(mpii_page_size - 1));
}

size_t malloc_usable_size(void *p)
{
    if (!p) return 0;
    mpii_block_t *b = find_exact(p);
    return old_size(p, b);
}

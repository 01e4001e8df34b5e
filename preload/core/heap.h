/* The page-exclusive heap shared by the tools that guard memory with page protection (overlap,
 * memcheck). Once started, every allocation of at least `min_bytes` gets pages of its own:
 * nothing else (the MPI library's data, other small allocations) can share a page with it, so
 * protecting those pages only ever stops accesses to that buffer. The heap also knows each
 * block's exact size, so a tool can tell which allocation an address belongs to. */
#ifndef MPII_HEAP_H
#define MPII_HEAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct mpii_block {
    uintptr_t start; /* page-aligned address the program got */
    size_t size;     /* bytes it asked for */
    size_t pages;    /* pages it owns: [start, start + pages * page size) */
    void *raw;       /* what the next allocator returned (start lies inside it) */
    uint16_t *guard; /* per-page protection counts (guard.c), NULL until first protected */
    int pins;        /* > 0: the MPI library may access it at any time (windows, user requests) */
    uint32_t prio;   /* the heap's search tree (heap.c) */
    struct mpii_block *left, *right;
} mpii_block_t;

extern size_t mpii_page_size;
static inline uintptr_t mpii_page_down(uintptr_t a)
{
    return a & ~(uintptr_t) (mpii_page_size - 1);
}
static inline uintptr_t mpii_page_up(uintptr_t a)
{
    return (a + mpii_page_size - 1) & ~(uintptr_t) (mpii_page_size - 1);
}

/* From now on, allocations of >= min_bytes get pages of their own (min_bytes >= 1). */
void mpii_heap_start(size_t min_bytes);
/* At most max_blocks live exclusive blocks smaller than a page (each costs two pages); beyond
 * that, small allocations stay ordinary (unchecked). Default: unlimited. */
void mpii_heap_limit_small(size_t max_blocks);
/* New allocations go to the next allocator again; existing blocks stay valid until freed. */
void mpii_heap_stop(void);
/* Between enter and the matching leave (they nest), this thread's allocations go to the next
 * allocator, where it would put them. A tool says so around the MPI library's work: what the
 * library allocates for itself during a call (a communicator's tables, its queues) is nobody's
 * buffer, and pages of its own cost a fault, a zeroed page and a trim each (memcheck made
 * MPI_Comm_dup + MPI_Comm_free 12x (Open MPI) to 25x (MPICH) slower with them); and memory the
 * library hands out for windows must keep its layout (Open MPI's osc/rdma counts the pages
 * attached to a dynamic window, so small elements must stay side by side). */
extern __thread int mpii_heap_library_depth __attribute__((tls_model("initial-exec")));
static inline void mpii_heap_library_enter(void)
{
    mpii_heap_library_depth++;
}
static inline void mpii_heap_library_leave(void)
{
    mpii_heap_library_depth--;
}
/* The block containing addr, or NULL. Valid until the program frees that block. */
mpii_block_t *mpii_heap_find(const void *addr);
/* Live page-exclusive blocks (0: every lookup answers NULL at once). */
extern volatile size_t mpii_heap_blocks;
/* Called before a block is freed or moved by realloc, so a tool can finish what uses it. */
void mpii_heap_on_release(void (*fn)(mpii_block_t *block));
/* Called last, after those: guard.c's, to drop the block's page protection (a hook rather than a
 * call so that the heap, below the guards, does not depend on them). */
void mpii_heap_on_forget(void (*fn)(mpii_block_t *block));
#endif

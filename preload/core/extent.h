/* Datatype facts (size, extent, true extent), cached per handle, and the bytes `count`
 * elements span: the one datatype cache of the shim, shared by every tool (profile and monitor
 * ask for sizes on each call, overlap and memcheck for extents). */
#ifndef MPII_EXTENT_H
#define MPII_EXTENT_H
#include <stdint.h>
#include "mpii_gen.h"
#include "util.h"

typedef struct {
    MPI_Datatype type; /* 0: an empty slot */
    MPI_Count true_lb, true_extent, extent, size;
} mpii_type_t;

/* Direct-mapped by handle: a hit is one load and one compare, a miss asks the library (through
 * the bottom of the QMPI chain, so no tool sees these calls) and fills the slot. */
#define MPII_TYPE_SLOTS 64
extern mpii_type_t mpii_types[MPII_TYPE_SLOTS] __attribute__((visibility("hidden")));

static inline mpii_type_t *mpii_type_slot(MPI_Datatype t)
{
    uintptr_t k = (uintptr_t) t;
    return &mpii_types[(k ^ (k >> 6) ^ (k >> 12)) & (MPII_TYPE_SLOTS - 1)];
}

/* Facts about t from the library (cached), or NULL for MPI_DATATYPE_NULL or an invalid type. */
const mpii_type_t *mpii_type_info(MPI_Datatype t);
uint64_t mpii_type_size_slow(MPI_Datatype t);

/* 1 and the bytes of one element of t in *size when the cache holds t, else 0: no call made (a
 * wrapper that must not call anything on its fast path). */
static inline int mpii_type_size_cached(MPI_Datatype t, uint64_t *size)
{
    const mpii_type_t *e = mpii_type_slot(t);
    if (e->type != t || (uintptr_t) t == 0) return 0;
    *size = (uint64_t) e->size;
    return 1;
}

/* The bytes of one element of t; 0 for MPI_DATATYPE_NULL (legal with zero counts) or an invalid
 * type. The per-call path of the tools that count bytes: inlined. */
static inline uint64_t mpii_type_size(MPI_Datatype t)
{
    uint64_t size;
    return MPII_LIKELY(mpii_type_size_cached(t, &size)) ? size : mpii_type_size_slow(t);
}

/* The program frees t (its handle may come back as another type): the generated MPI_Type_free
 * calls this below every tool, whichever tools run. */
void mpii_type_forget(MPI_Datatype t);
/* The bytes `count` elements of `type` at buf span: [*lo, *hi). 0, or -1 if unknown. */
int mpii_extent(const void *buf, MPI_Count count, MPI_Datatype type, uintptr_t *lo, uintptr_t *hi);
#endif

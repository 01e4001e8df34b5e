/* Datatype facts (size, extent, true extent), cached per handle, and the bytes `count`
 * elements span. Shared by the tools that reason about user memory (overlap, memcheck). */
#ifndef MPII_EXTENT_H
#define MPII_EXTENT_H
#include <stdint.h>
#include "mpii_gen.h"

typedef struct {
    MPI_Datatype type;
    MPI_Count true_lb, true_extent, extent, size;
} mpii_type_t;

/* Facts about t from the library (cached), or NULL for an invalid type. */
const mpii_type_t *mpii_type_info(MPI_Datatype t);
/* The program freed t: its handle may be reused for another type. */
void mpii_type_forget(MPI_Datatype t);
/* The bytes `count` elements of `type` at buf span: [*lo, *hi). 0, or -1 if unknown. */
int mpii_extent(const void *buf, MPI_Count count, MPI_Datatype type, uintptr_t *lo, uintptr_t *hi);
#endif

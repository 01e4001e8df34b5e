/* The shim's datatype cache (extent.h). */
#include <stddef.h>
#include "extent.h"

mpii_type_t mpii_types[MPII_TYPE_SLOTS];

const mpii_type_t *mpii_type_info(MPI_Datatype t)
{
    mpii_type_t *e = mpii_type_slot(t);
    if (e->type == t && (uintptr_t) t != 0) return e;
    MPI_Count lb;
    if (t == MPI_DATATYPE_NULL ||
        MPII_PMPI(MPI_Type_get_true_extent_x, MPI_TYPE_GET_TRUE_EXTENT_X_T)(t, &e->true_lb, &e->true_extent) !=
            MPI_SUCCESS ||
        MPII_PMPI(MPI_Type_get_extent_x, MPI_TYPE_GET_EXTENT_X_T)(t, &lb, &e->extent) != MPI_SUCCESS ||
        MPII_PMPI(MPI_Type_size_x, MPI_TYPE_SIZE_X_T)(t, &e->size) != MPI_SUCCESS) {
        e->type = (MPI_Datatype) 0;
        return NULL;
    }
    if (e->size < 0) e->size = 0; /* MPI_UNDEFINED: too large for a count; counted as 0 bytes */
    e->type = t;
    return e;
}

/* Out of line: the inlined fast path stays a load and a compare. */
__attribute__((noinline)) uint64_t mpii_type_size_slow(MPI_Datatype t)
{
    const mpii_type_t *e = mpii_type_info(t);
    return e ? (uint64_t) e->size : 0;
}

void mpii_type_forget(MPI_Datatype t)
{
    mpii_type_t *e = mpii_type_slot(t);
    if (e->type == t) e->type = (MPI_Datatype) 0;
}

int mpii_extent(const void *buf, MPI_Count count, MPI_Datatype type, uintptr_t *lo, uintptr_t *hi)
{
    if (count <= 0) {
        *lo = *hi = (uintptr_t) buf;
        return 0;
    }
    const mpii_type_t *t = mpii_type_info(type);
    if (!t || t->true_extent < 0) return -1;
    intptr_t first = (intptr_t) buf + (intptr_t) t->true_lb, step = (intptr_t) ((count - 1) * t->extent);
    *lo = (uintptr_t) (step < 0 ? first + step : first);
    *hi = (uintptr_t) ((step < 0 ? first : first + step) + (intptr_t) t->true_extent);
    return 0;
}

/* Datatype facts cached per handle (extent.h). A direct-mapped cache: a miss asks the library
 * (through the bottom of the QMPI chain, so no tool sees these calls). */
#include <stddef.h>
#include "extent.h"

#define TYPE_CACHE 64
static mpii_type_t types[TYPE_CACHE];

static mpii_type_t *slot(MPI_Datatype t)
{
    return &types[((uintptr_t) t >> 4 ^ (uintptr_t) t) & (TYPE_CACHE - 1)];
}

const mpii_type_t *mpii_type_info(MPI_Datatype t)
{
    mpii_type_t *e = slot(t);
    if (e->type == t && e->type != MPI_DATATYPE_NULL) return e;
    MPI_Count lb;
    if (t == MPI_DATATYPE_NULL ||
        MPII_PMPI(MPI_Type_get_true_extent_x, MPI_TYPE_GET_TRUE_EXTENT_X_T)(t, &e->true_lb, &e->true_extent) != MPI_SUCCESS ||
        MPII_PMPI(MPI_Type_get_extent_x, MPI_TYPE_GET_EXTENT_X_T)(t, &lb, &e->extent) != MPI_SUCCESS ||
        MPII_PMPI(MPI_Type_size_x, MPI_TYPE_SIZE_X_T)(t, &e->size) != MPI_SUCCESS) {
        e->type = MPI_DATATYPE_NULL;
        return NULL;
    }
    e->type = t;
    return e;
}

void mpii_type_forget(MPI_Datatype t)
{
    mpii_type_t *e = slot(t);
    if (e->type == t) e->type = MPI_DATATYPE_NULL;
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

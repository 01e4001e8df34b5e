/* What the generated Fortran entry points (src/gen/fortran.ts) need: the Fortran sentinels of the
 * running MPI, buffer translation, and scratch arrays for converted handle/status arrays. */
#ifndef MPII_FORTRAN_H
#define MPII_FORTRAN_H
#include <stdlib.h>
#include "mpii_gen.h"
#include "log.h"

/* Addresses the Fortran side passes for MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE.
 * [0]: mpif.h / `use mpi` (and Open MPI's mpi_f08, which shares them); [1]: MPICH's mpi_f08. */
typedef struct {
    void *bottom, *in_place;
    MPI_Fint *status_ignore, *statuses_ignore;
} mpii_fsent_t;
extern mpii_fsent_t mpii_fsent[2] __attribute__((visibility("hidden")));
extern int mpii_f_ready __attribute__((visibility("hidden")));
void mpii_f_setup(void) __attribute__((visibility("hidden")));
/* the MPI's own definition of a Fortran symbol (for what the shim does not convert itself) */
void *mpii_f_next(const char *symbol) __attribute__((visibility("hidden")));
/* one load and a branch per call once set up */
#define MPII_F_READY()                                    \
    do {                                                  \
        if (MPII_UNLIKELY(!mpii_f_ready)) mpii_f_setup(); \
    } while (0)

static inline void *mpii_fbuf(void *buf, int k)
{
    if (buf == mpii_fsent[k].bottom) return MPI_BOTTOM;
    if (buf == mpii_fsent[k].in_place) return MPI_IN_PLACE;
    return buf;
}

/* Converted arrays of handles: on the stack up to 32 entries (the common case), beyond
 * that on the heap, since the length is the program's. */
#define MPII_F_ARRAY(type, name, n) \
    type name##_stack[32];          \
    type *name = (n) <= 32 ? name##_stack : malloc((size_t) (n) * sizeof(type))
#define MPII_F_ARRAY_FREE(name)               \
    do {                                      \
        if (name != name##_stack) free(name); \
    } while (0)

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "INTEGER arrays are passed to MPI as int arrays");
/* A Fortran status (INTEGER(MPI_STATUS_SIZE)) is passed on as the C status itself, as both MPIs'
 * own bindings do: the same bytes. */
_Static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "a Fortran status is the C status seen as INTEGERs");
#ifdef MPI_F_STATUS_SIZE
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "a Fortran status is the C status seen as INTEGERs");
#endif
#endif

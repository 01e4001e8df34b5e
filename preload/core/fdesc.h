/* mpi_f08's choice buffers (`TYPE(*), DIMENSION(..)`), which MPICH and Open MPI 6 pass to
 * mpi_x_f08ts_ as gfortran array descriptors: what the generated entry points (src/gen/fortran.ts)
 * need to pass them to the C-level chain. */
#ifndef MPII_FDESC_H
#define MPII_FDESC_H
#include "mpii_gen.h"

/* The data address of a descriptor, MPI_BOTTOM / MPI_IN_PLACE for the sentinels of mpii_fsent[k]
 * (fortran.h); sets *noncontig for a section whose elements are not adjacent (a(1:n:2), a row of
 * a matrix). */
void *mpii_fdesc(const void *desc, int k, int *noncontig) __attribute__((visibility("hidden")));
/* For a non-contiguous section: *type becomes a committed datatype of *count elements laid out
 * as the section, and *count 1 (0). -1 when it cannot: the caller then passes the call to the
 * MPI's own binding. */
int mpii_fdesc_type(const void *desc, int *count, MPI_Datatype *type) __attribute__((visibility("hidden")));
#endif

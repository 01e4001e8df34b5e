/* callsite_lib.c - the shared library of callsite_names.c: a static function making an MPI call
 * between two exported ones, so a stripped copy's .dynsym has a neighbour below it that does not
 * contain it. */
#include <mpi.h>

int __attribute__((noipa)) callsite_lib_before(int x)
{
    int y = 1;
    for (int i = 1; i < x; i++) y *= i;
    return y;
}

static int __attribute__((noipa)) lib_hidden(int value)
{
    int rc = MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD); /* site:lib-hidden */
    return rc == MPI_SUCCESS ? value : -1;
}

int __attribute__((noipa)) callsite_lib_bcast(int value)
{
    return lib_hidden(value) + callsite_lib_before(0) - 1;
}

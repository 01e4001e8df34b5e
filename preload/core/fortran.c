/* Set-up for the Fortran entry points: where the running MPI keeps its Fortran sentinels, and the
 * MPI's own definition of a Fortran symbol. mpi_f08's choice-buffer descriptors: fdesc.c. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include "fortran.h"

mpii_fsent_t mpii_fsent[2];
int mpii_f_ready;

static void *sym(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}

/* the value of a pointer variable the MPI exports, or NULL */
static void *deref(const char *name)
{
    void **p = sym(name);
    return p ? *p : NULL;
}

void *mpii_f_next(const char *symbol)
{
    void *f = dlsym(RTLD_NEXT, symbol);
    if (!f) mpii_missing(symbol);
    return f;
}

void mpii_f_setup(void)
{
    mpii_resolve_all(); /* the PMPI_X_f2c/c2f pointers */
    /* MPICH fills its Fortran sentinels lazily from Fortran (mpirinitf_), before the first call
     * that needs them; we need them before any call, so run it the way its bindings do. */
    int *need = sym("MPIR_F_NeedInit");
    void (*initf)(void) = (void (*)(void)) sym("mpirinitf_");
    if (need && *need && initf) {
        initf();
        *need = 0;
    }
    /* Open MPI: common blocks mpi_fortran_*_, shared by mpif.h, use mpi and use mpi_f08 */
    void *ob = sym("mpi_fortran_bottom_");
    if (ob) {
        mpii_fsent[0].bottom = ob;
        mpii_fsent[0].in_place = sym("mpi_fortran_in_place_");
        mpii_fsent[0].status_ignore = sym("mpi_fortran_status_ignore_");
        mpii_fsent[0].statuses_ignore = sym("mpi_fortran_statuses_ignore_");
    } else {
        /* MPICH: pointers to its common blocks, set by mpirinitf_ above */
        mpii_fsent[0].bottom = deref("MPIR_F_MPI_BOTTOM");
        mpii_fsent[0].in_place = deref("MPIR_F_MPI_IN_PLACE");
        mpii_fsent[0].status_ignore = deref("MPI_F_STATUS_IGNORE");
        mpii_fsent[0].statuses_ignore = deref("MPI_F_STATUSES_IGNORE");
    }
    mpii_fsent[1].bottom = sym("MPIR_F08_MPI_BOTTOM");
    mpii_fsent[1].in_place = sym("MPIR_F08_MPI_IN_PLACE");
    mpii_fsent[1].status_ignore = deref("MPI_F08_STATUS_IGNORE");
    mpii_fsent[1].statuses_ignore = deref("MPI_F08_STATUSES_IGNORE");
    if (!mpii_fsent[1].status_ignore) mpii_fsent[1].status_ignore = sym("MPIR_F08_MPI_STATUS_IGNORE_OBJ");
    if (!mpii_fsent[1].statuses_ignore) mpii_fsent[1].statuses_ignore = sym("MPIR_F08_MPI_STATUSES_IGNORE_OBJ");
    __atomic_store_n(&mpii_f_ready, 1, __ATOMIC_RELEASE);
}

/* Set-up for the Fortran entry points: where the running MPI keeps its Fortran sentinels, and the
 * gfortran array descriptors MPICH's mpi_f08 passes for choice buffers. */
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

/* gfortran's own descriptor (libgfortran.h), what a TYPE(*), DIMENSION(..) dummy of a Fortran
 * (not BIND(C)) procedure receives: strides count elements of `span` bytes. */
struct gfc_dim {
    ptrdiff_t stride, lbound, ubound;
};
struct gfc_desc {
    void *base_addr;
    size_t offset;
    struct {
        size_t elem_len;
        int version;
        signed char rank;
        signed char type;
        short attribute;
    } dtype;
    ptrdiff_t span;
    struct gfc_dim dim[];
};

void *mpii_fdesc(void *desc, int *contiguous)
{
    const struct gfc_desc *d = desc;
    ptrdiff_t expect = 1;
    for (int i = 0; i < d->dtype.rank; i++) {
        ptrdiff_t extent = d->dim[i].ubound - d->dim[i].lbound + 1;
        if (extent <= 0) break; /* empty: nothing is read */
        if (d->dim[i].stride != expect || (ptrdiff_t) d->dtype.elem_len != d->span) *contiguous = 0;
        expect *= extent;
    }
    void *b = d->base_addr;
    if (b == mpii_fsent[1].bottom) return MPI_BOTTOM;
    if (b == mpii_fsent[1].in_place) return MPI_IN_PLACE;
    return b;
}

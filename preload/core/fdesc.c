/* mpi_f08's choice buffers: both MPICH's and Open MPI 6's mpi_x_f08ts_ are Fortran procedures
 * with a `TYPE(*), DIMENSION(..)` dummy, so the caller passes gfortran's own array descriptor
 * (not the TS 29113 CFI_cdesc_t, which the library's binding makes from it later, and whose
 * layout differs). A contiguous buffer is its address; a section with gaps is described by a
 * datatype, as the MPIs' own bindings do, made once per shape and kept. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "fdesc.h"
#include "fortran.h"

/* gfortran's descriptor (libgfortran.h): strides count elements of `span` bytes */
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

void *mpii_fdesc(const void *desc, int k, int *noncontig)
{
    const struct gfc_desc *d = desc;
    ptrdiff_t expect = 1;
    for (int i = 0; i < d->dtype.rank; i++) {
        ptrdiff_t extent = d->dim[i].ubound - d->dim[i].lbound + 1;
        if (extent <= 0) break; /* empty: nothing is read */
        if (d->dim[i].stride != expect || (ptrdiff_t) d->dtype.elem_len != d->span) *noncontig = 1;
        expect *= extent;
    }
    void *b = d->base_addr;
    if (b == mpii_fsent[k].bottom) return MPI_BOTTOM;
    if (b == mpii_fsent[k].in_place) return MPI_IN_PLACE;
    return b;
}

/* The datatypes made for sections, by shape. They are never freed while the program runs: tools
 * and the core's cache (extent.h) know datatypes by handle and forget one only at an MPI_Type_free
 * they see; one the shim freed could come back as the program's next type with a stale size.
 * A program's sections have few shapes (the same a(1:n:2) each iteration): a new shape the table
 * has no room for (FD_SLOTS, FD_PROBES places from its hash) goes to the MPI's own binding. */
#define FD_MAXRANK 15 /* Fortran's */
#define FD_SLOTS 64
#define FD_PROBES 8
typedef struct {
    int used, count, rank;
    MPI_Datatype old, made;
    size_t elem;
    ptrdiff_t extent[FD_MAXRANK], sm[FD_MAXRANK]; /* elements, bytes between them */
} fd_shape_t;
static fd_shape_t fd_shapes[FD_SLOTS];
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;

static int same(const fd_shape_t *a, const fd_shape_t *b)
{
    if (a->count != b->count || a->rank != b->rank || a->old != b->old || a->elem != b->elem) return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->extent[i] != b->extent[i] || a->sm[i] != b->sm[i]) return 0;
    return 1;
}

static unsigned hash(const fd_shape_t *s)
{
    uint64_t h = (uint64_t) (uintptr_t) s->old * 0x9e3779b97f4a7c15ull ^ (uint64_t) s->count;
    for (int i = 0; i < s->rank; i++) h = (h ^ (uint64_t) s->extent[i]) * 0x100000001b3ull ^ (uint64_t) s->sm[i];
    return (unsigned) (h ^ (h >> 29));
}

/* count elements of old along the section, dimension by dimension: each level repeats the one
 * below (1, 2, ... elements of old) extent[i] times sm[i] bytes apart, the last level only as
 * often as count still needs. 0 and the committed type, or -1 (count beyond the section, or not
 * a whole number of the levels below). */
static int make(const fd_shape_t *s, MPI_Datatype *made)
{
    MPI_Datatype t = s->old;
    long long have = 1; /* elements of old in t */
    int rc = MPI_SUCCESS;
    for (int i = 0; i < s->rank && have < s->count && rc == MPI_SUCCESS; i++) {
        if (s->extent[i] <= 0 || s->count % have) break;
        long long need = s->count / have, times = need < s->extent[i] ? need : s->extent[i];
        MPI_Datatype next;
        rc = MPII_PMPI(MPI_Type_create_hvector, MPI_TYPE_CREATE_HVECTOR_T)((int) times, 1, (MPI_Aint) s->sm[i], t,
                                                                           &next);
        /* the levels below were never given to a tool: freeing them is safe */
        if (t != s->old) MPII_PMPI(MPI_Type_free, MPI_TYPE_FREE_T)(&t);
        if (rc != MPI_SUCCESS) return -1;
        t = next;
        have *= times;
    }
    if (have == s->count && t != s->old && rc == MPI_SUCCESS &&
        MPII_PMPI(MPI_Type_commit, MPI_TYPE_COMMIT_T)(&t) == MPI_SUCCESS) {
        *made = t;
        return 0;
    }
    if (t != s->old) MPII_PMPI(MPI_Type_free, MPI_TYPE_FREE_T)(&t);
    return -1;
}

/* old must be a predefined type of the elements' size: a program's own type could be freed and
 * its handle come back as another one, under the shape kept for it */
static int usable(MPI_Datatype old, size_t elem)
{
    int ni, na, nd, combiner, size;
    return MPII_PMPI(MPI_Type_get_envelope, MPI_TYPE_GET_ENVELOPE_T)(old, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
           combiner == MPI_COMBINER_NAMED && MPII_PMPI(MPI_Type_size, MPI_TYPE_SIZE_T)(old, &size) == MPI_SUCCESS &&
           (size_t) size == elem;
}

int mpii_fdesc_type(const void *desc, int *count, MPI_Datatype *type)
{
    const struct gfc_desc *d = desc;
    if (*count <= 0) return 0; /* nothing is sent or received: the address is never read */
    if (d->dtype.rank > FD_MAXRANK) return -1;
    fd_shape_t key = { .used = 1, .count = *count, .rank = d->dtype.rank, .old = *type, .elem = d->dtype.elem_len };
    for (int i = 0; i < key.rank; i++) {
        key.extent[i] = d->dim[i].ubound - d->dim[i].lbound + 1;
        key.sm[i] = d->dim[i].stride * d->span;
    }
    int rc = -1;
    pthread_mutex_lock(&fd_lock);
    fd_shape_t *slot = NULL;
    for (unsigned p = 0, h = hash(&key); p < FD_PROBES; p++) {
        fd_shape_t *e = &fd_shapes[(h + p) % FD_SLOTS];
        if (!e->used) {
            slot = e;
            break;
        }
        if (same(e, &key)) {
            *type = e->made;
            rc = 0;
            break;
        }
    }
    if (rc != 0 && slot && usable(key.old, key.elem) && make(&key, &key.made) == 0) {
        *slot = key;
        *type = key.made;
        rc = 0;
    }
    pthread_mutex_unlock(&fd_lock);
    if (rc == 0) *count = 1;
    return rc;
}

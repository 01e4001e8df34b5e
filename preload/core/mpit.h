/* The core's MPI_T layer: the library's MPI_T entry points (found with dlsym, the shim never
 * links libmpi) for the provider (mpit.c) and the sampler of library variables (mpit_sample.c). */
#ifndef MPII_MPIT_H
#define MPII_MPIT_H
#include "mpii_gen.h"
#include "mpii_tool.h" /* mpii_pvar_t, mpii_pvar_register, mpii_pvar_counters */

typedef struct {
    int (*init_thread)(int required, int *provided);
    int (*finalize)(void);
    int (*pvar_get_num)(int *num);
    int (*pvar_get_info)(int index, char *name, int *name_len, int *verbosity, int *var_class, MPI_Datatype *datatype,
                         MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *readonly, int *continuous,
                         int *atomic);
    int (*pvar_get_index)(const char *name, int var_class, int *index);
    int (*pvar_session_create)(MPI_T_pvar_session *session);
    int (*pvar_session_free)(MPI_T_pvar_session *session);
    int (*pvar_handle_alloc)(MPI_T_pvar_session session, int index, void *obj, MPI_T_pvar_handle *handle, int *count);
    int (*pvar_handle_free)(MPI_T_pvar_session session, MPI_T_pvar_handle *handle);
    int (*pvar_start)(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
    int (*pvar_stop)(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
    int (*pvar_read)(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
    int (*pvar_write)(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf);
    int (*pvar_reset)(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
    int (*pvar_readreset)(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
    int (*category_get_num)(int *num);
    int (*category_get_info)(int index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars,
                             int *num_pvars, int *num_categories);
    int (*category_get_index)(const char *name, int *index);
    int (*category_get_cvars)(int index, int len, int *indices);
    int (*category_get_pvars)(int index, int len, int *indices);
    int (*category_get_categories)(int index, int len, int *indices);
    int (*category_get_num_events)(int index, int *num);
    int (*category_get_events)(int index, int len, int *indices);
    int (*category_changed)(int *stamp);
    MPI_T_pvar_handle all_handles; /* MPI_T_PVAR_ALL_HANDLES (an object in libmpich) */
} mpii_mpit_lib_t;

/* The library's MPI_T functions (NULL where it has none), resolved on first use. */
const mpii_mpit_lib_t *mpii_mpit_lib(void);

/* The library's performance variable called `name` (its index, or -1) and its datatype,
 * binding and continuity (each may be NULL). */
int mpii_mpit_lib_pvar(const char *name, MPI_Datatype *type, int *bind, int *continuous);

/* What MPI_T returns when the library has no MPI_T at all. */
#ifdef MPI_T_ERR_INVALID
#define MPII_MPIT_NONE MPI_T_ERR_INVALID
#else
#define MPII_MPIT_NONE MPI_ERR_OTHER
#endif

/* The communicator an MPI_T object handle names: the standard passes a pointer to the handle
 * (MPI_Comm *, what Open MPI and MPICH dereference), the report's monitoring examples pass the
 * communicator itself (harmless there: the flush variable is bound to no object); the tools'
 * variables accept both. 0, or -1 when it names no communicator. */
int mpii_mpit_comm(void *obj_handle, MPI_Comm *comm);

#endif

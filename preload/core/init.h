/* The top of the core (init.c): the hooks the generated MPI_Init / MPI_Finalize / MPI_Abort
 * wrappers call. init.c uses every other core module; nothing in the core includes this. */
#ifndef MPII_INIT_H
#define MPII_INIT_H
void mpii_before_init(void);
void mpii_after_init(int rc, int session);
void mpii_before_finalize(void);
void mpii_after_finalize(void);
void mpii_on_abort(void);
#endif

/* monitor's MPI_T performance variables (pvars.c): Open MPI's monitoring variables and flush,
 * read from the per-peer table (state.h) and the communicator records (comm_cache.h). */
#ifndef MPII_MONITOR_PVARS_H
#define MPII_MONITOR_PVARS_H
void mon_pvars_register(int tool_id);
void mon_pvars_finish(void); /* at MPI_Finalize: the finalize .prof output */
#endif

/* mpit_sample.c: mpii run --pvar, the MPI library's performance variables sampled into the
 * profile at MPI_Finalize (and at each monitor flush). */
#ifndef MPII_MPIT_SAMPLE_H
#define MPII_MPIT_SAMPLE_H
void mpii_pvar_sampling_start(void);
void mpii_pvar_sampling_end(void);
void mpii_pvar_sample(const char *at); /* also in mpii_tool.h */
#endif

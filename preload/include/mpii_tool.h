/* mpii's additions to the MPICH QMPI API, for tools that want the core's services.
 * A tool written only against QMPI needs none of this; these let a tool hand results to the
 * run's profile (which survives crashes) and read its options from the mpii configuration. */
#ifndef MPII_TOOL_H
#define MPII_TOOL_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Zeroed counters that live in this rank's profile file from the moment they are asked for:
 * whatever the tool counts there is kept even when the job is killed. `labels` names the
 * elements, one per line (may be NULL). Call from the tool's init function or later. */
uint64_t *mpii_profile_counters(int tool_id, const char *section, size_t n, const char *labels);

/* A text (JSON) block for the profile, typically written from the tool's MPI_Finalize wrapper. */
int mpii_profile_text(int tool_id, const char *section, const char *text);

/* The value of option `key` given to this tool instance in the mpii configuration, or NULL. */
const char *mpii_tool_option(int tool_id, const char *key);

/* Debug output that follows INJ_DEBUG, prefixed "MPII <rank>". */
void mpii_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* MPI_COMM_WORLD rank (the launcher's rank before MPI_Init, -1 if unknown). */
int mpii_world_rank(void);

#ifdef __cplusplus
}
#endif
#endif

/* overlap's shared state (state.h). */
#include "state.h"
#include "util.h" /* mpii_now_ns */

int ov_tool;
/* the options (tool.yaml), copied out of mpii_overlap_options_t at MPI_Init for the wrappers */
int ov_threshold;
uint64_t ov_max_bytes;
ov_site_t *ov_current_site;
uint64_t ov_p2p_calls;
uint64_t (*ov_now)(void) = mpii_now_ns;

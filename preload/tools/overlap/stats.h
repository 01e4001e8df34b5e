/* overlap's modes and statistics, without MPI (stats.c; adaptive.c and its unit test include only
 * this, and the unit test defines the two variables itself). The bottom of the tool's layers:
 *   stats      the mode and the statistics (the profile's block "stats")
 *   adaptive   per call site, whether the background version pays (MPI-free)
 *   state      the options and the adaptive bookkeeping of the call being converted
 *   chain      chain learning: where computation starts
 *   requests   the requests in flight, their page guards, their completion
 *   overlap.c  the QMPI wrappers (top) */
#ifndef MPII_OVERLAP_STATS_H
#define MPII_OVERLAP_STATS_H
#include <stdint.h>
#include "overlap_blocks.h" /* ST_*, OV_STAT_LABELS: block "stats" of blocks.yaml, generated */

enum { OV_PAGING, OV_CHAINING, OV_ADAPTIVE };

/* Statistics, in the rank's profile (block "stats" in blocks.yaml). */

extern uint64_t *ov_stats;
extern int ov_mode;

#endif

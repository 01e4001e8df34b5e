/* overlap's modes and statistics, without MPI (adaptive.c and its unit test include only this). */
#ifndef MPII_OVERLAP_STATS_H
#define MPII_OVERLAP_STATS_H
#include <stdint.h>
#include "overlap_blocks.h" /* ST_*, OV_STAT_LABELS: block "stats" of blocks.yaml, generated */

enum { OV_PAGING, OV_CHAINING, OV_ADAPTIVE };

/* Statistics, in the rank's profile (block "stats" in blocks.yaml). */

extern uint64_t *ov_stats;
extern int ov_mode;

#endif

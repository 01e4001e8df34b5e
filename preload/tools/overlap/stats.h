/* overlap's modes and statistics, without MPI (adaptive.c and its unit test include only this). */
#ifndef MPII_OVERLAP_STATS_H
#define MPII_OVERLAP_STATS_H
#include <stdint.h>

enum { OV_PAGING, OV_CHAINING, OV_ADAPTIVE };

/* Statistics, in the rank's profile (block "stats" in blocks.yaml: ST_*, OV_STAT_LABELS, generated). */
#include "overlap_blocks.h"

extern uint64_t *ov_stats;
extern int ov_mode;

#endif

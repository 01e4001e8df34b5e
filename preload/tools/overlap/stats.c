/* overlap's mode and statistics (stats.h): set at MPI_Init by overlap.c, counted by every layer. */
#include "stats.h"

uint64_t *ov_stats;
int ov_mode; /* the option (tool.yaml), copied out at MPI_Init */

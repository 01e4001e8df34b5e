/* memcheck's options and statistics (state.h): set by memcheck.c at MPI_Init, read by every layer. */
#include "state.h"

int mc_tool;
uint64_t *mc_stats;
int mc_strict, mc_fatal, mc_valgrind;
__thread int mc_in_library;

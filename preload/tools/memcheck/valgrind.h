/* memcheck's rules as Valgrind client requests (valgrind.c), when the program runs under Valgrind. */
#ifndef MPII_MEMCHECK_VALGRIND_H
#define MPII_MEMCHECK_VALGRIND_H
#include <stddef.h>
#include <stdint.h>
#include "state.h"

int mc_valgrind_running(void);
void mc_vg_start(const mc_range_t *r, int nranges); /* buffers become MPI's */
void mc_vg_complete(const mc_range_t *r, int nranges, uint64_t received);
void mc_vg_lift(const mc_range_t *r, int nranges);      /* around MPI calls */
void mc_vg_check(const void *p, size_t n, int defined); /* E1/E2 addressable, E3 defined */
void mc_vg_status_error(MPI_Status *st);                /* E4 */
#endif

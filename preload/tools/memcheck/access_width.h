/* memcheck: the width of a faulting access (access_width.c). */
#ifndef MPII_MEMCHECK_ACCESS_WIDTH_H
#define MPII_MEMCHECK_ACCESS_WIDTH_H
/* Bytes the faulting instruction (a signal's ucontext) reads or writes; 0: unknown. */
unsigned mc_access_width(const void *context);
#endif

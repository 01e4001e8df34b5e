/* The loaded object that holds a code address, as the reports need it to turn the address into
 * function and file:line (src/report/addr2line.ts): its executable range, its load bias and its
 * path (object_of.c). For tools that name call sites (profile, overlap); not for signal handlers. */
#ifndef MPII_OBJECT_OF_H
#define MPII_OBJECT_OF_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uintptr_t lo, hi; /* the object's executable segments (lo..hi), or addr..addr+1 when unknown */
    uintptr_t bias;   /* load bias: the address's place in the ELF file is addr - bias */
} mpii_object_t;

/* 1 and *o and path (the main program's as /proc/self/exe gives it) when a loaded object holds
 * addr; 0 when none does (generated code), with o->lo..hi = addr..addr+1. */
int mpii_object_of(uintptr_t addr, mpii_object_t *o, char *path, size_t path_size);
#endif

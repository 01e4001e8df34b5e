/* memcheck's findings (findings.c): dedup per call site, profile records, stderr lines, backtraces. */
#ifndef MPII_MEMCHECK_FINDINGS_H
#define MPII_MEMCHECK_FINDINGS_H
#include <stdint.h>
#include "state.h"

typedef struct {
    int kind;
    const mc_origin_t *origin; /* the MPI call owning the buffer (NULL: none) */
    uintptr_t addr;            /* the access or the first byte concerned */
    uintptr_t base, len;       /* the buffer */
    uint64_t bytes;            /* bytes concerned (overrun past the end, unread bytes) */
    int access;                /* 0 read, 1 write, -1 unknown / not an access */
    void *ucontext;            /* the faulting context (signal handler), or NULL */
} mc_finding_t;
int mc_findings_start(void);
/* The findings per kind as MPI_T performance variables. */
void mc_findings_publish(void);
/* Record (deduplicated per kind, call site and faulting instruction) and print. Signal-safe. */
void mc_report(const mc_finding_t *f);
/* The load map of the process, for the CLI's addr2line (at start and at finalize). */
void mc_findings_save_objects(void);
#endif

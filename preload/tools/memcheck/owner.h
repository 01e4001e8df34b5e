/* memcheck: whose code made an access, the MPI library's or the program's (owner.c). */
#ifndef MPII_MEMCHECK_OWNER_H
#define MPII_MEMCHECK_OWNER_H

/* At MPI_Init's entry: which objects are loaded before it (what it loads is the library's). */
void mc_owner_before_init(void);
/* After MPI_Init: the snapshot of the loaded objects and their owners. */
void mc_owner_start(void);
/* In the SIGSEGV handler: whether the faulting instruction (the context's pc, or its first caller
 * outside shared code such as memcpy) is the MPI library's. */
int mc_owner_library_fault(void *ucontext);
/* In a system-call wrapper: whether its first caller outside shared code (and the shim) is the
 * MPI library's. */
int mc_owner_library_caller(void);
#endif

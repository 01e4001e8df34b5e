/* A memory barrier on every running thread of the process, asked for by one thread: the slow side
 * of an asymmetric handshake, whose fast side then needs only a compiler barrier (see profile.c,
 * "one thread at MPI_THREAD_MULTIPLE"). */
#ifndef MPII_PROCESS_BARRIER_H
#define MPII_PROCESS_BARRIER_H

/* Call once, early (at MPI_Init): registers with membarrier(2) where the kernel has it. */
void pf_process_barrier_prepare(void);

/* After it returns, every store another thread made before this call is visible here, and every
 * store made here before it is visible to a load that thread makes after. */
void pf_process_barrier(void);

#endif

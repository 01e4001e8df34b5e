/* gather.c: every rank's profile image to the writer, through group leaders, streamed into the
 * writer's file in rank order (profile_file.c calls it at MPI_Finalize). */
#ifndef MPII_GATHER_H
#define MPII_GATHER_H
#include <stddef.h>
#include "mpii_gen.h"

/* Collective over `comm` (a duplicate of MPI_COMM_WORLD: rank r is world rank r). Each rank
 * passes its image (`mine`, `mine_len` bytes); the writer also the open file `fd`, into which it
 * writes every rank's image in rank order, and `capacity`, the largest an image can be. Returns
 * on the writer 1 when every image reached the file whole, 0 otherwise (the caller tells the
 * others). */
int mpii_gather_images(MPI_Comm comm, int writer, const void *mine, int mine_len, int fd, size_t capacity);

/* The size of a leader's group for a job of n ranks (the writer talks to about 2·√n ranks). */
int mpii_gather_group(int n);
#endif

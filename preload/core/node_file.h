/* node_file.c: a process's slot in its host's node file, <dir>/node-<host>.live, where its
 * profile image lives while the job runs (profile_file.c). */
#ifndef MPII_NODE_FILE_H
#define MPII_NODE_FILE_H
#include <stddef.h>
#include <stdint.h>
#include "mpii_profile_format.h"

/* A slot held (`held`; initialise it to 0). No descriptor is kept open: a program that closes
 * descriptors it did not open, then opens a file of its own under the same number, would have its
 * file taken for the node file; the release opens the file again by `path` and releases only in
 * the file of this device and inode. */
typedef struct {
    int held;
    uint64_t offset; /* where the slot starts in the file */
    uint64_t dev, ino;
    char path[4200];
} mpii_node_slot_t;

/* Claims a slot in dir's node file (made when absent) and maps it shared: at `at` when given
 * (MAP_FIXED, replacing what is mapped there), else where the kernel puts it. With `copy`, the
 * slot first gets those `len` bytes (an image moving in). Returns the mapping, or MAP_FAILED
 * with errno set. */
void *mpii_slot_claim(mpii_node_slot_t *s, const char *dir, void *at, const void *copy, size_t len);

/* Gives the slot back: its image's magic zeroed in the file (the reader skips it; `punch`: its
 * pages freed too, which zeroes them under any mapping of them, so only once nothing maps it);
 * the process that releases a file's last slot removes the file. */
void mpii_slot_release(mpii_node_slot_t *s, int punch);
#endif

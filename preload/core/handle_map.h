/* A map from MPI handles (pointers in Open MPI, integers in MPICH) to pointers, for the tools that
 * keep state per handle (the monitor's communicators and requests, the profile's persistent
 * requests): open addressing with linear probing and backward-shift deletion, so a lookup on the
 * hot path is a multiply and usually one probe, and no tombstones pile up as handles come and go. */
#ifndef MPII_HANDLE_MAP_H
#define MPII_HANDLE_MAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uintptr_t *keys; /* 0 = empty slot */
    void **vals;
    size_t cap, used; /* cap is 0 or a power of two */
} handle_map_t;

#define HANDLE_KEY(handle) ((uintptr_t) (handle))

static inline size_t handle_map_slot(const handle_map_t *m, uintptr_t key)
{
    key ^= key >> 29; /* pointers and small integers both spread */
    return (size_t) (key * 0x9E3779B97F4A7C15ull) & (m->cap - 1);
}

static inline void *handle_map_get(const handle_map_t *m, uintptr_t key)
{
    if (!m->cap) return NULL;
    for (size_t i = handle_map_slot(m, key); m->keys[i]; i = (i + 1) & (m->cap - 1))
        if (m->keys[i] == key) return m->vals[i];
    return NULL;
}

int handle_map_put(handle_map_t *m, uintptr_t key, void *val); /* 0, or -1 without memory */
void *handle_map_take(handle_map_t *m, uintptr_t key);         /* removes; returns the value */
#endif

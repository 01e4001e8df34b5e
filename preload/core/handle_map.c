/* handle_map.h: insertion, growth and deletion (the lookup is inline in the header). */
#include <stdlib.h>
#include "handle_map.h"

static int grow(handle_map_t *m)
{
    handle_map_t bigger = { 0 };
    bigger.cap = m->cap ? m->cap * 2 : 64;
    bigger.keys = calloc(bigger.cap, sizeof *bigger.keys);
    bigger.vals = calloc(bigger.cap, sizeof *bigger.vals);
    if (!bigger.keys || !bigger.vals) {
        free(bigger.keys);
        free(bigger.vals);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i]) handle_map_put(&bigger, m->keys[i], m->vals[i]);
    free(m->keys);
    free(m->vals);
    *m = bigger;
    return 0;
}

int handle_map_put(handle_map_t *m, uintptr_t key, void *val)
{
    if (!key) return -1;
    if ((m->used + 1) * 2 > m->cap && grow(m) != 0) return -1;
    size_t i = handle_map_slot(m, key);
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
    if (!m->keys[i]) m->used++;
    m->keys[i] = key;
    m->vals[i] = val;
    return 0;
}

void *handle_map_take(handle_map_t *m, uintptr_t key)
{
    if (!m->cap || !key) return NULL;
    size_t mask = m->cap - 1, i = handle_map_slot(m, key);
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & mask;
    if (!m->keys[i]) return NULL;
    void *val = m->vals[i];
    /* backward shift: move later members of the probe run into the hole */
    for (size_t j = (i + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
        size_t home = handle_map_slot(m, m->keys[j]);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            i = j;
        }
    }
    m->keys[i] = 0;
    m->vals[i] = NULL;
    m->used--;
    return val;
}

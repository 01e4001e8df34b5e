/* The loaded object that holds a code address (object_of.h). */
#define _GNU_SOURCE
#include <link.h>
#include <string.h>
#include <unistd.h>
#include "object_of.h"

struct search {
    uintptr_t addr;
    mpii_object_t *o;
    const char *name;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void) size;
    struct search *m = data;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    int hit = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t s = info->dlpi_addr + ph->p_vaddr, e = s + ph->p_memsz;
        if (m->addr >= s && m->addr < e) hit = 1;
        if (!(ph->p_flags & PF_X)) continue;
        if (s < lo) lo = s;
        if (e > hi) hi = e;
    }
    if (!hit) return 0;
    m->o->lo = lo < hi ? lo : m->addr;
    m->o->hi = lo < hi ? hi : m->addr + 1;
    m->o->bias = info->dlpi_addr;
    m->name = info->dlpi_name;
    return 1;
}

int mpii_object_of(uintptr_t addr, mpii_object_t *o, char *path, size_t path_size)
{
    struct search m = { addr, o, NULL };
    *o = (mpii_object_t){ addr, addr + 1, 0 };
    if (path_size) *path = 0;
    if (!dl_iterate_phdr(find_object, &m)) return 0;
    if (!path_size) return 1;
    if (m.name && *m.name) {
        strncpy(path, m.name, path_size - 1);
        path[path_size - 1] = 0;
    } else { /* the main program */
        ssize_t n = readlink("/proc/self/exe", path, path_size - 1);
        path[n > 0 ? n : 0] = 0;
    }
    return 1;
}

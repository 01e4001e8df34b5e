/* The node file: every profile image of one host's processes in one output directory,
 * <dir>/node-<host>.live, so a job of N ranks on M hosts leaves M files there, not N. A header
 * page (node_header: magic, version, slot size, slots claimed, slots still live) and then a slot
 * of MPII_NODE_SLOT_BYTES per process, mapped shared at its offset; the layout is declared in
 * preload/spec/profile-file.yaml (docs/profile-file.md).
 *
 * No lock and no agreement between the processes: each claims its slot with an atomic
 * fetch-add on the header's counter, once at its start (the header page is mapped only while a
 * process claims or releases, so a stray write of the program's reaches its own slot at most).
 * The file only ever grows, by writing one byte at the end of what a process needs (never
 * ftruncate, which could cut another process's slot from under its mapping: SIGBUS). A slot is
 * released by zeroing its image's magic and punching its pages out; the live count says when the
 * last one is gone, and whoever releases it removes the file. A process killed at any moment
 * leaves its slot as it was: the image with what it counted, read by mpii report.
 *
 * One file per host name: processes of one host share the kernel's page cache of the file, so
 * the atomics in the shared header page are atomics for all of them (the MPI launchers take a
 * host name for a machine too). A process that cannot use the host's file (another writer's
 * layout in it, or closed for good) takes node-<host>-<pid>.live, a node file of its own. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "node_file.h"
#include "util.h"

typedef uint64_t __attribute__((may_alias)) word_t; /* the header's magic, read and set as one word */

enum { CLAIMED, CLOSED, FOREIGN, FAILED };

/* The file is at least `end` bytes long: one byte written at end - 1 if it is shorter. That byte
 * is the caller's own (the header page's unused last byte, the last byte of its slot). */
static int extend_to(int fd, uint64_t end)
{
    struct stat st;
    if (fstat(fd, &st) != 0) return -1;
    if ((uint64_t) st.st_size >= end) return 0;
    return pwrite(fd, "", 1, (off_t) end - 1) == 1 ? 0 : -1;
}

/* The header is this writer's layout: whoever finds it empty fills it in (all fill in the same
 * values) and publishes the magic last, so a magic seen means the fields behind it are set. */
static int header_ours(mpii_node_header_t *h)
{
    word_t want, seen;
    memcpy(&want, MPII_NODE_MAGIC, sizeof want);
    seen = __atomic_load_n((word_t *) h->magic, __ATOMIC_ACQUIRE);
    if (seen == 0) {
        h->version = MPII_NODE_VERSION;
        h->header_bytes = MPII_NODE_HEADER_BYTES;
        h->slot_bytes = MPII_NODE_SLOT_BYTES;
        if (__atomic_compare_exchange_n((word_t *) h->magic, &seen, want, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return 1;
    }
    return seen == want && h->version == MPII_NODE_VERSION && h->header_bytes == MPII_NODE_HEADER_BYTES &&
           h->slot_bytes == MPII_NODE_SLOT_BYTES;
}

/* One more live slot, unless the file is closed: its last slot was released and it is being
 * removed (a slot claimed in it now would go with it). */
static int enter(mpii_node_header_t *h)
{
    uint64_t v = __atomic_load_n(&h->live, __ATOMIC_ACQUIRE);
    do {
        if (v & MPII_NODE_CLOSED) return 0;
    } while (!__atomic_compare_exchange_n(&h->live, &v, v + 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    return 1;
}

static mpii_node_header_t *map_header(int fd)
{
    void *h = mmap(NULL, MPII_NODE_HEADER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return h == MAP_FAILED ? NULL : h;
}

/* One live slot fewer; the last one out closes the file (unless someone entered meanwhile, whose
 * count then stops the close) and removes it. */
static void leave(mpii_slot_t *s)
{
    mpii_node_header_t *h = map_header(s->fd);
    if (h) {
        uint64_t left = __atomic_sub_fetch(&h->live, 1, __ATOMIC_ACQ_REL), zero = 0;
        if (left == 0 &&
            __atomic_compare_exchange_n(&h->live, &zero, MPII_NODE_CLOSED, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            unlink(s->path);
        munmap(h, MPII_NODE_HEADER_BYTES);
    }
    close(s->fd);
    s->fd = -1;
}

static int claim_in(mpii_slot_t *s, void **mem, void *at, const void *copy, size_t len)
{
    s->fd = open(s->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (s->fd < 0) return FAILED;
    mpii_node_header_t *h = extend_to(s->fd, MPII_NODE_HEADER_BYTES) == 0 ? map_header(s->fd) : NULL;
    int why = !h ? FAILED : !header_ours(h) ? FOREIGN : !enter(h) ? CLOSED : CLAIMED;
    uint64_t slot = why == CLAIMED ? __atomic_fetch_add(&h->claimed, 1, __ATOMIC_ACQ_REL) : 0;
    /* mapped only while claiming and releasing: a stray write of the program's cannot reach it */
    int saved = errno;
    if (h) munmap(h, MPII_NODE_HEADER_BYTES);
    if (why != CLAIMED) {
        close(s->fd);
        s->fd = -1;
        errno = saved;
        return why;
    }
    s->offset = MPII_NODE_HEADER_BYTES + slot * MPII_NODE_SLOT_BYTES;
    /* a copy goes in magic last: a slot left half-written reads as never written */
    const char *c = copy;
    size_t magic = sizeof(((mpii_image_header_t *) 0)->magic);
    int ok =
        extend_to(s->fd, s->offset + MPII_NODE_SLOT_BYTES) == 0 &&
        (!copy || (len >= magic && mpii_write_all(s->fd, c + magic, len - magic, (int64_t) (s->offset + magic)) == 0 &&
                   mpii_write_all(s->fd, c, magic, (int64_t) s->offset) == 0));
    *mem = ok ? mmap(at, MPII_NODE_SLOT_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | (at ? MAP_FIXED : 0), s->fd,
                     (off_t) s->offset)
              : MAP_FAILED;
    if (*mem != MAP_FAILED) return CLAIMED;
    saved = errno;
    mpii_slot_release(s, 0); /* a copy that went in whole goes out again */
    errno = saved;
    return FAILED;
}

void *mpii_slot_claim(mpii_slot_t *s, const char *dir, void *at, const void *copy, size_t len)
{
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    void *mem = MAP_FAILED;
    /* the host's file; a file of this process's own when that one is another writer's layout or
     * stays closed (its last process died between closing and removing it) */
    for (int own = 0; own < 2; own++) {
        if (own) snprintf(s->path, sizeof s->path, "%s/node-%s-%d.live", dir, host, (int) getpid());
        else
            snprintf(s->path, sizeof s->path, "%s/node-%s.live", dir, host);
        int why = CLOSED;
        for (int tries = 0; why == CLOSED && tries < 200; tries++) {
            why = claim_in(s, &mem, at, copy, len);
            if (why == CLOSED) nanosleep(&(struct timespec){ 0, 5000000 }, NULL); /* until it is removed */
        }
        if (why == CLAIMED || why == FAILED) return mem;
    }
    errno = EEXIST;
    return MAP_FAILED;
}

void mpii_slot_release(mpii_slot_t *s, int punch)
{
    if (s->fd < 0) return;
    static const char zero[sizeof(((mpii_image_header_t *) 0)->magic)];
    (void) mpii_write_all(s->fd, zero, sizeof zero, (int64_t) s->offset);
    if (punch)
        (void) fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t) s->offset,
                         (off_t) MPII_NODE_SLOT_BYTES); /* a file system without holes keeps the zeros */
    leave(s);
}

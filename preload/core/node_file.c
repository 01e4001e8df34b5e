/* The node file: every profile image of one host's processes in one output directory,
 * <dir>/node-<host>.live, so a job of N ranks on M hosts leaves M files there, not N. A header
 * page (node_header: magic, version, slot size, slots claimed, slots still live) and then a slot
 * of MPII_NODE_SLOT_BYTES per process, mapped shared at its offset; the layout is declared in
 * preload/spec/profile-file.yaml (docs/profile-file.md).
 *
 * No lock and no agreement between the processes: the one whose O_EXCL create makes the file
 * writes its header (the magic last); each claims its slot with an atomic fetch-add on the
 * header's counter, once at its start (the header page is mapped only while a process claims or
 * releases, so a stray write of the program's reaches its own slot at most; and no descriptor is
 * kept between the two, node_file.h).
 * The file only ever grows, by writing one byte at the end of what a process needs (never
 * ftruncate, which could cut another process's slot from under its mapping: SIGBUS). A slot is
 * released by zeroing its image's magic and punching its pages out; the live count says when the
 * last one is gone, and whoever releases it removes the file. A process killed at any moment
 * leaves its slot as it was: the image with what it counted, read by mpii report.
 *
 * One file per host name: processes of one host share the kernel's page cache of the file, so
 * the atomics in the shared header page are atomics for all of them. Two machines that report the
 * same host name and write to one shared directory would share a file too, which is not safe
 * (docs/profile-file.md says so). A process that cannot use the host's file (another writer's
 * layout in it, a header never finished, or closed for good) takes node-<host>-<pid>.live, a node
 * file of its own. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "node_file.h"
#include "util.h"

typedef uint64_t __attribute__((may_alias)) word_t; /* the header's magic, read as one word */

/* a claim's outcome; ELSEWHERE: this file cannot take the process, a file of its own may */
enum { CLAIMED, RETRY, ELSEWHERE, FAILED };

/* The file is at least `end` bytes long: one byte written at end - 1 if it is shorter. That byte
 * is the caller's own (the header page's unused last byte, the last byte of its slot). Past the
 * process's file size limit (`ulimit -f`), EFBIG instead of the write's SIGXFSZ, which would kill
 * the process. */
static int extend_to(int fd, uint64_t end)
{
    struct stat st;
    struct rlimit limit;
    if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && end > (uint64_t) limit.rlim_cur) {
        errno = EFBIG;
        return -1;
    }
    if (fstat(fd, &st) != 0) return -1;
    if ((uint64_t) st.st_size >= end) return 0;
    return pwrite(fd, "", 1, (off_t) end - 1) == 1 ? 0 : -1;
}

/* The node file at `path`, opened; made when absent. Only the process whose O_EXCL create made
 * it writes its header, the magic last, so no process ever writes a header another has written
 * (of another layout, say). */
static int open_file(const char *path)
{
    for (int tries = 0; tries < 3; tries++) {
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd >= 0 || errno != ENOENT) return fd;
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) {
            if (errno == EEXIST) continue; /* another process made it first: open that one */
            return -1;
        }
        mpii_node_header_t h;
        memset(&h, 0, sizeof h);
        h.version = MPII_NODE_VERSION;
        h.header_bytes = MPII_NODE_HEADER_BYTES;
        h.slot_bytes = MPII_NODE_SLOT_BYTES;
        size_t magic = sizeof h.magic;
        if (extend_to(fd, MPII_NODE_HEADER_BYTES) == 0 &&
            mpii_write_all(fd, (char *) &h + magic, sizeof h - magic, (int64_t) magic) == 0 &&
            mpii_write_all(fd, MPII_NODE_MAGIC, magic, 0) == 0)
            return fd;
        int saved = errno;
        close(fd);
        unlink(path); /* a header never written: no process can claim in it */
        errno = saved;
        return -1;
    }
    errno = EEXIST;
    return -1;
}

/* The header is this writer's layout (CLAIMED), another's (ELSEWHERE), or not written yet: its
 * maker is between creating the file and writing the magic (RETRY). */
static int header_state(const mpii_node_header_t *h)
{
    word_t want, seen = __atomic_load_n((const word_t *) h->magic, __ATOMIC_ACQUIRE);
    memcpy(&want, MPII_NODE_MAGIC, sizeof want);
    if (seen == 0) return RETRY;
    return seen == want && h->version == MPII_NODE_VERSION && h->header_bytes == MPII_NODE_HEADER_BYTES &&
                   h->slot_bytes == MPII_NODE_SLOT_BYTES
               ? CLAIMED
               : ELSEWHERE;
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

/* `path` still names the file open as fd (not a newer one made after this one was removed). */
static int same_file(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The slot's image out of the file, then one live slot fewer; the last one out closes the file
 * (unless someone entered meanwhile, whose count then stops the close) and removes it. */
static void release_in(int fd, const mpii_node_slot_t *s, int punch)
{
    static const char zero[sizeof(((mpii_image_header_t *) 0)->magic)];
    struct stat st;
    /* a slot the file never grew to (its claim failed there) has nothing in it, and a write past
     * the file size limit would be SIGXFSZ */
    int in_file = fstat(fd, &st) == 0 && (uint64_t) st.st_size > s->offset;
    if (in_file) (void) mpii_write_all(fd, zero, sizeof zero, (int64_t) s->offset);
    /* a file system without holes keeps the rest of the image, unread without its magic, until
     * the file is removed */
    if (in_file && punch)
        (void) fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t) s->offset,
                         (off_t) MPII_NODE_SLOT_BYTES);
    mpii_node_header_t *h = map_header(fd);
    if (!h) return;
    uint64_t left = __atomic_sub_fetch(&h->live, 1, __ATOMIC_ACQ_REL), zero_live = 0;
    if (left == 0 &&
        __atomic_compare_exchange_n(&h->live, &zero_live, MPII_NODE_CLOSED, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
        same_file(fd, s->path))
        unlink(s->path);
    munmap(h, MPII_NODE_HEADER_BYTES);
}

static int claim_in(mpii_node_slot_t *s, void **mem, void *at, const void *copy, size_t len)
{
    int fd = open_file(s->path);
    if (fd < 0) return FAILED;
    /* its maker may not have grown it to the header page yet: a mapping past the end is SIGBUS.
     * (Its device and inode, kept below, are the file's for as long as fd is open.) */
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return FAILED;
    }
    if (st.st_size < MPII_NODE_HEADER_BYTES) {
        close(fd);
        errno = EEXIST;
        return RETRY;
    }
    mpii_node_header_t *h = map_header(fd);
    int why = !h ? FAILED : header_state(h);
    if (why == CLAIMED && !enter(h)) why = RETRY;
    if (why == CLAIMED)
        s->offset =
            MPII_NODE_HEADER_BYTES + __atomic_fetch_add(&h->claimed, 1, __ATOMIC_ACQ_REL) * MPII_NODE_SLOT_BYTES;
    /* mapped only while claiming and releasing: a stray write of the program's cannot reach it */
    int saved = errno;
    if (h) munmap(h, MPII_NODE_HEADER_BYTES);
    if (why != CLAIMED) {
        close(fd);
        errno = why == FAILED ? saved : EEXIST;
        return why;
    }
    /* a copy goes in magic last: a slot left half-written reads as never written */
    const char *c = copy;
    size_t magic = sizeof(((mpii_image_header_t *) 0)->magic);
    int ok =
        extend_to(fd, s->offset + MPII_NODE_SLOT_BYTES) == 0 &&
        (!copy || (len >= magic && mpii_write_all(fd, c + magic, len - magic, (int64_t) (s->offset + magic)) == 0 &&
                   mpii_write_all(fd, c, magic, (int64_t) s->offset) == 0));
    *mem = ok ? mmap(at, MPII_NODE_SLOT_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | (at ? MAP_FIXED : 0), fd,
                     (off_t) s->offset)
              : MAP_FAILED;
    saved = errno;
    if (*mem != MAP_FAILED) {
        s->held = 1;
        s->dev = (uint64_t) st.st_dev;
        s->ino = (uint64_t) st.st_ino;
    } else {
        release_in(fd, s, 0); /* a copy that went in whole goes out again */
    }
    close(fd); /* the mapping keeps the file */
    errno = saved;
    /* a file too long for this process (its slot is far in): its own file's first slot may fit */
    return s->held ? CLAIMED : saved == EFBIG ? ELSEWHERE : FAILED;
}

void *mpii_slot_claim(mpii_node_slot_t *s, const char *dir, void *at, const void *copy, size_t len)
{
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    void *mem = MAP_FAILED;
    s->held = 0;
    /* the host's file; a file of this process's own when that one is another writer's layout, or
     * stays closed or without a header (its last process, or its maker, died in between) */
    for (int own = 0; own < 2; own++) {
        if (own) snprintf(s->path, sizeof s->path, "%s/node-%s-%d.live", dir, host, (int) getpid());
        else
            snprintf(s->path, sizeof s->path, "%s/node-%s.live", dir, host);
        int why = RETRY;
        for (int tries = 0; why == RETRY && tries < 200; tries++) {
            why = claim_in(s, &mem, at, copy, len);
            if (why == RETRY) nanosleep(&(struct timespec){ 0, 5000000 }, NULL); /* until it is removed or written */
        }
        if (why == CLAIMED || why == FAILED) return mem;
    }
    return MAP_FAILED; /* errno: EEXIST, or EFBIG when not even a slot of its own fits */
}

void mpii_slot_release(mpii_node_slot_t *s, int punch)
{
    if (!s->held) return;
    s->held = 0;
    int fd = open(s->path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return; /* removed meanwhile: nothing of this slot is left to release */
    struct stat st;
    if (fstat(fd, &st) == 0 && (uint64_t) st.st_dev == s->dev && (uint64_t) st.st_ino == s->ino)
        release_in(fd, s, punch); /* not another file made since under the same name */
    close(fd);
}

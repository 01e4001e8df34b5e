/* node_file_unit.c - the node file's slots (preload/core/node_file.c) on their own, no MPI: linked
 * with node_file.c, forked processes claim, move and release slots at the same time, as a host's
 * ranks do. Each writes an image (rank = its index, one text record "fill" of FILL bytes of its
 * index) into its slot.
 *
 *   DIR/a: PROCS processes claim at once and say their slot's offset; then every 4th moves to
 *          DIR/a/sub (a spawned job's move: a slot there, the image copied in and remapped at the
 *          same address, the old slot released) and stays there; of the others every 3rd exits
 *          without releasing (a crash), the rest release.
 *   DIR/b: PROCS processes claim and release CHURN times each, all at once: the file is removed
 *          and made again under them (a release that empties it while another claims).
 *
 * Prints "distinct=<0|1> claimed=<n> live=<n> moved_ok=<n> crashed=<n> stayed=<n> churn_failures=<n>
 * b_files=<n> bad=<n>": the slots' offsets were distinct, DIR/a's header after the claims, how
 * many moves kept the image intact at its address, how many processes crashed, the live count
 * left in DIR/a, claims in DIR/b that failed or lost their image, the files left in DIR/b, and
 * processes of DIR/a that failed.
 *
 * Usage: node_file_unit DIR PROCS CHURN */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "node_file.h"

#define FILL 8192

static void put_image(void *slot, int rank)
{
    mpii_image_header_t *h = slot;
    h->version = MPII_FORMAT_VERSION;
    h->state = MPII_STATE_RUNNING;
    h->rank = rank;
    h->size = -1;
    h->pid = (int32_t) getpid();
    h->capacity = MPII_NODE_SLOT_BYTES;
    snprintf(h->host, sizeof h->host, "unit");
    mpii_record_t *r = (mpii_record_t *) (h + 1);
    *r = (mpii_record_t){ MPII_REC_TEXT, 0, FILL, 4, 0 };
    memcpy(r + 1, "fill", 4);
    memset((char *) (r + 1) + 8, 'a' + rank % 26, FILL);
    h->used = sizeof *h + sizeof *r + 8 + FILL;
    memcpy(h->magic, MPII_IMAGE_MAGIC, sizeof h->magic);
}

static int image_is(const void *slot, int rank)
{
    const mpii_image_header_t *h = slot;
    const char *fill = (const char *) slot + sizeof *h + sizeof(mpii_record_t) + 8;
    for (int i = 0; i < FILL; i++)
        if (fill[i] != 'a' + rank % 26) return 0;
    return memcmp(h->magic, MPII_IMAGE_MAGIC, sizeof h->magic) == 0 && h->rank == rank;
}

static mpii_node_header_t read_header(const char *path)
{
    mpii_node_header_t h = { 0 };
    int fd = open(path, O_RDONLY);
    if (fd >= 0 && pread(fd, &h, sizeof h, 0) != sizeof h) memset(&h, 0, sizeof h);
    if (fd >= 0) close(fd);
    return h;
}

/* Everyone waits on `gate` until the parent closes its write end. */
static void wait_gate(int gate)
{
    char c;
    while (read(gate, &c, 1) > 0) {}
}

int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    const char *dir = argv[1];
    int procs = atoi(argv[2]), churn = atoi(argv[3]);
    char a[4096], sub[4200], b[4096], path[4300];
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(sub, sizeof sub, "%s/sub", a);
    snprintf(b, sizeof b, "%s/b", dir);
    mkdir(a, 0755);
    mkdir(sub, 0755);
    mkdir(b, 0755);

    int start[2], go[2], said[2];
    if (pipe(start) || pipe(go) || pipe(said)) return 2;
    for (int i = 0; i < procs; i++) {
        if (fork() != 0) continue;
        close(start[1]);
        close(go[1]);
        wait_gate(start[0]);
        mpii_slot_t s = { .fd = -1 };
        void *mem = mpii_slot_claim(&s, a, NULL, NULL, 0);
        if (mem == MAP_FAILED) _exit(3);
        put_image(mem, i);
        uint64_t off = s.offset;
        if (write(said[1], &off, sizeof off) != sizeof off) _exit(3);
        wait_gate(go[0]);
        if (i % 4 == 3) {
            mpii_slot_t moved = { .fd = -1 };
            if (mpii_slot_claim(&moved, sub, mem, mem, ((mpii_image_header_t *) mem)->used) == MAP_FAILED) _exit(4);
            mpii_slot_release(&s, 1);
            _exit(image_is(mem, i) ? 10 : 5); /* stays in sub: as if it crashed there */
        }
        if (i % 3 == 0) _exit(11); /* crashed: the slot stays */
        mpii_slot_release(&s, 0);     /* still mapped here: not punched */
        _exit(0);
    }
    close(start[0]);
    close(go[0]);
    close(said[1]);
    close(start[1]); /* all claim at once */
    uint64_t *offs = calloc((size_t) procs, sizeof *offs);
    int n = 0;
    while (n < procs && read(said[0], &offs[n], sizeof offs[n]) == sizeof offs[n]) n++;
    int distinct = n == procs;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) distinct &= offs[i] != offs[j];
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    snprintf(path, sizeof path, "%s/node-%s.live", a, host);
    mpii_node_header_t claimed = read_header(path);
    close(go[1]);
    int moved_ok = 0, crashed = 0, bad = 0;
    for (int i = 0; i < procs; i++) {
        int st = 0;
        wait(&st);
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        moved_ok += code == 10;
        crashed += code == 11;
        bad += code != 0 && code != 10 && code != 11;
    }
    mpii_node_header_t after = read_header(path);

    /* DIR/b: claims and releases of every process at once, CHURN times each */
    int gate[2];
    if (pipe(gate)) return 2;
    for (int i = 0; i < procs; i++) {
        if (fork() != 0) continue;
        close(gate[1]);
        wait_gate(gate[0]);
        int failures = 0;
        for (int k = 0; k < churn; k++) {
            mpii_slot_t s = { .fd = -1 };
            void *mem = mpii_slot_claim(&s, b, NULL, NULL, 0);
            if (mem == MAP_FAILED) {
                failures++;
                continue;
            }
            put_image(mem, i);
            failures += !image_is(mem, i);
            munmap(mem, MPII_NODE_SLOT_BYTES);
            mpii_slot_release(&s, 1);
        }
        _exit(failures > 250 ? 250 : failures);
    }
    close(gate[1]);
    int churn_failures = 0;
    for (int i = 0; i < procs; i++) {
        int st = 0;
        wait(&st);
        churn_failures += WIFEXITED(st) ? WEXITSTATUS(st) : 1000;
    }
    int b_files = 0;
    DIR *d = opendir(b);
    for (struct dirent *e; d && (e = readdir(d));) b_files += e->d_name[0] != '.';
    if (d) closedir(d);
    printf("distinct=%d claimed=%llu live=%llu moved_ok=%d crashed=%d stayed=%llu churn_failures=%d b_files=%d bad=%d\n",
           distinct, (unsigned long long) claimed.claimed, (unsigned long long) claimed.live, moved_ok, crashed,
           (unsigned long long) after.live, churn_failures, b_files, bad);
    return 0;
}

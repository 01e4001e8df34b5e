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
 *   DIR/c, DIR/d, DIR/e: the host's file is another writer's layout (version 99), has a header
 *          never written (its maker died), is closed for good (its last process died removing it):
 *          a claim takes node-<host>-<pid>.live, a file of its own, at its first slot.
 *   DIR/f: after a claim the program closes every descriptor it did not open and opens a file of
 *          its own; the release leaves that file as it was and removes the node file.
 *   DIR/g: under a file size limit (`ulimit -f`) of one slot: a claim whose slot in the host's file
 *          is past it takes a file of its own; under a limit below one slot, a claim fails with
 *          EFBIG, and the process lives (no SIGXFSZ).
 *
 * Prints "distinct=<0|1> claimed=<n> live=<n> moved_ok=<n> crashed=<n> stayed=<n> churn_failures=<n>
 * b_files=<n> bad=<n> own_files=<n> user_file_ok=<0|1> f_files=<n> fsize=<0|1>": the slots' offsets were
 * distinct, DIR/a's header after the claims, how many moves kept the image intact at its address,
 * how many processes crashed, the live count left in DIR/a, claims in DIR/b that failed or lost
 * their image, the files left in DIR/b, processes of DIR/a that failed, how many of DIR/c, d and e
 * took a file of their own at its first slot, DIR/f's file and its node files left, and DIR/g's
 * claims behaved so.
 *
 * Usage: node_file_unit DIR PROCS CHURN */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
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

/* DIR/<name> with a node file of the host whose header is `h` (NULL: a header page of zeros). */
static void host_file(const char *dir, const char *name, const mpii_node_header_t *h, char *sub, size_t n)
{
    char host[64] = "", path[4400];
    gethostname(host, sizeof host - 1);
    snprintf(sub, n, "%s/%s", dir, name);
    mkdir(sub, 0755);
    snprintf(path, sizeof path, "%s/node-%s.live", sub, host);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    mpii_node_header_t zero = { 0 };
    if (fd < 0 || pwrite(fd, h ? h : &zero, sizeof zero, 0) != sizeof zero || ftruncate(fd, MPII_NODE_HEADER_BYTES) != 0)
        exit(2);
    close(fd);
}

/* A claim in `sub` took a node file of this process's own, at its first slot. */
static int took_own_file(const char *sub)
{
    char host[64] = "", want[4400];
    gethostname(host, sizeof host - 1);
    snprintf(want, sizeof want, "%s/node-%s-%d.live", sub, host, (int) getpid());
    mpii_node_slot_t s = { 0 };
    void *mem = mpii_slot_claim(&s, sub, NULL, NULL, 0);
    int own = mem != MAP_FAILED && strcmp(s.path, want) == 0 && s.offset == MPII_NODE_HEADER_BYTES;
    if (mem != MAP_FAILED) munmap(mem, MPII_NODE_SLOT_BYTES);
    mpii_slot_release(&s, 1);
    return own && access(want, F_OK) != 0; /* its only slot released: removed */
}

static mpii_node_header_t ours(void)
{
    mpii_node_header_t h = { 0 };
    memcpy(h.magic, MPII_NODE_MAGIC, sizeof h.magic);
    h.version = MPII_NODE_VERSION;
    h.header_bytes = MPII_NODE_HEADER_BYTES;
    h.slot_bytes = MPII_NODE_SLOT_BYTES;
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
    alarm(600); /* a child that dies before saying its slot would leave the others waiting: fail instead */
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
        mpii_node_slot_t s = { 0 };
        void *mem = mpii_slot_claim(&s, a, NULL, NULL, 0);
        if (mem == MAP_FAILED) _exit(3);
        put_image(mem, i);
        uint64_t off = s.offset;
        if (write(said[1], &off, sizeof off) != sizeof off) _exit(3);
        wait_gate(go[0]);
        if (i % 4 == 3) {
            mpii_node_slot_t moved = { 0 };
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
            mpii_node_slot_t s = { 0 };
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

    /* DIR/c, d, e: a host file this process cannot use */
    char sub_c[4200], sub_d[4200], sub_e[4200];
    mpii_node_header_t other = ours(), closed = ours();
    other.version = 99;
    closed.live = MPII_NODE_CLOSED;
    host_file(dir, "c", &other, sub_c, sizeof sub_c);
    host_file(dir, "d", NULL, sub_d, sizeof sub_d);
    host_file(dir, "e", &closed, sub_e, sizeof sub_e);
    int own_files = took_own_file(sub_c) + took_own_file(sub_d) + took_own_file(sub_e);

    /* DIR/f: the program's own file under the number a kept descriptor would have had */
    char f[4096], mine[4200];
    snprintf(f, sizeof f, "%s/f", dir);
    mkdir(f, 0755);
    snprintf(mine, sizeof mine, "%s/mine", f);
    mpii_node_slot_t s = { 0 };
    void *mem = mpii_slot_claim(&s, f, NULL, NULL, 0);
    if (mem == MAP_FAILED) return 2;
    put_image(mem, 0);
    fflush(stdout);
    for (int fd = 3; fd < 1024; fd++) close(fd);
    static const char text[] = "the program's own file";
    int fd = open(mine, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, text, sizeof text) != sizeof text) return 2;
    mpii_slot_release(&s, 0);
    char back[sizeof text + 8] = "";
    struct stat st;
    int user_file_ok = fstat(fd, &st) == 0 && st.st_size == sizeof text && pread(fd, back, sizeof back, 0) == sizeof text &&
                       memcmp(back, text, sizeof text) == 0;
    close(fd);
    int f_files = 0;
    d = opendir(f);
    for (struct dirent *e; d && (e = readdir(d));) f_files += strncmp(e->d_name, "node-", 5) == 0;
    if (d) closedir(d);

    /* DIR/g: the file size limit, in a process of its own */
    char sub_g[4200];
    mpii_node_header_t one_claimed = ours();
    one_claimed.claimed = one_claimed.live = 1; /* slot 0 taken: the next is past one slot's length */
    host_file(dir, "g", &one_claimed, sub_g, sizeof sub_g);
    int fsize = 0;
    pid_t child = fork();
    if (child == 0) {
        struct rlimit one = { MPII_NODE_HEADER_BYTES + MPII_NODE_SLOT_BYTES, RLIM_INFINITY };
        if (setrlimit(RLIMIT_FSIZE, &one) != 0 || !took_own_file(sub_g)) _exit(1);
        one.rlim_cur--;
        mpii_node_slot_t t = { 0 };
        if (setrlimit(RLIMIT_FSIZE, &one) != 0 || mpii_slot_claim(&t, sub_g, NULL, NULL, 0) != MAP_FAILED || errno != EFBIG)
            _exit(2);
        _exit(0);
    }
    int st_g = 0;
    waitpid(child, &st_g, 0);
    fsize = WIFEXITED(st_g) && WEXITSTATUS(st_g) == 0;

    printf("distinct=%d claimed=%llu live=%llu moved_ok=%d crashed=%d stayed=%llu churn_failures=%d b_files=%d bad=%d "
           "own_files=%d user_file_ok=%d f_files=%d fsize=%d\n",
           distinct, (unsigned long long) claimed.claimed, (unsigned long long) claimed.live, moved_ok, crashed,
           (unsigned long long) after.live, churn_failures, b_files, bad, own_files, user_file_ok, f_files, fsize);
    return 0;
}

/* The end of the job: every rank's image to the one rank that writes profile.mpii.
 *
 * Two levels. The ranks are cut into groups of G = ⌈√N⌉ consecutive ranks; each group's lowest
 * rank leads it, except the writer's group, which the writer leads. The writer asks for the
 * images in rank order: from its own group's ranks directly, from another group through its
 * leader, which asks its members in turn and forwards each image as it comes. So the writer
 * exchanges messages with about 2·√N ranks, not N (an MPI library keeps state for every peer
 * it has talked to: 42 KB a peer at the writer with Open MPI's shared memory, measured), a
 * leader with G + 1, a member with one; and each rank sends its own image once (a leader also
 * its group's, G images a job of N sends N/G times).
 *
 * Nobody sends an image before it is asked, and an asker asks only as far ahead as its window
 * (256 images or 16 MiB): the writer's memory is its window, not the file, and no unexpected
 * messages pile up in anyone's MPI. Everything goes through PMPI on the caller's communicator,
 * so neither the program's messages nor tools below ours see it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mpii_gen.h"
#include "mpii_objects.h"
#include "gather.h"
#include "log.h"
#include "util.h"

#define WINDOW_BYTES ((size_t) 16 << 20)
#define WINDOW_RANKS 256

enum { TAG_ASK = 0, TAG_IMAGE = 1 };

int mpii_gather_group(int n)
{
    int g = 2;
    while ((long) g * g < n) g++;
    return g;
}

/* Who serves rank r's image to the writer: its group's leader (the writer for its own group). */
static int leader_of(int r, int writer, int g)
{
    return r / g == writer / g ? writer : r / g * g;
}

/* Where an asker takes an image it has no memory for: the image is then lost (the writer's file
 * is not written), but its sender must still be able to send it. Pages only as touched. */
static void *drain_buffer(size_t capacity)
{
    static void *drain;
    if (!drain) {
        drain = mmap(NULL, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (drain == MAP_FAILED) drain = NULL;
    }
    return drain;
}

/* The images an asker (the writer, or a leader) has asked for and not yet taken: items
 * 0..n-1 are ranks first..first+n-1, item i from `from[i]`'s rank, asked ahead in a window. */
typedef struct {
    MPI_Comm comm;
    int first, n, self; /* self: the asker's own rank, never asked */
    const int *sizes;   /* item i's image is sizes[i] bytes */
    int (*from)(const void *ctx, int r);
    const int *(*ask_with)(const void *ctx, int r, int *count); /* what the ask for rank r carries */
    const void *ctx;
    size_t capacity;
    int next, ok;
    size_t held;
    MPI_Request recv[WINDOW_RANKS], ask[WINDOW_RANKS];
    char *buf[WINDOW_RANKS];
} window_t;

/* Ask for the items after `at` while the window has room (always for item `at`). */
static void window_fill(window_t *w, int at)
{
    while (w->next < w->n && w->next - at < WINDOW_RANKS &&
           (w->next == at || w->held + (size_t) w->sizes[w->next] <= WINDOW_BYTES)) {
        int i = w->next++, s = i % WINDOW_RANKS, r = w->first + i;
        w->buf[s] = NULL;
        w->recv[s] = w->ask[s] = MPI_REQUEST_NULL;
        if (r == w->self) continue;
        size_t len = (size_t) w->sizes[i];
        w->buf[s] = malloc(len ? len : 1);
        if (!w->buf[s]) w->ok = 0; /* still asked and taken (the sender waits for the word): into the drain */
        void *into = w->buf[s] ? (void *) w->buf[s] : drain_buffer(w->capacity);
        int src = w->from(w->ctx, r), count = 0;
        const int *with = w->ask_with ? w->ask_with(w->ctx, r, &count) : NULL;
        MPII_PMPI(MPI_Irecv, MPI_IRECV_T)(into, w->sizes[i], MPI_BYTE, src, TAG_IMAGE, w->comm, &w->recv[s]);
        MPII_PMPI(MPI_Isend, MPI_ISEND_T)((void *) with, count, MPI_INT, src, TAG_ASK, w->comm, &w->ask[s]);
        w->held += len;
    }
}

/* Item `at`'s image, whole (NULL when it was lost); the caller frees it. */
static char *window_take(window_t *w, int at)
{
    int s = at % WINDOW_RANKS, got = -1;
    MPI_Status st;
    MPII_PMPI(MPI_Wait, MPI_WAIT_T)(&w->recv[s], &st);
    MPII_PMPI(MPI_Wait, MPI_WAIT_T)(&w->ask[s], MPI_STATUS_IGNORE);
    MPII_PMPI(MPI_Get_count, MPI_GET_COUNT_T)(&st, MPI_BYTE, &got);
    w->held -= (size_t) w->sizes[at];
    if (got == w->sizes[at] && w->buf[s]) return w->buf[s];
    w->ok = 0; /* a leader that lost an image sends an empty message in its place */
    free(w->buf[s]);
    return NULL;
}

typedef struct {
    int writer, g, n;
    const int *sizes; /* every rank's, at the writer */
} plan_t;

static int writer_from(const void *ctx, int r)
{
    const plan_t *p = ctx;
    int l = leader_of(r, p->writer, p->g);
    return l == p->writer ? r : l;
}

/* The writer's first ask to a leader carries the sizes of the leader's group. */
static const int *writer_ask_with(const void *ctx, int r, int *count)
{
    const plan_t *p = ctx;
    if (leader_of(r, p->writer, p->g) != r) return NULL;
    *count = r + p->g <= p->n ? p->g : p->n - r;
    return p->sizes + r;
}

static int member_from(const void *ctx, int r)
{
    (void) ctx;
    return r;
}

static int write_images(MPI_Comm comm, int writer, const int *sizes, const void *mine, int mine_len, int fd,
                        size_t capacity)
{
    plan_t p = { writer, mpii_gather_group(mpii_size), mpii_size, sizes };
    static window_t w; /* 4 KB of requests and pointers: off the stack */
    w = (window_t){ .comm = comm,
                    .first = 0,
                    .n = mpii_size,
                    .self = writer,
                    .sizes = sizes,
                    .from = writer_from,
                    .ask_with = writer_ask_with,
                    .ctx = &p,
                    .capacity = capacity,
                    .ok = 1 };
    int ok = fd >= 0;
    for (int r = 0; r < mpii_size; r++) {
        window_fill(&w, r);
        if (r == writer) {
            ok = ok && mpii_write_all(fd, mine, (size_t) mine_len, -1) == 0;
            continue;
        }
        char *img = window_take(&w, r);
        ok = ok && img && mpii_write_all(fd, img, (size_t) sizes[r], -1) == 0;
        free(img);
    }
    return ok && w.ok;
}

/* A leader: when the writer first asks (for the leader's own image, with its group's sizes), it
 * starts asking its members ahead; it answers each of the writer's asks, in rank order, with the
 * next image of its group. */
static void lead(MPI_Comm comm, int writer, int g, const void *mine, int mine_len, size_t capacity)
{
    int first = mpii_rank, n = first + g <= mpii_size ? g : mpii_size - first;
    int sizes[n];
    MPII_PMPI(MPI_Recv, MPI_RECV_T)(sizes, n, MPI_INT, writer, TAG_ASK, comm, MPI_STATUS_IGNORE);
    static window_t w;
    w = (window_t){ .comm = comm,
                    .first = first,
                    .n = n,
                    .self = mpii_rank,
                    .sizes = sizes,
                    .from = member_from,
                    .capacity = capacity,
                    .ok = 1 };
    for (int i = 0; i < n; i++) {
        window_fill(&w, i);
        if (i > 0) MPII_PMPI(MPI_Recv, MPI_RECV_T)(NULL, 0, MPI_INT, writer, TAG_ASK, comm, MPI_STATUS_IGNORE);
        if (first + i == mpii_rank) {
            MPII_PMPI(MPI_Send, MPI_SEND_T)((void *) mine, mine_len, MPI_BYTE, writer, TAG_IMAGE, comm);
            continue;
        }
        char *img = window_take(&w, i);
        MPII_PMPI(MPI_Send, MPI_SEND_T)(img, img ? sizes[i] : 0, MPI_BYTE, writer, TAG_IMAGE, comm);
        free(img);
    }
}

int mpii_gather_images(MPI_Comm comm, int writer, const void *mine, int mine_len, int fd, size_t capacity)
{
    int *sizes = NULL, go = 1;
    if (mpii_rank == writer) {
        sizes = calloc((size_t) mpii_size, sizeof *sizes);
        if (!sizes) {
            mpii_error("out of memory for the sizes of %d ranks' profiles: the .live files are kept", mpii_size);
            go = 0;
        }
    }
    /* the writer needs every size (its window, the leaders' first asks): 4 bytes a rank; first
     * whether it has room for them, so that a writer without it leaves nobody waiting */
    MPII_PMPI(MPI_Bcast, MPI_BCAST_T)(&go, 1, MPI_INT, writer, comm);
    if (!go) return 0;
    MPII_PMPI(MPI_Gather, MPI_GATHER_T)(&mine_len, 1, MPI_INT, sizes, 1, MPI_INT, writer, comm);
    int g = mpii_gather_group(mpii_size), ok = 1;
    if (mpii_rank == writer) {
        ok = write_images(comm, writer, sizes, mine, mine_len, fd, capacity);
        free(sizes);
    } else if (leader_of(mpii_rank, writer, g) == mpii_rank) {
        lead(comm, writer, g, mine, mine_len, capacity);
    } else {
        /* asked, then sent: the asker holds only the images it is passing on */
        int leader = leader_of(mpii_rank, writer, g);
        MPII_PMPI(MPI_Recv, MPI_RECV_T)(NULL, 0, MPI_INT, leader, TAG_ASK, comm, MPI_STATUS_IGNORE);
        MPII_PMPI(MPI_Send, MPI_SEND_T)((void *) mine, mine_len, MPI_BYTE, leader, TAG_IMAGE, comm);
    }
    return ok;
}

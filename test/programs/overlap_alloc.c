/* overlap_alloc.c - receive buffers from every kind of allocation (overlap
 * tool test).
 *
 * Usage: overlap_alloc                    -np 2 (any even np: pairs r, r^1).
 *
 * The tool page-aligns heap blocks allocated after MPI_Init and protects
 * pages of pending receives, so it must override the whole allocator family
 * consistently and treat memory it did not allocate as pass-through. Every
 * receive below goes through xchg(): the even rank of a pair sends then
 * receives, the odd one receives then sends, with blocking MPI_Send/MPI_Recv
 * (the send buffer is freed right after MPI_Send returns, so later mallocs
 * reuse it while a converted send may still be in flight).
 *   1. Stack and static buffers (must pass through; protecting them can
 *      deadlock or crash); a send from a stack buffer.
 *   2. calloc: memory must be zero (also when it reuses a freed dirty
 *      block), a receive into its middle leaves the rest zero; calloc
 *      overflow returns NULL.
 *   3. realloc of a buffer with a PENDING receive: grow (to 400 KB) and
 *      shrink (from 200 KB to 40 bytes); the received contents must survive.
 *      A realloc that copies while the receive is pending reads protected or
 *      stale memory. realloc of a buffer with a pending send; realloc(NULL);
 *      a growing dynamic array receiving into its end before each realloc.
 *   4. posix_memalign (64 and 65536; EINVAL for 24), aligned_alloc,
 *      memalign (8192), valloc, pvalloc: alignment honoured, receive works,
 *      malloc_usable_size >= request, free works.
 *   5. Buffers allocated BEFORE MPI_Init (small and mmap-sized): receive,
 *      malloc_usable_size, realloc after init, free after init.
 *   6. free() of a buffer with a pending receive, then new allocations that
 *      reuse the memory are filled by the program: a late unpack into the
 *      freed block would corrupt them.
 *   7. malloc_usable_size for malloc/calloc/realloc/memalign'd blocks;
 *      malloc(0) results are distinct and freeable; strdup (libc-internal
 *      malloc) freed by the program.
 *   8. 2000 small blocks of varying sizes interleaved with receives into
 *      some of them; all patterns must survive; half are freed and
 *      reallocated, and everything is checked again.
 * Success: "overlap_alloc rank R: OK <checksum>" on every rank.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OVERLAP_PROGRAM "overlap_alloc"
#include "overlap_check.h"

static int g_partner;
static MPI_Comm comm;

static int msg(int r, int tag, int i) { return r * 1000003 + tag * 1009 + i; }

/* Receive n ints of message `tag` from the partner into rb; send our own. */
static void xchg(int *rb, int n, int tag)
{
    int *sb = malloc((size_t)n * sizeof(int));
    if (!sb)
        die("malloc failed");
    for (int i = 0; i < n; i++)
        sb[i] = msg(g_rank, tag, i);
    pair_exchange(sb, rb, n, g_partner, tag, comm);
    for (int i = 0; i < n; i++) /* dirty the freed send buffer's memory */
        sb[i] = -7;
    free(sb);
}

static void check_msg(const char *what, const int *b, int tag, int n)
{
    for (int i = 0; i < n; i++)
        check_int(what, i, msg(g_partner, tag, i), b[i]);
}

static void check_align(const char *what, const void *p, size_t al)
{
    if (p == NULL)
        die("expected a pointer got NULL at %s", what);
    if ((uintptr_t)p % al != 0)
        die("expected alignment %zu got address %p at %s", al, p, what);
}

static void check_usable(const char *what, void *p, size_t req)
{
    size_t u = malloc_usable_size(p);
    if (u < req)
        die("expected malloc_usable_size >= %zu got %zu at %s", req, u, what);
}

static int s_static[3000];

int main(int argc, char **argv)
{
    /* ---- allocations before MPI_Init (phase 5) ---- */
    int *pre = malloc(3000 * sizeof(int));
    int *pre_big = malloc(100000 * sizeof(int)); /* mmap-sized */
    char *pre_unused = malloc(1000);
    if (!pre || !pre_big || !pre_unused)
        return 2;
    memset(pre_unused, 'x', 1000);

    overlap_init(&argc, &argv, 1);
    comm = MPI_COMM_WORLD;
    g_partner = g_rank ^ 1;
    const size_t ps = (size_t)sysconf(_SC_PAGESIZE);

    /* ---- 1. stack and static buffers ---- */
    {
        int stk[2000];
        xchg(stk, 2000, 1);
        check_msg("phase1 stack", stk, 1, 2000);
        xchg(s_static, 3000, 2);
        check_msg("phase1 static", s_static, 2, 3000);
        /* a send from a stack buffer */
        for (int i = 0; i < 2000; i++)
            stk[i] = msg(g_rank, 3, i);
        int *hb = malloc(2000 * sizeof(int));
        if (g_rank % 2 == 0) {
            MPI_Send(stk, 2000, MPI_INT, g_partner, 3, comm);
            MPI_Recv(hb, 2000, MPI_INT, g_partner, 3, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(hb, 2000, MPI_INT, g_partner, 3, comm, MPI_STATUS_IGNORE);
            MPI_Send(stk, 2000, MPI_INT, g_partner, 3, comm);
        }
        for (int i = 0; i < 2000; i++)
            stk[i] = 0;
        check_msg("phase1 from stack", hb, 3, 2000);
        free(hb);
    }

    /* ---- 2. calloc ---- */
    {
        int *dirty = malloc(5000 * sizeof(int));
        for (int i = 0; i < 5000; i++)
            dirty[i] = 0x5a5a5a5a;
        free(dirty);
        int *c = calloc(5000, sizeof(int));
        if (!c)
            die("expected memory got NULL at phase2 calloc");
        xchg(c + 1000, 500, 4);
        for (int i = 0; i < 5000; i++)
            check_int("phase2 calloc", i, (i >= 1000 && i < 1500) ? msg(g_partner, 4, i - 1000) : 0, c[i]);
        check_usable("phase2 calloc", c, 5000 * sizeof(int));
        free(c);
        int *big = calloc(300000, sizeof(int)); /* mmap-sized */
        xchg(big + 299000, 1000, 5);
        for (int i = 0; i < 300000; i++)
            if (big[i] != ((i >= 299000) ? msg(g_partner, 5, i - 299000) : 0))
                check_int("phase2 big calloc", i, (i >= 299000) ? msg(g_partner, 5, i - 299000) : 0, big[i]);
        free(big);
        errno = 0;
        volatile size_t huge = SIZE_MAX / 2; /* hidden from the compiler */
        void *ov = calloc(huge, 4);
        if (ov != NULL)
            die("expected NULL got %p at phase2 calloc overflow", ov);
    }

    /* ---- 3. realloc ---- */
    {
        /* grow with a pending receive */
        int *b = malloc(100 * sizeof(int));
        xchg(b, 100, 6);
        b = realloc(b, 100000 * sizeof(int));
        if (!b)
            die("expected memory got NULL at phase3 realloc grow");
        for (int i = 100; i < 100000; i++)
            b[i] = i;
        for (int i = 0; i < 100000; i++)
            check_int("phase3 grown", i, i < 100 ? msg(g_partner, 6, i) : i, b[i]);
        check_usable("phase3 grown", b, 100000 * sizeof(int));
        free(b);

        /* shrink with a pending receive */
        int *s = malloc(50000 * sizeof(int));
        xchg(s, 50000, 7);
        s = realloc(s, 10 * sizeof(int));
        if (!s)
            die("expected memory got NULL at phase3 realloc shrink");
        for (int i = 0; i < 10; i++)
            check_int("phase3 shrunk", i, msg(g_partner, 7, i), s[i]);
        check_usable("phase3 shrunk", s, 10 * sizeof(int));
        free(s);

        /* same size, pending receive into the second page only */
        int *t = malloc(3 * ps);
        int ipp = (int)(ps / sizeof(int));
        for (int i = 0; i < 3 * ipp; i++)
            t[i] = -i;
        xchg(t + ipp + 5, 20, 8);
        t = realloc(t, 3 * ps);
        for (int i = 0; i < 3 * ipp; i++)
            check_int("phase3 same size", i, (i >= ipp + 5 && i < ipp + 25) ? msg(g_partner, 8, i - ipp - 5) : -i, t[i]);
        free(t);

        /* realloc of a buffer with a pending send (partner checks data) */
        int *ps_buf = malloc(2000 * sizeof(int));
        int *in = malloc(2000 * sizeof(int));
        for (int i = 0; i < 2000; i++)
            ps_buf[i] = msg(g_rank, 9, i);
        if (g_rank % 2 == 0) {
            MPI_Send(ps_buf, 2000, MPI_INT, g_partner, 9, comm);
            ps_buf = realloc(ps_buf, 200000 * sizeof(int));
            for (int i = 0; i < 200000; i++)
                ps_buf[i] = -3;
            MPI_Recv(in, 2000, MPI_INT, g_partner, 9, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, 2000, MPI_INT, g_partner, 9, comm, MPI_STATUS_IGNORE);
            MPI_Send(ps_buf, 2000, MPI_INT, g_partner, 9, comm);
            ps_buf = realloc(ps_buf, 200000 * sizeof(int));
            for (int i = 0; i < 200000; i++)
                ps_buf[i] = -3;
        }
        check_msg("phase3 sent before realloc", in, 9, 2000);
        free(ps_buf);
        free(in);

        /* realloc(NULL, n) */
        int *rn = realloc(NULL, 700 * sizeof(int));
        xchg(rn, 700, 10);
        check_msg("phase3 realloc(NULL)", rn, 10, 700);
        free(rn);

        /* growing dynamic array: receive into the end, then realloc */
        int *arr = NULL;
        size_t len = 0, cap = 0;
        for (int k = 0; k < 24; k++) {
            if (len + 300 > cap) {
                cap = cap * 2 + 300;
                arr = realloc(arr, cap * sizeof(int));
                if (!arr)
                    die("expected memory got NULL at phase3 dynamic array");
            }
            xchg(arr + len, 300, 100 + k);
            len += 300;
        }
        for (int k = 0; k < 24; k++)
            for (int i = 0; i < 300; i++)
                check_int("phase3 dynamic array", k * 300 + i, msg(g_partner, 100 + k, i), arr[k * 300 + i]);
        free(arr);
    }

    /* ---- 4. aligned allocation family ---- */
    {
        void *p = NULL;
        int rc = posix_memalign(&p, 64, 3000 * sizeof(int));
        if (rc != 0)
            die("expected 0 got %d at phase4 posix_memalign(64)", rc);
        check_align("phase4 posix_memalign(64)", p, 64);
        xchg(p, 3000, 11);
        check_msg("phase4 posix_memalign(64)", p, 11, 3000);
        check_usable("phase4 posix_memalign(64)", p, 3000 * sizeof(int));
        free(p);

        rc = posix_memalign(&p, 65536, 5000 * sizeof(int));
        if (rc != 0)
            die("expected 0 got %d at phase4 posix_memalign(65536)", rc);
        check_align("phase4 posix_memalign(65536)", p, 65536);
        xchg((int *)p + 10, 4990, 12);
        check_msg("phase4 posix_memalign(65536)", (int *)p + 10, 12, 4990);
        check_usable("phase4 posix_memalign(65536)", p, 5000 * sizeof(int));
        free(p);

        void *bad = (void *)&rc;
        rc = posix_memalign(&bad, 24, 100);
        if (rc != EINVAL)
            die("expected %d (EINVAL) got %d at phase4 posix_memalign(24)", EINVAL, rc);

        int *a = aligned_alloc(256, 4096 * 3);
        check_align("phase4 aligned_alloc(256)", a, 256);
        xchg(a, 3072, 13);
        check_msg("phase4 aligned_alloc", a, 13, 3072);
        check_usable("phase4 aligned_alloc", a, 4096 * 3);
        free(a);

        int *m = memalign(8192, 10000 * sizeof(int));
        check_align("phase4 memalign(8192)", m, 8192);
        xchg(m, 10000, 14);
        check_msg("phase4 memalign", m, 14, 10000);
        check_usable("phase4 memalign", m, 10000 * sizeof(int));
        m = realloc(m, 20000 * sizeof(int));
        check_msg("phase4 memalign realloc'd", m, 14, 10000);
        free(m);

        int *v = valloc(777 * sizeof(int));
        check_align("phase4 valloc", v, ps);
        xchg(v, 777, 15);
        check_msg("phase4 valloc", v, 15, 777);
        check_usable("phase4 valloc", v, 777 * sizeof(int));
        free(v);

        int *pv = pvalloc(777 * sizeof(int));
        check_align("phase4 pvalloc", pv, ps);
        xchg(pv, 777, 16);
        check_msg("phase4 pvalloc", pv, 16, 777);
        check_usable("phase4 pvalloc", pv, ps); /* rounded up to a page */
        free(pv);
    }

    /* ---- 5. buffers allocated before MPI_Init ---- */
    {
        xchg(pre, 3000, 17);
        check_usable("phase5 pre-init", pre, 3000 * sizeof(int));
        xchg(pre_big + 50000, 5000, 18);
        check_msg("phase5 pre-init", pre, 17, 3000);
        pre = realloc(pre, 6000 * sizeof(int));
        check_msg("phase5 pre-init realloc'd", pre, 17, 3000);
        xchg(pre + 3000, 3000, 19);
        check_msg("phase5 pre-init realloc'd, 2nd half", pre + 3000, 19, 3000);
        check_msg("phase5 pre-init big", pre_big + 50000, 18, 5000);
        check_usable("phase5 pre-init big", pre_big, 100000 * sizeof(int));
        for (int i = 0; i < 1000; i++)
            check_int("phase5 pre-init unused", i, 'x', pre_unused[i]);
        free(pre);
        free(pre_big);
        free(pre_unused);
    }

    /* ---- 6. free with a pending receive, then reuse ---- */
    {
        for (int round = 0; round < 8; round++) {
            const int n = 2 * (int)(ps / sizeof(int)) + 100;
            int *p = malloc((size_t)n * sizeof(int));
            xchg(p, n, 20 + round);
            free(p);
            int *q[4];
            for (int k = 0; k < 4; k++) {
                q[k] = malloc((size_t)n * sizeof(int));
                for (int i = 0; i < n; i++)
                    q[k][i] = k * 100000 + i;
            }
            int *o = malloc(64 * sizeof(int));
            xchg(o, 64, 40 + round);
            MPI_Barrier(comm);
            check_msg("phase6 other", o, 40 + round, 64);
            for (int k = 0; k < 4; k++) {
                for (int i = 0; i < n; i++)
                    check_int("phase6 reused block", k * 100000 + i, k * 100000 + i, q[k][i]);
                free(q[k]);
            }
            free(o);
        }
    }

    /* ---- 7. malloc_usable_size, malloc(0), strdup ---- */
    {
        const size_t sizes[] = {1, 15, 16, 100, 4095, 4096, 4097, 65536, 300000};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            char *p = malloc(sizes[k]);
            memset(p, (int)k, sizes[k]);
            check_usable("phase7 malloc", p, sizes[k]);
            char *c = calloc(sizes[k], 1);
            check_usable("phase7 calloc", c, sizes[k]);
            p = realloc(p, sizes[k] * 2);
            check_usable("phase7 realloc", p, sizes[k] * 2);
            for (size_t i = 0; i < sizes[k]; i++)
                if (p[i] != (char)k || c[i] != 0)
                    die("expected %d/0 got %d/%d at phase7 contents size %zu [%zu]", (int)k, p[i], c[i], sizes[k], i);
            free(p);
            free(c);
        }
        void *z1 = malloc(0), *z2 = malloc(0);
        if (z1 != NULL && z1 == z2)
            die("expected distinct pointers got %p twice at phase7 malloc(0)", z1);
        free(z1);
        free(z2);
        char *sd = strdup("overlap_alloc strdup check");
        if (!sd || strcmp(sd, "overlap_alloc strdup check") != 0)
            die("expected the string got %s at phase7 strdup", sd ? sd : "(null)");
        check_usable("phase7 strdup", sd, strlen(sd) + 1);
        free(sd);
    }

    /* ---- 8. many small blocks interleaved with receives ---- */
    {
        enum { NB = 2000 };
        unsigned char **blk = malloc(NB * sizeof *blk);
        size_t *len = malloc(NB * sizeof *len);
        int tag = 1000;
        for (int k = 0; k < NB; k++) {
            if (k % 100 == 0) {
                len[k] = 64 * sizeof(int);
                blk[k] = malloc(len[k]);
                xchg((int *)blk[k], 64, tag + k / 100);
            } else {
                len[k] = 1 + (size_t)(k * 37) % 200;
                blk[k] = malloc(len[k]);
                for (size_t j = 0; j < len[k]; j++)
                    blk[k][j] = (unsigned char)(k + j);
            }
        }
        for (int pass = 0; pass < 2; pass++) {
            for (int k = 0; k < NB; k++) {
                if (k % 100 == 0) {
                    check_msg(pass ? "phase8 received block (pass 2)" : "phase8 received block",
                              (int *)blk[k], tag + k / 100, 64);
                    continue;
                }
                for (size_t j = 0; j < len[k]; j++)
                    if (blk[k][j] != (unsigned char)(k + j))
                        die("expected %d got %d at phase8 pass %d block %d [%zu]", (unsigned char)(k + j),
                            blk[k][j], pass, k, j);
                ck_mix(len[k]);
            }
            if (pass == 0) /* free odd blocks, reallocate them with new receives */
                for (int k = 1; k < NB; k += 2) {
                    free(blk[k]);
                    len[k] = 1 + (size_t)(k * 53) % 300;
                    blk[k] = malloc(len[k]);
                    for (size_t j = 0; j < len[k]; j++)
                        blk[k][j] = (unsigned char)(k + j);
                    if (k % 200 == 1) {
                        int *r = malloc(32 * sizeof(int));
                        xchg(r, 32, 2000 + k);
                        free(r); /* pending receive freed among small blocks */
                    }
                }
        }
        for (int k = 0; k < NB; k++)
            free(blk[k]);
        free(blk);
        free(len);
    }

    return overlap_pass();
}

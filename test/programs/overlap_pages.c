/* overlap_pages.c - several receives and sends sharing pages (overlap tool
 * test).
 *
 * Usage: overlap_pages                    -np 2 (any even np: pairs r, r^1).
 *
 * Ranks work in pairs. Each phase is run twice with the roles swapped, so
 * both ranks of a pair play both parts. The "receiver" posts blocking
 * MPI_Recv/MPI_Send calls on heap buffers; the "sender" sends/receives the
 * matching messages in the same order (safe even with synchronous sends).
 * Buffers are laid out relative to page boundaries (a page-aligned pointer
 * inside a malloc'd block; with the tool's page-aligned malloc that is the
 * block itself). Element values are independent functions of (sender,
 * message id, index); untouched elements hold sentinels that are checked
 * too.
 *
 *   1. Cascading waits: five receives into different elements of a 4-page
 *      buffer (two in page 0, one straddling pages 0/1, one of 3000 ints
 *      spanning pages 1..3, one in page 3). One single element is then read
 *      (1a: the first element, 1b: the last one, 1c: a write to a gap
 *      element), and afterwards every element must be right. A tool that
 *      unprotects a page when the request it waited for is done, while
 *      another request on that page is still pending, lets the program read
 *      stale data. Finally the user overwrites everything, exchanges another
 *      message and checks that no late unpack clobbered the user's values.
 *   2. Receives whose elements overlap an earlier pending receive: partial
 *      overlap, later contained in earlier, earlier contained in later, and
 *      a contiguous receive over a strided (vector) one. The later receive
 *      must win (it must wait for the earlier one before being posted or be
 *      unpacked after it); containment is the case an asymmetric range test
 *      misses.
 *   3. Sends from protected pages: a send of elements that share a page with
 *      a pending receive (packing must see the right data, not fault or send
 *      zeros), a send of exactly the received elements (must wait and
 *      forward the received data), a send covering received data, gaps and
 *      own data, a send after a receive that overlaps a previous send of the
 *      same buffer, and a buffer overwritten right after its MPI_Send
 *      returned and sent again.
 * Success: "overlap_pages rank R: OK <checksum>" on every rank.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OVERLAP_PROGRAM "overlap_pages"
#include "overlap_check.h"

static MPI_Comm comm;
static size_t g_ps;   /* page size */
static int g_ipp;     /* ints per page */

/* Element i of message k sent by rank r. */
static int msg(int r, int k, int i) { return r * 1000003 + k * 10007 + i; }

/* Page-aligned int pointer with room for npages pages inside a malloc'd
 * block; *blk receives the block for free(). */
static int *page_buf(int npages, void **blk)
{
    char *p = malloc((size_t)(npages + 1) * g_ps);
    if (!p)
        die("malloc failed");
    *blk = p;
    uintptr_t a = ((uintptr_t)p + g_ps - 1) & ~(uintptr_t)(g_ps - 1);
    int *q = (int *)a;
    for (int i = 0; i < npages * g_ipp; i++)
        q[i] = SENTINEL(i);
    return q;
}

static void send_msg(int k, int n, int to)
{
    int *b = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        b[i] = msg(g_rank, k, i);
    MPI_Send(b, n, MPI_INT, to, k, comm);
    free(b);
}

static void recv_check(int k, int n, int from, const char *what)
{
    int *b = malloc((size_t)n * sizeof(int));
    MPI_Recv(b, n, MPI_INT, from, k, comm, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++)
        check_int(what, i, msg(from, k, i), b[i]);
    free(b);
}

/* ---------------- phase 1: cascading waits ---------------- */
struct piece { int off, n; };

static void phase1(int receiver, int partner, int variant)
{
    const int I = g_ipp;
    const struct piece pc[5] = {
        {0, 10}, {600, 10}, {I - 4, 8}, {I + 6, 3000}, {4 * I - 46, 5}
    };
    const int base = 100 + 10 * variant;
    if (!receiver) {
        for (int k = 0; k < 5; k++)
            send_msg(base + k, pc[k].n, partner);
        recv_check(base + 9, 64, partner, "phase1 after-message");
        MPI_Barrier(comm);
        return;
    }
    void *blk;
    int *P = page_buf(4, &blk);
    for (int k = 0; k < 5; k++)
        MPI_Recv(P + pc[k].off, pc[k].n, MPI_INT, partner, base + k, comm, MPI_STATUS_IGNORE);
    /* one single touch */
    volatile int *vp = P;
    int first;
    if (variant == 0) {
        first = vp[0];
        check_int("phase1a first touch P", 0, msg(partner, base, 0), first);
    } else if (variant == 1) {
        first = vp[4 * I - 42];
        check_int("phase1b first touch P", 4 * I - 42, msg(partner, base + 4, 4), first);
    } else {
        vp[100] = 777; /* gap element in page 0: a write is the first touch */
    }
    /* now everything must be right */
    for (int i = 0; i < 4 * I; i++) {
        long long e = SENTINEL(i);
        if (variant == 2 && i == 100)
            e = 777;
        for (int k = 0; k < 5; k++)
            if (i >= pc[k].off && i < pc[k].off + pc[k].n)
                e = msg(partner, base + k, i - pc[k].off);
        check_int(variant == 0 ? "phase1a P" : variant == 1 ? "phase1b P" : "phase1c P", i, e, P[i]);
    }
    /* user overwrites everything; later traffic must not clobber it */
    for (int i = 0; i < 4 * I; i++)
        P[i] = 5 * i + 3;
    int *m = malloc(64 * sizeof(int));
    for (int i = 0; i < 64; i++)
        m[i] = msg(g_rank, base + 9, i);
    MPI_Send(m, 64, MPI_INT, partner, base + 9, comm);
    MPI_Barrier(comm);
    for (int i = 0; i < 4 * I; i++)
        check_int("phase1 user-overwritten P", i, 5 * i + 3, P[i]);
    free(m);
    free(blk);
}

/* ---------------- phase 2: later receive wins ---------------- */
static void phase2(int receiver, int partner)
{
    const struct piece pc[6] = {
        {0, 100}, {50, 100},      /* partial overlap */
        {200, 1000}, {500, 10},   /* later contained in earlier */
        {1500, 10}, {1300, 748},  /* earlier contained in later */
    };
    const int base = 200;
    if (!receiver) {
        for (int k = 0; k < 6; k++)
            send_msg(base + k, pc[k].n, partner);
        send_msg(base + 6, 100, partner); /* strided */
        send_msg(base + 7, 100, partner); /* contiguous over it */
        return;
    }
    void *blk, *blk2;
    int *Q = page_buf(2, &blk);
    int *R = page_buf(1, &blk2);
    for (int k = 0; k < 6; k++)
        MPI_Recv(Q + pc[k].off, pc[k].n, MPI_INT, partner, base + k, comm, MPI_STATUS_IGNORE);
    MPI_Datatype every2;
    MPI_Type_vector(100, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    MPI_Recv(R, 1, every2, partner, base + 6, comm, MPI_STATUS_IGNORE);
    MPI_Recv(R, 100, MPI_INT, partner, base + 7, comm, MPI_STATUS_IGNORE);
    MPI_Type_free(&every2);
    for (int i = 0; i < 2 * g_ipp; i++) {
        long long e = SENTINEL(i);
        for (int k = 0; k < 6; k++) /* in posting order: the last one wins */
            if (i >= pc[k].off && i < pc[k].off + pc[k].n)
                e = msg(partner, base + k, i - pc[k].off);
        check_int("phase2 Q", i, e, Q[i]);
    }
    for (int i = 0; i < g_ipp; i++) {
        long long e = SENTINEL(i);
        if (i < 200 && i % 2 == 0)
            e = msg(partner, base + 6, i / 2);
        if (i < 100)
            e = msg(partner, base + 7, i);
        check_int("phase2 R", i, e, R[i]);
    }
    free(blk);
    free(blk2);
}

/* ---------------- phase 3: sends from protected pages ---------------- */
static void phase3(int receiver, int partner)
{
    const int base = 300;
    if (!receiver) {
        send_msg(base + 0, 10, partner);
        /* S[100..199]: the partner's own data */
        int *b = malloc(200 * sizeof(int));
        MPI_Recv(b, 100, MPI_INT, partner, base + 1, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < 100; i++)
            check_int("phase3 own data next to pending recv", i, msg(partner, base + 50, 100 + i), b[i]);
        MPI_Recv(b, 10, MPI_INT, partner, base + 2, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < 10; i++)
            check_int("phase3 forwarded", i, msg(g_rank, base + 0, i), b[i]);
        MPI_Recv(b, 200, MPI_INT, partner, base + 3, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < 200; i++)
            check_int("phase3 mixed", i,
                      i < 10 ? msg(g_rank, base + 0, i) : i < 100 ? SENTINEL(i) : msg(partner, base + 50, i), b[i]);
        /* T part */
        MPI_Recv(b, 100, MPI_INT, partner, base + 4, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < 100; i++)
            check_int("phase3 T first send", i, msg(partner, base + 51, i), b[i]);
        send_msg(base + 5, 100, partner);
        MPI_Recv(b, 150, MPI_INT, partner, base + 6, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < 150; i++)
            check_int("phase3 T second send", i, i < 50 ? msg(partner, base + 51, i) : msg(g_rank, base + 5, i - 50), b[i]);
        /* U part: two pending receives, one send over both */
        send_msg(base + 7, 10, partner);
        send_msg(base + 8, 10, partner);
        MPI_Recv(b, 30, MPI_INT, partner, base + 9, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < 30; i++)
            check_int("phase3 U", i,
                      i < 10 ? msg(g_rank, base + 7, i) : i < 20 ? SENTINEL(i) : msg(g_rank, base + 8, i - 20), b[i]);
        free(b);
        /* V part: buffer overwritten right after each MPI_Send */
        int *v = malloc(1000 * sizeof(int));
        for (int round = 0; round < 3; round++) {
            MPI_Recv(v, 1000, MPI_INT, partner, base + 10 + round, comm, MPI_STATUS_IGNORE);
            for (int i = 0; i < 1000; i++)
                check_int("phase3 V", i, msg(partner, base + 10 + round, i), v[i]);
        }
        free(v);
        return;
    }
    void *blk, *blk2, *blk3;
    int *S = page_buf(1, &blk);
    for (int i = 100; i < 200; i++)
        S[i] = msg(g_rank, base + 50, i);
    MPI_Recv(S, 10, MPI_INT, partner, base + 0, comm, MPI_STATUS_IGNORE);
    MPI_Send(S + 100, 100, MPI_INT, partner, base + 1, comm); /* same page, no element overlap */
    MPI_Send(S, 10, MPI_INT, partner, base + 2, comm);        /* exactly the received elements */
    MPI_Send(S, 200, MPI_INT, partner, base + 3, comm);       /* received + gap + own */
    for (int i = 0; i < 200; i++)
        check_int("phase3 S", i,
                  i < 10 ? msg(partner, base + 0, i) : i < 100 ? SENTINEL(i) : msg(g_rank, base + 50, i), S[i]);

    int *T = page_buf(1, &blk2);
    for (int i = 0; i < 100; i++)
        T[i] = msg(g_rank, base + 51, i);
    MPI_Send(T, 100, MPI_INT, partner, base + 4, comm);
    MPI_Recv(T + 50, 100, MPI_INT, partner, base + 5, comm, MPI_STATUS_IGNORE);
    MPI_Send(T, 150, MPI_INT, partner, base + 6, comm);

    int *U = page_buf(1, &blk3);
    MPI_Recv(U, 10, MPI_INT, partner, base + 7, comm, MPI_STATUS_IGNORE);
    MPI_Recv(U + 20, 10, MPI_INT, partner, base + 8, comm, MPI_STATUS_IGNORE);
    MPI_Send(U, 30, MPI_INT, partner, base + 9, comm);

    int *v = malloc(1000 * sizeof(int));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 1000; i++)
            v[i] = msg(g_rank, base + 10 + round, i);
        MPI_Send(v, 1000, MPI_INT, partner, base + 10 + round, comm);
    }
    for (int i = 0; i < 150; i++)
        check_int("phase3 T", i, i < 50 ? msg(g_rank, base + 51, i) : msg(partner, base + 5, i - 50), T[i]);
    free(v);
    free(blk);
    free(blk2);
    free(blk3);
}

int main(int argc, char **argv)
{
    overlap_init(&argc, &argv, 1);
    comm = MPI_COMM_WORLD;
    g_ps = (size_t)sysconf(_SC_PAGESIZE);
    g_ipp = (int)(g_ps / sizeof(int));
    if (g_ipp < 1024)
        die("page size %zu too small", g_ps);
    const int partner = g_rank ^ 1;

    for (int round = 0; round < 2; round++) {
        const int receiver = (g_rank % 2) == round;
        for (int v = 0; v < 3; v++)
            phase1(receiver, partner, v);
        phase2(receiver, partner);
        phase3(receiver, partner);
    }

    return overlap_pass();
}

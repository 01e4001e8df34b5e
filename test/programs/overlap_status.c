/* overlap_status.c - MPI_Status of converted receives (overlap tool test).
 *
 * Usage: overlap_status                   -np 2 or 3 (any np >= 2 works).
 *
 * A converted MPI_Recv returns before the message has arrived, so the status
 * it was given is not filled yet. These phases use the status in every legal
 * way a program may (ring: receive from rank-1, send to rank+1; all messages
 * are <= 1 KB and sent before the matching receives, i.e. eager):
 *   1. MPI_SOURCE / MPI_TAG read directly from the struct (no call for the
 *      tool to hook), then MPI_Get_count (MPI_INT and MPI_BYTE),
 *      MPI_Get_elements and MPI_Get_elements_x, then the data.
 *   2. Messages shorter than the posted count: the count must be the real
 *      one and the tail untouched; with a derived vector type, a partial
 *      message gives MPI_Get_count == MPI_UNDEFINED and the exact element
 *      count from MPI_Get_elements(_x); a zero-length message gives count 0
 *      and leaves the buffer alone.
 *   3. MPI_STATUS_IGNORE (a NULL pointer in Open MPI, (MPI_Status *)1 in
 *      MPICH - never to be written through).
 *   4. One status variable reused by two receives in a row; the FIRST
 *      buffer is then touched (completing the first request must not drop
 *      the status mapping of the second), then MPI_Get_count must report the
 *      second message. Also a status array.
 *   5. A status in the stack frame of a function that returns before the
 *      data is read: the next function's locals occupy that memory and must
 *      not be overwritten when the receive completes later.
 *   6. The same status variable given to MPI_Probe and to MPI_Wait of a
 *      user MPI_Irecv while a converted receive that used it is pending: the
 *      status must describe the probe / the Irecv, and completing the old
 *      receive later must not overwrite it.
 *   7. A copy of the status struct (assignment, pass by value) taken right
 *      after MPI_Recv returns must give the right source, tag and count.
 *      (A tool can only get this right by completing receives that have a
 *      real status before returning, or by filling the whole struct.)
 *   8. MPI_ANY_SOURCE / MPI_ANY_TAG receives: each rank receives one message
 *      from every other rank, identifying each by the status fields only;
 *      and a master/worker round in which rank 0 answers each request to
 *      status.MPI_SOURCE without ever touching the request buffer first.
 *      A tool that defers wildcard receives sends the answer to the wrong
 *      rank (hang or wrong data).
 * Success: "overlap_status rank R: OK <checksum>" on every rank (phase 8 is
 * folded into the checksum order-independently).
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OVERLAP_PROGRAM "overlap_status"
#include "overlap_check.h"

static int g_size, g_left, g_right;
static MPI_Comm comm;

static int msg(int r, int tag, int i) { return r * 1000003 + tag * 1009 + i; }

static void send_msg(int to, int tag, int n)
{
    int *b = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    for (int i = 0; i < n; i++)
        b[i] = msg(g_rank, tag, i);
    MPI_Send(b, n, MPI_INT, to, tag, comm);
    free(b);
}

static int *sentinel_buf(int n)
{
    int *b = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        b[i] = SENTINEL(i);
    return b;
}

static void check_msg(const char *what, const int *b, int from, int tag, int n, int posted)
{
    for (int i = 0; i < posted; i++)
        check_int(what, i, i < n ? msg(from, tag, i) : SENTINEL(i), b[i]);
}

static void check_status(const char *what, MPI_Status *st, int src, int tag, int n)
{
    int c = -42, e = -42;
    MPI_Count ex = -42;
    if (st->MPI_SOURCE != src || st->MPI_TAG != tag)
        die("expected source %d tag %d got source %d tag %d at %s status", src, tag, st->MPI_SOURCE,
            st->MPI_TAG, what);
    MPI_Get_count(st, MPI_INT, &c);
    check_int(what, -1, n, c);
    MPI_Get_elements(st, MPI_INT, &e);
    check_int(what, -2, n, e);
    MPI_Get_elements_x(st, MPI_INT, &ex);
    check_int(what, -3, n, (long long)ex);
}

/* ---- phase 5 helpers: must not be inlined so their frames overlap ---- */
__attribute__((noinline)) static void recv_in_frame(int *buf, int n, int from, int tag)
{
    /* padding around the status puts it well inside the region that
     * paint_and_touch's pad[] occupies later */
    struct { char before[512]; MPI_Status st; char after[512]; } fr;
    MPI_Recv(buf, n, MPI_INT, from, tag, comm, &fr.st);
    if (fr.st.MPI_SOURCE != from) /* only the public field; data not read */
        die("expected source %d got %d at phase5 frame status", from, fr.st.MPI_SOURCE);
}

__attribute__((noinline)) static int paint_and_touch(volatile int *buf, int idx)
{
    volatile unsigned char pad[8192];
    for (int i = 0; i < (int)sizeof pad; i++)
        pad[i] = (unsigned char)(i * 131 + 7);
    int v = buf[idx]; /* first touch of the received data */
    for (int i = 0; i < (int)sizeof pad; i++)
        if (pad[i] != (unsigned char)(i * 131 + 7))
            die("expected %d got %d at phase5 stack pad[%d] (status written into a dead frame?)",
                (unsigned char)(i * 131 + 7), pad[i], i);
    return v;
}

static int count_by_value(MPI_Status st)
{
    int c = -42;
    MPI_Get_count(&st, MPI_INT, &c);
    return c;
}

int main(int argc, char **argv)
{
    MPI_Status st, st2;
    int c;

    MPI_Init(&argc, &argv);
    comm = MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &g_rank);
    MPI_Comm_size(comm, &g_size);
    if (g_size < 2)
        die("needs at least 2 processes");
    g_right = (g_rank + 1) % g_size;
    g_left = (g_rank + g_size - 1) % g_size;
    const int L = g_left, R = g_right;

    /* ---- 1. direct fields, then count/elements, then data ---- */
    {
        send_msg(R, 10, 200);
        int *b = sentinel_buf(200);
        MPI_Recv(b, 200, MPI_INT, L, 10, comm, &st);
        int src = st.MPI_SOURCE, tag = st.MPI_TAG;
        if (src != L || tag != 10)
            die("expected source %d tag 10 got source %d tag %d at phase1 direct status", L, src, tag);
        check_status("phase1", &st, L, 10, 200);
        MPI_Get_count(&st, MPI_BYTE, &c);
        check_int("phase1 byte count", 0, 800, c);
        check_msg("phase1 data", b, L, 10, 200, 200);
        free(b);
    }

    /* ---- 2. short messages, derived type, empty message ---- */
    {
        send_msg(R, 20, 37);
        send_msg(R, 21, 7);
        send_msg(R, 22, 0);
        int *b = sentinel_buf(250);
        MPI_Recv(b, 250, MPI_INT, L, 20, comm, &st);
        check_status("phase2 short", &st, L, 20, 37);
        check_msg("phase2 short data", b, L, 20, 37, 250);

        MPI_Datatype vec; /* 2 ints, stride 3: extent 4 ints */
        MPI_Type_vector(2, 1, 3, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        int *d = sentinel_buf(20);
        MPI_Recv(d, 5, vec, L, 21, comm, &st);
        int e = -42;
        MPI_Count ex = -42;
        c = -42;
        MPI_Get_count(&st, vec, &c);
        check_int("phase2 vec count (MPI_UNDEFINED)", 0, MPI_UNDEFINED, c);
        MPI_Get_elements(&st, vec, &e);
        check_int("phase2 vec elements", 0, 7, e);
        MPI_Get_elements_x(&st, vec, &ex);
        check_int("phase2 vec elements_x", 0, 7, (long long)ex);
        if (st.MPI_SOURCE != L || st.MPI_TAG != 21)
            die("expected source %d tag 21 got source %d tag %d at phase2 vec status", L, st.MPI_SOURCE, st.MPI_TAG);
        for (int i = 0; i < 20; i++) {
            long long x = SENTINEL(i);
            int blk = i / 4, in = i % 4, k = blk * 2 + (in == 3 ? 1 : 0);
            if ((in == 0 || in == 3) && k < 7)
                x = msg(L, 21, k);
            check_int("phase2 vec data", i, x, d[i]);
        }
        MPI_Type_free(&vec);

        int *z = sentinel_buf(10);
        MPI_Recv(z, 10, MPI_INT, L, 22, comm, &st);
        check_status("phase2 empty", &st, L, 22, 0);
        check_msg("phase2 empty data", z, L, 22, 0, 10);
        free(b);
        free(d);
        free(z);
    }

    /* ---- 3. MPI_STATUS_IGNORE ---- */
    {
        send_msg(R, 30, 100);
        send_msg(R, 31, 100);
        int *b = sentinel_buf(100), *b2 = sentinel_buf(100);
        MPI_Recv(b, 100, MPI_INT, L, 30, comm, MPI_STATUS_IGNORE);
        MPI_Recv(b2, 100, MPI_INT, L, 31, comm, MPI_STATUS_IGNORE);
        check_msg("phase3 data", b, L, 30, 100, 100);
        check_msg("phase3 data2", b2, L, 31, 100, 100);
        free(b);
        free(b2);
    }

    /* ---- 4. one status variable for two receives; status array ---- */
    {
        send_msg(R, 40, 50);
        send_msg(R, 41, 80);
        int *b1 = sentinel_buf(100), *b2 = sentinel_buf(100);
        MPI_Recv(b1, 100, MPI_INT, L, 40, comm, &st);
        MPI_Recv(b2, 100, MPI_INT, L, 41, comm, &st);
        check_int("phase4 first touch b1", 0, msg(L, 40, 0), ((volatile int *)b1)[0]);
        check_status("phase4 reused status", &st, L, 41, 80);
        check_msg("phase4 b1", b1, L, 40, 50, 100);
        check_msg("phase4 b2", b2, L, 41, 80, 100);

        /* the same, Get_count before any touch */
        send_msg(R, 42, 60);
        send_msg(R, 43, 70);
        for (int i = 0; i < 100; i++)
            b1[i] = b2[i] = SENTINEL(i);
        MPI_Recv(b1, 100, MPI_INT, L, 42, comm, &st);
        MPI_Recv(b2, 100, MPI_INT, L, 43, comm, &st);
        check_status("phase4 reused status, no touch", &st, L, 43, 70);
        check_msg("phase4 b1 second", b1, L, 42, 60, 100);
        check_msg("phase4 b2 second", b2, L, 43, 70, 100);

        /* status array */
        MPI_Status sts[3];
        send_msg(R, 44, 11);
        send_msg(R, 45, 22);
        send_msg(R, 46, 33);
        int *b3 = sentinel_buf(100);
        for (int i = 0; i < 100; i++)
            b1[i] = b2[i] = SENTINEL(i);
        MPI_Recv(b1, 100, MPI_INT, L, 44, comm, &sts[0]);
        MPI_Recv(b2, 100, MPI_INT, L, 45, comm, &sts[1]);
        MPI_Recv(b3, 100, MPI_INT, L, 46, comm, &sts[2]);
        check_status("phase4 sts[2]", &sts[2], L, 46, 33);
        check_status("phase4 sts[0]", &sts[0], L, 44, 11);
        check_status("phase4 sts[1]", &sts[1], L, 45, 22);
        check_msg("phase4 array b1", b1, L, 44, 11, 100);
        check_msg("phase4 array b2", b2, L, 45, 22, 100);
        check_msg("phase4 array b3", b3, L, 46, 33, 100);
        free(b1);
        free(b2);
        free(b3);
    }

    /* ---- 5. status in a dead stack frame ---- */
    {
        send_msg(R, 50, 150);
        int *b = sentinel_buf(150);
        recv_in_frame(b, 150, L, 50);
        int v = paint_and_touch(b, 149);
        check_int("phase5 first touch", 149, msg(L, 50, 149), v);
        check_msg("phase5 data", b, L, 50, 150, 150);
        free(b);
    }

    /* ---- 6. status variable given to Probe / Wait meanwhile ---- */
    {
        send_msg(R, 60, 50);
        send_msg(R, 61, 33);
        int *b1 = sentinel_buf(100), *b2 = sentinel_buf(100);
        MPI_Recv(b1, 100, MPI_INT, L, 60, comm, &st);
        MPI_Probe(L, 61, comm, &st);
        check_status("phase6 probe", &st, L, 61, 33);
        MPI_Recv(b2, 100, MPI_INT, L, 61, comm, MPI_STATUS_IGNORE);
        check_status("phase6 probe again", &st, L, 61, 33);
        check_msg("phase6 b1", b1, L, 60, 50, 100);
        check_msg("phase6 b2", b2, L, 61, 33, 100);
        check_status("phase6 probe after touch", &st, L, 61, 33);

        send_msg(R, 62, 40);
        send_msg(R, 63, 44);
        for (int i = 0; i < 100; i++)
            b1[i] = b2[i] = SENTINEL(i);
        MPI_Request rq;
        MPI_Recv(b1, 100, MPI_INT, L, 62, comm, &st);
        MPI_Irecv(b2, 100, MPI_INT, L, 63, comm, &rq);
        MPI_Wait(&rq, &st);
        check_status("phase6 wait", &st, L, 63, 44);
        check_msg("phase6 b1 (converted)", b1, L, 62, 40, 100);
        check_status("phase6 wait after touch", &st, L, 63, 44);
        check_msg("phase6 b2 (Irecv)", b2, L, 63, 44, 100);
        free(b1);
        free(b2);
    }

    /* ---- 7. copies of the status ---- */
    {
        send_msg(R, 70, 123);
        send_msg(R, 71, 45);
        /* mpii's overlap fills a status exactly when the message has already arrived; a copy of
         * the status of a message still in flight carries the posted count (its README says
         * so). The barrier makes "arrived" the case tested here. */
        MPI_Barrier(comm);
        int *b1 = sentinel_buf(200), *b2 = sentinel_buf(200);
        MPI_Recv(b1, 200, MPI_INT, L, 70, comm, &st);
        MPI_Status copy = st;
        MPI_Recv(b2, 200, MPI_INT, L, 71, comm, &st2);
        int cv = count_by_value(st2);
        check_int("phase7 count of status passed by value", 0, 45, cv);
        check_status("phase7 copied status", &copy, L, 70, 123);
        check_msg("phase7 b1", b1, L, 70, 123, 200);
        check_msg("phase7 b2", b2, L, 71, 45, 200);
        free(b1);
        free(b2);
    }

    /* ---- 8. wildcards ---- */
    {
        /* 8a: one message from every other rank, ANY_SOURCE/ANY_TAG.
         * Tag = 800 + sender, length = 10 + sender. */
        for (int d = 1; d < g_size; d++)
            send_msg((g_rank + d) % g_size, 800 + g_rank, 10 + g_rank);
        int n = g_size - 1;
        int **bufs = malloc((size_t)n * sizeof(int *));
        MPI_Status *sts = malloc((size_t)n * sizeof(MPI_Status));
        int *seen = calloc((size_t)g_size, sizeof(int));
        int srcs[64];
        for (int k = 0; k < n; k++) {
            bufs[k] = sentinel_buf(64);
            MPI_Recv(bufs[k], 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &sts[k]);
            srcs[k] = sts[k].MPI_SOURCE; /* read right away, data untouched */
            if (srcs[k] < 0 || srcs[k] >= g_size || srcs[k] == g_rank || seen[srcs[k]])
                die("expected a new source got %d at phase8a receive %d", srcs[k], k);
            seen[srcs[k]] = 1;
            if (sts[k].MPI_TAG != 800 + srcs[k])
                die("expected tag %d got %d at phase8a receive %d", 800 + srcs[k], sts[k].MPI_TAG, k);
        }
        unsigned long long acc = 0;
        for (int k = 0; k < n; k++) {
            int s = srcs[k];
            c = -42;
            MPI_Get_count(&sts[k], MPI_INT, &c);
            if (c != 10 + s)
                die("expected %d got %d at phase8a count from %d", 10 + s, c, s);
            for (int i = 0; i < 64; i++) {
                long long x = i < 10 + s ? msg(s, 800 + s, i) : SENTINEL(i);
                if (bufs[k][i] != x)
                    die("expected %lld got %d at phase8a data from %d [%d]", x, bufs[k][i], s, i);
                acc += (unsigned long long)x * (unsigned long long)(i + 1);
            }
            free(bufs[k]);
        }
        ck_mix(acc);
        /* No 8b message may be sent before every 8a receive has matched. */
        MPI_Barrier(comm);
        free(bufs);
        free(sts);
        free(seen);

        /* 8b: ANY_SOURCE with a fixed tag and a fixed source with ANY_TAG */
        send_msg(R, 810, 5);
        int *b = sentinel_buf(64);
        MPI_Recv(b, 64, MPI_INT, MPI_ANY_SOURCE, 810, comm, &st);
        if (st.MPI_SOURCE != L)
            die("expected source %d got %d at phase8b", L, st.MPI_SOURCE);
        check_status("phase8b any source", &st, L, 810, 5);
        check_msg("phase8b data", b, L, 810, 5, 64);
        send_msg(R, 811, 6);
        for (int i = 0; i < 64; i++)
            b[i] = SENTINEL(i);
        MPI_Recv(b, 64, MPI_INT, L, MPI_ANY_TAG, comm, &st);
        if (st.MPI_TAG != 811)
            die("expected tag 811 got %d at phase8b", st.MPI_TAG);
        check_status("phase8b any tag", &st, L, 811, 6);
        check_msg("phase8b data2", b, L, 811, 6, 64);
        free(b);

        /* 8c: master/worker; the answer goes to status.MPI_SOURCE before
         * the request data is looked at. */
        if (g_rank == 0) {
            int **req = malloc((size_t)n * sizeof(int *));
            int *from = malloc((size_t)n * sizeof(int));
            int *ans = malloc(4 * sizeof(int));
            for (int k = 0; k < n; k++) {
                req[k] = sentinel_buf(8);
                MPI_Recv(req[k], 8, MPI_INT, MPI_ANY_SOURCE, 820, comm, &st);
                from[k] = st.MPI_SOURCE;
                for (int i = 0; i < 4; i++)
                    ans[i] = from[k] * 100 + i;
                MPI_Send(ans, 4, MPI_INT, from[k], 821, comm);
            }
            unsigned long long a2 = 0;
            for (int k = 0; k < n; k++) {
                for (int i = 0; i < 8; i++) {
                    long long x = i < 3 ? msg(from[k], 820, i) : SENTINEL(i);
                    if (req[k][i] != x)
                        die("expected %lld got %d at phase8c request from %d [%d]", x, req[k][i], from[k], i);
                    a2 += (unsigned long long)x;
                }
                free(req[k]);
            }
            ck_mix(a2);
            free(req);
            free(from);
            free(ans);
        } else {
            send_msg(0, 820, 3);
            int *ans = sentinel_buf(4);
            MPI_Recv(ans, 4, MPI_INT, 0, 821, comm, &st);
            check_status("phase8c answer", &st, 0, 821, 4);
            for (int i = 0; i < 4; i++)
                check_int("phase8c answer", i, g_rank * 100 + i, ans[i]);
            free(ans);
        }
    }

    return overlap_pass();
}

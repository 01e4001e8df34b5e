/* overlap_sendrecv.c - MPI_Sendrecv and MPI_Sendrecv_replace (overlap tool
 * test).
 *
 * Usage: overlap_sendrecv                 -np 2 or 3 (any np >= 2 works).
 *
 * Phases (heap buffers malloc'd after MPI_Init unless stated):
 *   1. Ring shift right, then shift the received buffer back left (12 KB
 *      messages, rendezvous size): the second Sendrecv sends from the buffer
 *      the first one is still receiving into, so its send half must wait for
 *      the earlier receive.
 *   2. Send half and receive half in the same page: (a) disjoint quarters of
 *      one 4 KB block; (b) interleaved MPI_Type_vector halves of one 512 KB
 *      buffer (send the even doubles, receive into the odd ones: extents
 *      overlap, elements do not). MPI forbids overlapping halves, so the tool
 *      must never make one half wait for the other: with rendezvous-sized
 *      messages in a ring, "post the send, wait for it, then post the
 *      receive" deadlocks. Untouched elements must keep their values.
 *   3. MPI_Sendrecv_replace twice in a row on the same buffer (the second
 *      must send what the first received), and once with a strided vector
 *      type (gaps untouched).
 *   4. MPI_PROC_NULL partners on a non-periodic line: the receive must leave
 *      the buffer untouched and give MPI_SOURCE == MPI_PROC_NULL, MPI_TAG ==
 *      MPI_ANY_TAG, count 0 (status read directly and through
 *      MPI_Get_count); also both partners MPI_PROC_NULL, Sendrecv_replace
 *      from MPI_PROC_NULL, and plain MPI_Recv/MPI_Send with MPI_PROC_NULL.
 *      A message shorter than the posted count must give the real count and
 *      leave the tail untouched.
 *   5. Mixed buffers: stack send half with heap receive half and the
 *      reverse (the tool may only optimize when both halves are heap
 *      buffers it allocated; either way the result must be right).
 * Success: "overlap_sendrecv rank R: OK <checksum>" on every rank.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OVERLAP_PROGRAM "overlap_sendrecv"
#include "overlap_check.h"


/* Value element i of buffer `tag` had on rank r before any communication. */
static int val(int r, int tag, int i)
{
    return r * 1000003 + tag * 100019 + i * 7 + 1;
}


int main(int argc, char **argv)
{
    int size;
    MPI_Status st;
    MPI_Comm comm = MPI_COMM_WORLD;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(comm, &g_rank);
    MPI_Comm_size(comm, &size);
    if (size < 2)
        die("needs at least 2 processes");
    const int me = g_rank;
    const int right = (me + 1) % size, left = (me + size - 1) % size;
    const int left2 = (me + 2 * size - 2) % size;

    /* ---- 1. shift right, then shift the received data back left ---- */
    {
        const int N = 3000;
        int *a = malloc(N * sizeof(int)), *b = malloc(N * sizeof(int));
        int *c = malloc(N * sizeof(int));
        for (int i = 0; i < N; i++) {
            a[i] = val(me, 1, i);
            b[i] = c[i] = SENTINEL(i);
        }
        MPI_Sendrecv(a, N, MPI_INT, right, 1, b, N, MPI_INT, left, 1, comm, MPI_STATUS_IGNORE);
        MPI_Sendrecv(b, N, MPI_INT, left, 2, c, N, MPI_INT, right, 2, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++) {
            check_int("phase1 c", i, val(me, 1, i), c[i]);
            check_int("phase1 b", i, val(left, 1, i), b[i]);
            check_int("phase1 a", i, val(me, 1, i), a[i]);
        }
        free(a);
        free(b);
        free(c);
    }

    /* ---- 2a. send and receive halves in the same 4 KB block ---- */
    {
        int *p = malloc(1024 * sizeof(int));
        for (int i = 0; i < 1024; i++)
            p[i] = (i < 256) ? val(me, 2, i) : SENTINEL(i);
        MPI_Sendrecv(p, 256, MPI_INT, right, 3, p + 512, 256, MPI_INT, left, 3, comm, &st);
        for (int i = 0; i < 1024; i++) {
            int e = (i < 256) ? val(me, 2, i) : (i >= 512 && i < 768) ? val(left, 2, i - 512) : SENTINEL(i);
            check_int("phase2a p", i, e, p[i]);
        }
        if (st.MPI_SOURCE != left || st.MPI_TAG != 3)
            die("expected source %d tag 3 got source %d tag %d at phase2a status", left, st.MPI_SOURCE, st.MPI_TAG);
        free(p);
    }

    /* ---- 2b. interleaved halves: even doubles out, odd doubles in ---- */
    {
        const int M = 32768; /* 256 KB per message */
        double *q = malloc(2 * (size_t)M * sizeof(double));
        MPI_Datatype every2;
        MPI_Type_vector(M, 1, 2, MPI_DOUBLE, &every2);
        MPI_Type_commit(&every2);
        for (int i = 0; i < 2 * M; i++)
            q[i] = (i % 2 == 0) ? (double)val(me, 4, i) : (double)SENTINEL(i);
        MPI_Sendrecv(q, 1, every2, right, 4, q + 1, 1, every2, left, 4, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < 2 * M; i++) {
            long long e = (i % 2 == 0) ? val(me, 4, i) : val(left, 4, i - 1);
            if ((double)e != q[i])
                die("expected %lld got %.17g at phase2b q[%d]", e, q[i], i);
            ck_mix((unsigned long long)e);
        }
        MPI_Type_free(&every2);
        free(q);
    }

    /* ---- 3. Sendrecv_replace, twice in a row, then strided ---- */
    {
        const int N = 3000;
        int *r = malloc(N * sizeof(int));
        for (int i = 0; i < N; i++)
            r[i] = val(me, 5, i);
        MPI_Sendrecv_replace(r, N, MPI_INT, right, 5, left, 5, comm, MPI_STATUS_IGNORE);
        MPI_Sendrecv_replace(r, N, MPI_INT, right, 6, left, 6, comm, &st);
        if (st.MPI_SOURCE != left || st.MPI_TAG != 6)
            die("expected source %d tag 6 got source %d tag %d at phase3 status", left, st.MPI_SOURCE, st.MPI_TAG);
        for (int i = 0; i < N; i++)
            check_int("phase3 r", i, val(left2, 5, i), r[i]);
        free(r);

        const int K = 2048;
        int *s = malloc(2 * K * sizeof(int));
        MPI_Datatype every2;
        MPI_Type_vector(K, 1, 2, MPI_INT, &every2);
        MPI_Type_commit(&every2);
        for (int i = 0; i < 2 * K; i++)
            s[i] = (i % 2 == 0) ? val(me, 7, i) : SENTINEL(i);
        MPI_Sendrecv_replace(s, 1, every2, left, 7, right, 7, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < 2 * K; i++)
            check_int("phase3 strided s", i, (i % 2 == 0) ? val(right, 7, i) : SENTINEL(i), s[i]);
        MPI_Type_free(&every2);
        free(s);
    }

    /* ---- 4. MPI_PROC_NULL partners on a non-periodic line ---- */
    {
        const int N = 1500;
        const int lr = (me + 1 < size) ? me + 1 : MPI_PROC_NULL;
        const int ll = (me > 0) ? me - 1 : MPI_PROC_NULL;
        int *s = malloc(N * sizeof(int)), *t = malloc(N * sizeof(int));
        int cnt = -42;
        for (int i = 0; i < N; i++) {
            s[i] = val(me, 8, i);
            t[i] = SENTINEL(i);
        }
        /* shift right: rank 0 receives from MPI_PROC_NULL */
        MPI_Sendrecv(s, N, MPI_INT, lr, 8, t, N, MPI_INT, ll, 8, comm, &st);
        if (ll == MPI_PROC_NULL) {
            if (st.MPI_SOURCE != MPI_PROC_NULL || st.MPI_TAG != MPI_ANY_TAG)
                die("expected source %d tag %d got source %d tag %d at phase4 PROC_NULL status",
                    MPI_PROC_NULL, MPI_ANY_TAG, st.MPI_SOURCE, st.MPI_TAG);
            MPI_Get_count(&st, MPI_INT, &cnt);
            check_int("phase4 PROC_NULL count", 0, 0, cnt);
            for (int i = 0; i < N; i++)
                check_int("phase4 untouched t", i, SENTINEL(i), t[i]);
        } else {
            if (st.MPI_SOURCE != ll || st.MPI_TAG != 8)
                die("expected source %d tag 8 got source %d tag %d at phase4 status", ll, st.MPI_SOURCE, st.MPI_TAG);
            MPI_Get_count(&st, MPI_INT, &cnt);
            check_int("phase4 count", 0, N, cnt);
            for (int i = 0; i < N; i++)
                check_int("phase4 t", i, val(ll, 8, i), t[i]);
        }

        /* shift left with a short message (100 of N posted); the last
         * rank receives from MPI_PROC_NULL. Count read before the data. */
        for (int i = 0; i < N; i++)
            t[i] = SENTINEL(i);
        MPI_Sendrecv(s, 100, MPI_INT, ll, 9, t, N, MPI_INT, lr, 9, comm, &st);
        cnt = -42;
        MPI_Get_count(&st, MPI_INT, &cnt);
        check_int("phase4 short count", 0, lr == MPI_PROC_NULL ? 0 : 100, cnt);
        for (int i = 0; i < N; i++)
            check_int("phase4 short t", i, (lr != MPI_PROC_NULL && i < 100) ? val(lr, 8, i) : SENTINEL(i), t[i]);

        /* both partners MPI_PROC_NULL */
        MPI_Sendrecv(s, N, MPI_INT, MPI_PROC_NULL, 10, t, N, MPI_INT, MPI_PROC_NULL, 10, comm, &st);
        cnt = -42;
        MPI_Get_count(&st, MPI_INT, &cnt);
        check_int("phase4 null/null count", 0, 0, cnt);
        if (st.MPI_SOURCE != MPI_PROC_NULL)
            die("expected source %d got %d at phase4 null/null status", MPI_PROC_NULL, st.MPI_SOURCE);
        for (int i = 0; i < N; i++)
            check_int("phase4 null/null t", i, (lr != MPI_PROC_NULL && i < 100) ? val(lr, 8, i) : SENTINEL(i), t[i]);

        /* Sendrecv_replace: send right, receive from the left (rank 0:
         * MPI_PROC_NULL, so its buffer must stay as it was). */
        for (int i = 0; i < N; i++)
            t[i] = val(me, 11, i);
        MPI_Sendrecv_replace(t, N, MPI_INT, lr, 11, ll, 11, comm, &st);
        cnt = -42;
        MPI_Get_count(&st, MPI_INT, &cnt);
        check_int("phase4 replace count", 0, ll == MPI_PROC_NULL ? 0 : N, cnt);
        for (int i = 0; i < N; i++)
            check_int("phase4 replace t", i, val(ll == MPI_PROC_NULL ? me : ll, 11, i), t[i]);

        /* plain Send/Recv with MPI_PROC_NULL */
        for (int i = 0; i < N; i++)
            t[i] = SENTINEL(i);
        MPI_Send(s, N, MPI_INT, MPI_PROC_NULL, 12, comm);
        MPI_Recv(t, N, MPI_INT, MPI_PROC_NULL, 12, comm, &st);
        cnt = -42;
        MPI_Get_count(&st, MPI_INT, &cnt);
        check_int("phase4 Recv PROC_NULL count", 0, 0, cnt);
        if (st.MPI_SOURCE != MPI_PROC_NULL || st.MPI_TAG != MPI_ANY_TAG)
            die("expected source %d tag %d got source %d tag %d at phase4 Recv PROC_NULL status",
                MPI_PROC_NULL, MPI_ANY_TAG, st.MPI_SOURCE, st.MPI_TAG);
        for (int i = 0; i < N; i++)
            check_int("phase4 Recv PROC_NULL t", i, SENTINEL(i), t[i]);
        free(s);
        free(t);
    }

    /* ---- 5. mixed stack/heap halves ---- */
    {
        enum { N = 512 };
        int stk[N];
        int *hp = malloc(N * sizeof(int)), *hq = malloc(N * sizeof(int));
        for (int i = 0; i < N; i++) {
            stk[i] = val(me, 13, i);
            hp[i] = SENTINEL(i);
            hq[i] = val(me, 14, i);
        }
        /* stack -> right, heap <- left */
        MPI_Sendrecv(stk, N, MPI_INT, right, 13, hp, N, MPI_INT, left, 13, comm, MPI_STATUS_IGNORE);
        /* heap -> left, stack <- right (stack data already sent) */
        MPI_Sendrecv(hq, N, MPI_INT, left, 14, stk, N, MPI_INT, right, 14, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++) {
            check_int("phase5 hp", i, val(left, 13, i), hp[i]);
            check_int("phase5 stk", i, val(right, 14, i), stk[i]);
        }
        free(hp);
        free(hq);
    }

    return overlap_pass();
}

/* overlap_passthrough.c - MPI calls the tool does not convert, touching
 * buffers/pages of pending converted requests (overlap tool test).
 *
 * Usage: overlap_passthrough              -np 2 (any even np: pairs r, r^1).
 *
 * Each phase first leaves a converted MPI_Recv pending on a heap buffer
 * (xchg(): even rank sends then receives, odd rank receives then sends), then
 * calls an MPI function that the tool passes through and that reads or
 * writes that buffer or another part of its page "behind the tool's back".
 * MPI's own copies run either in user space inside the library (a SIGSEGV
 * inside MPI, possibly inside its progress engine) or in the kernel (CMA /
 * process_vm_readv/writev for large messages: EFAULT, reported in this or
 * the PEER process). Sizes: 100 ints (eager) and 16384 ints = 64 KB
 * (rendezvous / single-copy).
 *   1. MPI_Isend + MPI_Wait from the buffer of the pending receive (must
 *      send the received data), small and large; MPI_Isend from another
 *      part of the same page.
 *   2. MPI_Bcast into a neighbouring part of the same page; MPI_Bcast whose
 *      root buffer is the pending receive; on non-roots the Bcast writes
 *      over their own pending receive (the Bcast must win).
 *   3. MPI_Allreduce from the pending buffer, into a buffer on its page,
 *      and MPI_IN_PLACE on it; MPI_Reduce into a root buffer on such a page;
 *      MPI_Alltoall from a pending buffer.
 *   4. MPI_Pack of the pending buffer; MPI_Unpack over part of a pending
 *      receive (the Unpack must win where it writes).
 *   5. MPI_Ssend and MPI_Bsend (MPI_Buffer_attach with a buffer malloc'd
 *      after MPI_Init) from the pending buffer.
 *   6. A user MPI_Irecv pending into one block, then a converted MPI_Send
 *      from another block of the same page (the tool protects the page while
 *      MPI still has to write the Irecv data into it), then MPI_Wait; and a
 *      user MPI_Irecv into a page that a pending converted receive protects.
 * Success: "overlap_passthrough rank R: OK <checksum>" on every rank.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OVERLAP_PROGRAM "overlap_passthrough"
#include "overlap_check.h"

static int g_size, g_partner;
static MPI_Comm comm;

/* Element i of message `tag` sent by rank r. */
static int msg(int r, int tag, int i) { return r * 100003 + tag * 1009 + i; }

/* Converted receive of the partner's message `tag` into rb (n ints). */
static void xchg(int *rb, int n, int tag) { pair_exchange_msg(rb, n, tag, g_partner, comm, msg); }

static int *alloc_sent(int n)
{
    int *b = malloc((size_t)n * sizeof(int));
    if (!b)
        die("malloc failed");
    for (int i = 0; i < n; i++)
        b[i] = SENTINEL(i);
    return b;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    comm = MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &g_rank);
    MPI_Comm_size(comm, &g_size);
    if (g_size % 2 != 0)
        die("needs an even number of processes, got %d", g_size);
    g_partner = g_rank ^ 1;
    const int P = g_partner, me = g_rank;
    const int sizes[2] = {100, 16384};

    /* ---- 1. Isend from the pending buffer / from its page ---- */
    for (int s = 0; s < 2; s++) {
        const int n = sizes[s], tag = 10 + s;
        int *B = alloc_sent(n + 1024), *C = alloc_sent(n), *D = alloc_sent(64);
        for (int i = n; i < n + 64; i++)
            B[i] = msg(me, 90 + s, i - n);
        xchg(B, n, tag);
        MPI_Request rq[2];
        MPI_Isend(B, n, MPI_INT, P, 20 + s, comm, &rq[0]);       /* the received data */
        MPI_Isend(B + n, 64, MPI_INT, P, 30 + s, comm, &rq[1]);  /* same page, own data */
        MPI_Recv(C, n, MPI_INT, P, 20 + s, comm, MPI_STATUS_IGNORE);
        MPI_Recv(D, 64, MPI_INT, P, 30 + s, comm, MPI_STATUS_IGNORE);
        MPI_Status sts[2]; /* not MPI_STATUSES_IGNORE: bogus GCC warning with MPICH */
        MPI_Waitall(2, rq, sts);
        for (int i = 0; i < n; i++) {
            check_int("phase1 Isend of received data (partner forwarded what we sent)", i, msg(me, tag, i), C[i]);
            check_int("phase1 pending buffer", i, msg(P, tag, i), B[i]);
        }
        for (int i = 0; i < 64; i++)
            check_int("phase1 Isend from same page", i, msg(P, 90 + s, i), D[i]);
        free(B);
        free(C);
        free(D);
    }

    /* ---- 2. Bcast ---- */
    for (int s = 0; s < 2; s++) {
        const int n = sizes[s], tag = 40 + s;
        int *B = alloc_sent(2 * n + 200);
        if (me == 0)
            for (int i = 0; i < n; i++)
                B[n + 100 + i] = msg(0, 50 + s, i);
        xchg(B, n, tag);
        MPI_Bcast(B + n + 100, n, MPI_INT, 0, comm); /* neighbour part of the page */
        for (int i = 0; i < 2 * n + 200; i++) {
            long long e = i < n ? msg(P, tag, i) : (i >= n + 100 && i < 2 * n + 100) ? msg(0, 50 + s, i - n - 100) : SENTINEL(i);
            check_int("phase2 Bcast next to pending receive", i, e, B[i]);
        }
        /* Bcast from the pending buffer at the root, over it elsewhere */
        int *B2 = alloc_sent(n);
        xchg(B2, n, 60 + s);
        MPI_Bcast(B2, n, MPI_INT, 0, comm);
        for (int i = 0; i < n; i++) /* root 0 received msg(1, ...) from rank 1 */
            check_int("phase2 Bcast of root's pending receive", i, msg(1, 60 + s, i), B2[i]);
        MPI_Barrier(comm);
        for (int i = 0; i < n; i++)
            check_int("phase2 Bcast result after barrier", i, msg(1, 60 + s, i), B2[i]);
        free(B);
        free(B2);
    }

    /* ---- 3. Allreduce / Reduce / Alltoall ---- */
    for (int s = 0; s < 2; s++) {
        const int n = sizes[s], tag = 70 + s;
        int *B = alloc_sent(2 * n + 64), *R = alloc_sent(n);
        xchg(B, n, tag);
        MPI_Allreduce(B, R, n, MPI_INT, MPI_SUM, comm);        /* from the pending buffer */
        MPI_Allreduce(B, B + n + 64, n, MPI_INT, MPI_SUM, comm); /* into its page */
        for (int i = 0; i < n; i++) {
            long long sum = 0;
            for (int r = 0; r < g_size; r++)
                sum += msg(r, tag, i);
            check_int("phase3 Allreduce from pending buffer", i, sum, R[i]);
            check_int("phase3 Allreduce into its page", i, sum, B[n + 64 + i]);
            check_int("phase3 pending buffer", i, msg(P, tag, i), B[i]);
        }
        int *I = alloc_sent(n);
        xchg(I, n, 72 + s);
        MPI_Allreduce(MPI_IN_PLACE, I, n, MPI_INT, MPI_MAX, comm);
        for (int i = 0; i < n; i++)
            check_int("phase3 Allreduce in place", i, msg(g_size - 1, 72 + s, i), I[i]);
        /* Reduce into a root buffer whose page has a pending receive */
        int *Q = alloc_sent(2 * n);
        int *contrib = malloc((size_t)n * sizeof(int));
        for (int i = 0; i < n; i++)
            contrib[i] = msg(me, 74 + s, i);
        xchg(Q, n / 2, 76 + s);
        MPI_Reduce(contrib, Q + n, n, MPI_INT, MPI_SUM, 0, comm);
        for (int i = 0; i < 2 * n; i++) {
            long long e = i < n / 2 ? msg(P, 76 + s, i) : SENTINEL(i);
            if (me == 0 && i >= n) {
                e = 0;
                for (int r = 0; r < g_size; r++)
                    e += msg(r, 74 + s, i - n);
            }
            check_int("phase3 Reduce next to pending receive", i, e, Q[i]);
        }
        /* Alltoall from a pending buffer: block k of rank r's buffer goes to rank k */
        const int blk = n / g_size;
        int *A = alloc_sent(n), *AR = alloc_sent(n);
        xchg(A, n, 78 + s);
        MPI_Alltoall(A, blk, MPI_INT, AR, blk, MPI_INT, comm);
        for (int r = 0; r < g_size; r++)
            for (int i = 0; i < blk; i++) /* rank r's A holds msg(r^1, ...) */
                check_int("phase3 Alltoall from pending buffer", r * blk + i, msg(r ^ 1, 78 + s, me * blk + i), AR[r * blk + i]);
        free(B);
        free(R);
        free(I);
        free(Q);
        free(contrib);
        free(A);
        free(AR);
    }

    /* ---- 4. Pack / Unpack ---- */
    for (int s = 0; s < 2; s++) {
        const int n = sizes[s], tag = 100 + s;
        int psize = 0;
        MPI_Pack_size(n, MPI_INT, comm, &psize);
        char *pk = malloc((size_t)psize);
        int *B = alloc_sent(n), *U = alloc_sent(n);
        xchg(B, n, tag);
        int pos = 0;
        MPI_Pack(B, n, MPI_INT, pk, psize, &pos, comm);
        pos = 0;
        MPI_Unpack(pk, psize, &pos, U, n, MPI_INT, comm);
        for (int i = 0; i < n; i++)
            check_int("phase4 Pack of pending buffer", i, msg(P, tag, i), U[i]);
        /* Unpack over the middle half of a pending receive */
        int *V = alloc_sent(n), *src = malloc((size_t)(n / 2) * sizeof(int));
        for (int i = 0; i < n / 2; i++)
            src[i] = 777000 + i;
        pos = 0;
        MPI_Pack(src, n / 2, MPI_INT, pk, psize, &pos, comm);
        xchg(V, n, tag + 2);
        pos = 0;
        MPI_Unpack(pk, psize, &pos, V + n / 4, n / 2, MPI_INT, comm);
        for (int i = 0; i < n; i++)
            check_int("phase4 Unpack over pending receive", i,
                      (i >= n / 4 && i < n / 4 + n / 2) ? 777000 + i - n / 4 : msg(P, tag + 2, i), V[i]);
        free(pk);
        free(B);
        free(U);
        free(V);
        free(src);
    }

    /* ---- 5. Ssend / Bsend from the pending buffer ---- */
    {
        int bsz = 0;
        MPI_Pack_size(sizes[1], MPI_INT, comm, &bsz);
        bsz = 2 * (bsz + MPI_BSEND_OVERHEAD);
        char *attach = malloc((size_t)bsz);
        MPI_Buffer_attach(attach, bsz);
        for (int s = 0; s < 2; s++) {
            const int n = sizes[s], tag = 110 + s;
            int *B = alloc_sent(n), *C = alloc_sent(n);
            xchg(B, n, tag);
            if (me % 2 == 0) {
                MPI_Ssend(B, n, MPI_INT, P, 120 + s, comm);
                MPI_Recv(C, n, MPI_INT, P, 120 + s, comm, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(C, n, MPI_INT, P, 120 + s, comm, MPI_STATUS_IGNORE);
                MPI_Ssend(B, n, MPI_INT, P, 120 + s, comm);
            }
            for (int i = 0; i < n; i++)
                check_int("phase5 Ssend of pending buffer", i, msg(me, tag, i), C[i]);

            int *B2 = alloc_sent(n), *C2 = alloc_sent(n);
            xchg(B2, n, tag + 2);
            MPI_Bsend(B2, n, MPI_INT, P, 130 + s, comm);
            MPI_Recv(C2, n, MPI_INT, P, 130 + s, comm, MPI_STATUS_IGNORE);
            for (int i = 0; i < n; i++)
                check_int("phase5 Bsend of pending buffer", i, msg(me, tag + 2, i), C2[i]);
            free(B);
            free(C);
            free(B2);
            free(C2);
        }
        void *det;
        int dsz;
        MPI_Buffer_detach(&det, &dsz);
        if (det != attach || dsz != bsz)
            die("expected buffer %p size %d got %p size %d at phase5 detach", (void *)attach, bsz, det, dsz);
        free(attach);
    }

    /* ---- 6. user Irecv and converted requests on one page ---- */
    for (int s = 0; s < 2; s++) {
        const int n = sizes[s], tag = 140 + s;
        int *D = alloc_sent(n + 100), *E = alloc_sent(100);
        MPI_Request rq;
        /* D[0..n): user Irecv; D[n..n+100): own data sent with MPI_Send */
        for (int i = 0; i < 100; i++)
            D[n + i] = msg(me, tag + 4, i);
        MPI_Irecv(D, n, MPI_INT, P, tag, comm, &rq);
        int *sb = malloc((size_t)n * sizeof(int));
        for (int i = 0; i < n; i++)
            sb[i] = msg(me, tag, i);
        if (me % 2 == 0) {
            MPI_Send(D + n, 100, MPI_INT, P, tag + 4, comm); /* converted, same page as the Irecv */
            MPI_Send(sb, n, MPI_INT, P, tag, comm);
            MPI_Recv(E, 100, MPI_INT, P, tag + 4, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(E, 100, MPI_INT, P, tag + 4, comm, MPI_STATUS_IGNORE);
            MPI_Send(D + n, 100, MPI_INT, P, tag + 4, comm);
            MPI_Send(sb, n, MPI_INT, P, tag, comm);
        }
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++)
            check_int("phase6 user Irecv next to converted send", i, msg(P, tag, i), D[i]);
        for (int i = 0; i < 100; i++) {
            check_int("phase6 converted send next to user Irecv", i, msg(P, tag + 4, i), E[i]);
            check_int("phase6 own data", i, msg(me, tag + 4, i), D[n + i]);
        }

        /* converted receive pending into F[0..100), user Irecv into F[100..100+n) */
        int *F = alloc_sent(n + 100);
        xchg(F, 100, tag + 6);
        MPI_Irecv(F + 100, n, MPI_INT, P, tag + 8, comm, &rq);
        MPI_Send(sb, n, MPI_INT, P, tag + 8, comm);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        for (int i = 0; i < n + 100; i++)
            check_int("phase6 user Irecv next to pending receive", i,
                      i < 100 ? msg(P, tag + 6, i) : msg(P, tag, i - 100), F[i]);
        free(D);
        free(E);
        free(F);
        free(sb);
    }

    return overlap_pass();
}

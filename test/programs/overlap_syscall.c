/* overlap_syscall.c - system calls on buffers with pending converted
 * receives/sends (overlap tool test).
 *
 * Usage: overlap_syscall                  -np 2 (any even np: pairs r, r^1).
 *
 * The program receives into a heap buffer with a blocking MPI_Recv and then,
 * WITHOUT touching the buffer in user space, hands it to the kernel. A page
 * that the tool keeps PROT_NONE for a pending receive (or send) does not
 * fault inside a system call: the call fails with EFAULT (or, for a
 * stream, writes/reads only part). So every call is checked for its full
 * length, errno and data. Cases:
 *   1. write() from the buffer into a pipe, read back elsewhere.
 *   2. write() into a temporary file, lseek, read back.
 *   3. read() INTO a buffer with a pending receive, over the whole buffer
 *      and over its middle only: the later read() must win where it wrote,
 *      the received data must stay elsewhere.
 *   4. fwrite() of 64 KB (glibc writes that directly from the user buffer)
 *      and of 100 bytes (copied in user space); fread() of 64 KB directly
 *      into a buffer with a pending receive.
 *   5. send()/recv() over an AF_UNIX socketpair, from and into buffers with
 *      pending receives.
 *   6. pwrite()/pread() at an offset, from and into such buffers.
 *   7. writev()/readv() with iovecs mixing pending-receive buffers and
 *      ordinary ones.
 *   8. The same for buffers of a converted MPI_Send that just returned (a
 *      tool that protects send pages until the send completes): write()
 *      from the sent buffer, read() into it (overwriting a sent buffer after
 *      MPI_Send returns is legal; the partner must still get the old data).
 * Success: "overlap_syscall rank R: OK <checksum>" on every rank.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define OVERLAP_PROGRAM "overlap_syscall"
#include "overlap_check.h"

static int g_partner;
static MPI_Comm comm;

/* Check a system call's return value: must be exactly `exp` bytes. */
static void check_ret(const char *what, long long exp, long long got, int err)
{
    if (got != exp)
        die("expected %lld got %lld (errno %d %s) at %s", exp, got, got < 0 ? err : 0,
            got < 0 ? strerror(err) : "short transfer", what);
}

static int msg(int r, int tag, int i) { return r * 1000003 + tag * 1009 + i; }
static int filev(int i) { return 900000000 + i; }

static void xchg(int *rb, int n, int tag) { pair_exchange_msg(rb, n, tag, g_partner, comm, msg); }

static void check_msg(const char *what, const int *b, int tag, int n)
{
    for (int i = 0; i < n; i++)
        check_int(what, i, msg(g_partner, tag, i), b[i]);
}

/* read exactly len bytes (pipes/sockets may return less) */
static void read_full(const char *what, int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, (char *)buf + got, len - got);
        if (r <= 0)
            check_ret(what, (long long)(len - got), r, errno);
        got += (size_t)r;
    }
}

static int tmp_fd(void)
{
    char path[] = "/tmp/overlap_syscall_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        die("expected a file got errno %d (%s) at mkstemp", errno, strerror(errno));
    unlink(path);
    return fd;
}

/* Phase 8: each buffer of a converted MPI_Send handed to a system call as soon as the send returned:
 * s written to the file at `off`, s2 read over from its start. */
static void send_then_syscalls(int *s, int *s2, int N, int fd, off_t off)
{
    const size_t NB = N * sizeof(int);
    MPI_Send(s, N, MPI_INT, g_partner, 16, comm);
    errno = 0;
    ssize_t r = pwrite(fd, s, NB, off);
    check_ret("phase8 pwrite() from just-sent buffer", (long long)NB, r, errno);
    MPI_Send(s2, N, MPI_INT, g_partner, 17, comm);
    errno = 0;
    r = pread(fd, s2, NB, 0);
    check_ret("phase8 pread() into just-sent buffer", (long long)NB, r, errno);
}

int main(int argc, char **argv)
{
    ssize_t r;

    overlap_init(&argc, &argv, 1);
    comm = MPI_COMM_WORLD;
    g_partner = g_rank ^ 1;

    const int N = 2000;            /* 8000 bytes: spans pages */
    const size_t NB = N * sizeof(int);
    int *plain = malloc(16384 * sizeof(int)); /* never has a pending request */
    int *fdata = malloc(16384 * sizeof(int));
    for (int i = 0; i < 16384; i++)
        fdata[i] = filev(i);
    int fd = tmp_fd();

    /* ---- 1. write() into a pipe ---- */
    {
        int pfd[2];
        if (pipe(pfd) != 0)
            die("expected 0 got errno %d at pipe", errno);
        int *b = malloc(NB);
        xchg(b, N, 1);
        errno = 0;
        r = write(pfd[1], b, NB);
        check_ret("phase1 write(pipe) from pending buffer", (long long)NB, r, errno);
        read_full("phase1 read(pipe)", pfd[0], plain, NB);
        check_msg("phase1 pipe data", plain, 1, N);
        check_msg("phase1 buffer", b, 1, N);
        close(pfd[0]);
        close(pfd[1]);
        free(b);
    }

    /* ---- 2. write() into a file ---- */
    {
        int *b = malloc(NB);
        xchg(b, N, 2);
        errno = 0;
        r = write(fd, b, NB);
        check_ret("phase2 write(file) from pending buffer", (long long)NB, r, errno);
        lseek(fd, 0, SEEK_SET);
        read_full("phase2 read(file)", fd, plain, NB);
        check_msg("phase2 file data", plain, 2, N);
        check_msg("phase2 buffer", b, 2, N);
        free(b);
    }

    /* file now holds filev(0..16383) */
    lseek(fd, 0, SEEK_SET);
    r = write(fd, fdata, 16384 * sizeof(int));
    check_ret("write(file) of reference data", 16384 * (long long)sizeof(int), r, errno);

    /* ---- 3. read() into a buffer with a pending receive ---- */
    {
        int *b = malloc(200 * sizeof(int));
        xchg(b, 200, 3);
        lseek(fd, 0, SEEK_SET);
        errno = 0;
        r = read(fd, b + 50, 100 * sizeof(int));
        check_ret("phase3 read() into middle of pending buffer", 100 * (long long)sizeof(int), r, errno);
        for (int i = 0; i < 200; i++)
            check_int("phase3 partial", i, (i >= 50 && i < 150) ? filev(i - 50) : msg(g_partner, 3, i), b[i]);
        int *c = malloc(NB);
        xchg(c, N, 4);
        lseek(fd, 0, SEEK_SET);
        errno = 0;
        r = read(fd, c, NB);
        check_ret("phase3 read() over whole pending buffer", (long long)NB, r, errno);
        for (int i = 0; i < N; i++)
            check_int("phase3 whole", i, filev(i), c[i]);
        MPI_Barrier(comm); /* a late unpack must not undo the read() */
        for (int i = 0; i < N; i++)
            check_int("phase3 whole after barrier", i, filev(i), c[i]);
        free(b);
        free(c);
    }

    /* ---- 4. fwrite / fread ---- */
    {
        const int M = 16384; /* 64 KB, larger than the stdio buffer */
        FILE *f = tmpfile();
        if (!f)
            die("expected a FILE got NULL (errno %d) at tmpfile", errno);
        int *b = malloc(M * sizeof(int));
        xchg(b, M, 5);
        errno = 0;
        size_t w = fwrite(b, sizeof(int), (size_t)M, f);
        check_ret("phase4 fwrite 64 KB from pending buffer", M, (long long)w, errno);
        int *s = malloc(100);
        xchg(s, 25, 6);
        w = fwrite(s, 1, 100, f);
        check_ret("phase4 fwrite 100 bytes from pending buffer", 100, (long long)w, errno);
        if (fflush(f) != 0 || ferror(f))
            die("expected fflush ok got errno %d at phase4", errno);
        rewind(f);
        int *c = malloc(M * sizeof(int));
        xchg(c, M, 7);
        errno = 0;
        size_t rd = fread(c, sizeof(int), (size_t)M, f);
        check_ret("phase4 fread 64 KB into pending buffer", M, (long long)rd, errno);
        if (ferror(f))
            die("expected no stream error got errno %d at phase4 fread", errno);
        check_msg("phase4 fread data (= first fwrite)", c, 5, M);
        rd = fread(plain, 1, 100, f);
        check_ret("phase4 fread 100 bytes", 100, (long long)rd, errno);
        check_msg("phase4 small fwrite data", plain, 6, 25);
        check_msg("phase4 buffer b", b, 5, M);
        check_msg("phase4 buffer s", s, 6, 25);
        fclose(f);
        free(b);
        free(s);
        free(c);
    }

    /* ---- 5. socketpair send()/recv() ---- */
    {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
            die("expected 0 got errno %d at socketpair", errno);
        int *b = malloc(NB);
        xchg(b, N, 8);
        errno = 0;
        r = send(sv[0], b, NB, 0);
        check_ret("phase5 send() from pending buffer", (long long)NB, r, errno);
        memset(plain, 0, NB);
        read_full("phase5 read(socket)", sv[1], plain, NB);
        check_msg("phase5 socket data", plain, 8, N);
        int *c = malloc(NB);
        xchg(c, N, 9);
        r = send(sv[0], fdata, NB, 0);
        check_ret("phase5 send() of reference data", (long long)NB, r, errno);
        errno = 0;
        r = recv(sv[1], c, NB, MSG_WAITALL);
        check_ret("phase5 recv() into pending buffer", (long long)NB, r, errno);
        for (int i = 0; i < N; i++)
            check_int("phase5 recv data", i, filev(i), c[i]);
        check_msg("phase5 buffer b", b, 8, N);
        close(sv[0]);
        close(sv[1]);
        free(b);
        free(c);
    }

    /* ---- 6. pwrite / pread ---- */
    {
        const off_t off = 100000;
        int *b = malloc(NB);
        xchg(b, N, 10);
        errno = 0;
        r = pwrite(fd, b, NB, off);
        check_ret("phase6 pwrite() from pending buffer", (long long)NB, r, errno);
        r = pread(fd, plain, NB, off);
        check_ret("phase6 pread()", (long long)NB, r, errno);
        check_msg("phase6 pwrite data", plain, 10, N);
        int *c = malloc(NB);
        xchg(c, N, 11);
        errno = 0;
        r = pread(fd, c, NB, 0);
        check_ret("phase6 pread() into pending buffer", (long long)NB, r, errno);
        for (int i = 0; i < N; i++)
            check_int("phase6 pread data", i, filev(i), c[i]);
        check_msg("phase6 buffer b", b, 10, N);
        free(b);
        free(c);
    }

    /* ---- 7. writev / readv ---- */
    {
        int *b1 = malloc(NB), *b2 = malloc(NB);
        xchg(b1, N, 12);
        xchg(b2, N, 13);
        struct iovec iov[3] = {
            {b1, 400 * sizeof(int)}, {fdata, 400 * sizeof(int)}, {b2 + 1000, 1000 * sizeof(int)}
        };
        const off_t off = 200000;
        lseek(fd, off, SEEK_SET);
        errno = 0;
        r = writev(fd, iov, 3);
        check_ret("phase7 writev() from pending buffers", 1800 * (long long)sizeof(int), r, errno);
        r = pread(fd, plain, 1800 * sizeof(int), off);
        check_ret("phase7 pread()", 1800 * (long long)sizeof(int), r, errno);
        for (int i = 0; i < 1800; i++)
            check_int("phase7 writev data", i,
                      i < 400 ? msg(g_partner, 12, i) : i < 800 ? filev(i - 400) : msg(g_partner, 13, i - 800 + 1000),
                      plain[i]);
        int *c1 = malloc(NB), *c2 = malloc(NB);
        xchg(c1, N, 14);
        xchg(c2, N, 15);
        struct iovec riov[3] = {
            {c1 + 100, 300 * sizeof(int)}, {plain, 200 * sizeof(int)}, {c2, (size_t)N * sizeof(int)}
        };
        lseek(fd, 0, SEEK_SET);
        errno = 0;
        r = readv(fd, riov, 3);
        check_ret("phase7 readv() into pending buffers", (300 + 200 + N) * (long long)sizeof(int), r, errno);
        for (int i = 0; i < N; i++)
            check_int("phase7 readv c1", i, (i >= 100 && i < 400) ? filev(i - 100) : msg(g_partner, 14, i), c1[i]);
        for (int i = 0; i < 200; i++)
            check_int("phase7 readv plain", i, filev(300 + i), plain[i]);
        for (int i = 0; i < N; i++)
            check_int("phase7 readv c2", i, filev(500 + i), c2[i]);
        check_msg("phase7 buffer b1", b1, 12, N);
        check_msg("phase7 buffer b2", b2, 13, N);
        free(b1);
        free(b2);
        free(c1);
        free(c2);
    }

    /* ---- 8. buffers of a converted MPI_Send that just returned ---- */
    {
        int *s = malloc(NB), *s2 = malloc(NB), *in = malloc(NB), *in2 = malloc(NB);
        for (int i = 0; i < N; i++) {
            s[i] = msg(g_rank, 16, i);
            s2[i] = msg(g_rank, 17, i);
        }
        const off_t off = 300000;
        if (g_rank % 2 == 0) {
            send_then_syscalls(s, s2, N, fd, off);
            MPI_Recv(in, N, MPI_INT, g_partner, 16, comm, MPI_STATUS_IGNORE);
            MPI_Recv(in2, N, MPI_INT, g_partner, 17, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, N, MPI_INT, g_partner, 16, comm, MPI_STATUS_IGNORE);
            MPI_Recv(in2, N, MPI_INT, g_partner, 17, comm, MPI_STATUS_IGNORE);
            send_then_syscalls(s, s2, N, fd, off);
        }
        r = pread(fd, plain, NB, off);
        check_ret("phase8 pread()", (long long)NB, r, errno);
        for (int i = 0; i < N; i++) {
            check_int("phase8 written from sent buffer", i, msg(g_rank, 16, i), plain[i]);
            check_int("phase8 read into sent buffer", i, filev(i), s2[i]);
        }
        check_msg("phase8 partner's first send", in, 16, N);
        check_msg("phase8 partner's second send", in2, 17, N);
        free(s);
        free(s2);
        free(in);
        free(in2);
    }

    close(fd);
    free(plain);
    free(fdata);
    return overlap_pass();
}

/* overlap_segv.c - genuine segmentation faults and the program's own SIGSEGV
 * handler next to the tool's (overlap tool test).
 *
 * Usage: overlap_segv MODE                -np 2 (any np >= 2 works; not 1:
 *                                         MPICH 4.0/ucx blocks in MPI_Send
 *                                         to self even for 800 bytes).
 *
 * Every mode first runs converted traffic: a ring MPI_Sendrecv and an
 * MPI_Send/MPI_Recv pair into heap buffers malloc'd after MPI_Init, whose
 * receives are left untouched (so they may still be pending, their pages
 * protected). Then:
 *   touch   - reads the received data (faults of the tool's own protection
 *             must be resolved transparently); prints
 *             "overlap_segv rank R: OK <checksum>", exit status 0.
 *   plain   - writes through (volatile int *)8: a genuine SEGV_MAPERR. The
 *             process must die by SIGSEGV (not hang re-running the faulting
 *             instruction, not exit normally). mpirun reports the signal.
 *   accerr  - writes into a page the PROGRAM mapped read-only with mmap: a
 *             genuine fault with si_code SEGV_ACCERR (the code the tool's
 *             own faults have) on an address the tool does not own. Must die
 *             by SIGSEGV.
 *   handler - installs its own SA_SIGINFO SIGSEGV handler with sigaction()
 *             AFTER MPI_Init, checks that sigaction() reports it back, runs
 *             the traffic again and reads the received data (the tool's
 *             faults must not reach the program's handler: the tool has to
 *             stay first and chain), then faults at address 8. The program's
 *             handler writes "overlap_segv rank R: own handler ran" with
 *             write(2) and calls _exit(3): exit status 3 expected. (If it is
 *             entered for another address it writes "... wrong fault ..."
 *             and exits 4.)
 *   signal  - the same with signal() instead of sigaction() (the handler
 *             cannot check the address: it writes the line and _exit(3)).
 * Any wrong received value: "overlap_segv rank R: expected ..." and
 * MPI_Abort (exit status 1 from the launcher).
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define OVERLAP_PROGRAM "overlap_segv"
#include "overlap_check.h"

static int g_size;
static char g_line[128];
static size_t g_line_len;

static int msg(int r, int tag, int i) { return r * 1000003 + tag * 1009 + i; }

struct traffic { int *r1, *r2; int n1, n2, tag; };

/* Converted traffic; the receive buffers are returned untouched. */
static struct traffic run_traffic(int tag)
{
    struct traffic t = {NULL, NULL, 3000, 200, tag};
    const int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
    int *s1 = malloc(t.n1 * sizeof(int)), *s2 = malloc(t.n2 * sizeof(int));
    t.r1 = malloc(t.n1 * sizeof(int));
    t.r2 = malloc(t.n2 * sizeof(int));
    for (int i = 0; i < t.n1; i++)
        s1[i] = msg(g_rank, tag, i);
    for (int i = 0; i < t.n2; i++)
        s2[i] = msg(g_rank, tag + 1, i);
    MPI_Sendrecv(s1, t.n1, MPI_INT, right, tag, t.r1, t.n1, MPI_INT, left, tag, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    /* 800 bytes: eager everywhere, so Send-before-Recv in a ring is safe */
    MPI_Send(s2, t.n2, MPI_INT, right, tag + 1, MPI_COMM_WORLD);
    MPI_Recv(t.r2, t.n2, MPI_INT, left, tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    free(s1);
    free(s2);
    return t;
}

static void check_traffic(struct traffic *t)
{
    const int left = (g_rank + g_size - 1) % g_size;
    for (int i = 0; i < t->n1; i++) {
        if (t->r1[i] != msg(left, t->tag, i))
            die("expected %d got %d at Sendrecv data[%d]", msg(left, t->tag, i), t->r1[i], i);
        ck_mix((unsigned long long)t->r1[i]);
    }
    for (int i = 0; i < t->n2; i++) {
        if (t->r2[i] != msg(left, t->tag + 1, i))
            die("expected %d got %d at Recv data[%d]", msg(left, t->tag + 1, i), t->r2[i], i);
        ck_mix((unsigned long long)t->r2[i]);
    }
}

static void own_action(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    if (si->si_addr != (void *)8) {
        static const char w[] = "overlap_segv: own handler: wrong fault address\n";
        ssize_t r = write(2, w, sizeof w - 1);
        (void)r;
        _exit(4);
    }
    ssize_t r = write(2, g_line, g_line_len);
    (void)r;
    _exit(3);
}

static void own_handler(int sig)
{
    (void)sig;
    ssize_t r = write(2, g_line, g_line_len);
    (void)r;
    _exit(3);
}

static void genuine_fault(void)
{
    volatile int *volatile p = (volatile int *)8; /* hidden from -Warray-bounds */
    *p = 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    if (g_size < 2)
        die("needs at least 2 processes");
    const char *mode = argc > 1 ? argv[1] : "";
    g_line_len = (size_t)snprintf(g_line, sizeof g_line, "overlap_segv rank %d: own handler ran\n", g_rank);

    struct traffic t = run_traffic(10);

    if (strcmp(mode, "touch") == 0) {
        check_traffic(&t);
        struct traffic t2 = run_traffic(20);
        check_traffic(&t2);
        printf("overlap_segv rank %d: OK %016llx\n", g_rank, g_ck);
        fflush(stdout);
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "plain") == 0) {
        genuine_fault();
        die("expected death by SIGSEGV got survival at plain fault");
    }
    if (strcmp(mode, "accerr") == 0) {
        long ps = sysconf(_SC_PAGESIZE);
        char *ro = mmap(NULL, (size_t)ps, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (ro == MAP_FAILED)
            die("expected a mapping got MAP_FAILED at accerr mmap");
        ((volatile char *)ro)[100] = 1;
        die("expected death by SIGSEGV got survival at accerr fault");
    }
    if (strcmp(mode, "handler") == 0 || strcmp(mode, "signal") == 0) {
        const int use_sigaction = strcmp(mode, "handler") == 0;
        if (use_sigaction) {
            struct sigaction sa, cur;
            memset(&sa, 0, sizeof sa);
            sa.sa_sigaction = own_action;
            sa.sa_flags = SA_SIGINFO;
            sigemptyset(&sa.sa_mask);
            if (sigaction(SIGSEGV, &sa, NULL) != 0)
                die("expected 0 got -1 at sigaction");
            memset(&cur, 0, sizeof cur);
            if (sigaction(SIGSEGV, NULL, &cur) != 0)
                die("expected 0 got -1 at sigaction query");
            if (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != own_action)
                die("expected own handler %p got %p (flags %#x) at sigaction query", (void *)own_action,
                    (cur.sa_flags & SA_SIGINFO) ? (void *)cur.sa_sigaction : (void *)cur.sa_handler,
                    (unsigned)cur.sa_flags);
        } else {
            signal(SIGSEGV, own_handler);
            void (*prev)(int) = signal(SIGSEGV, own_handler);
            if (prev != own_handler)
                die("expected own handler %p got %p at signal() query", (void *)own_handler, (void *)prev);
        }
        check_traffic(&t); /* traffic from before the handler was installed */
        struct traffic t2 = run_traffic(20);
        check_traffic(&t2); /* traffic after it */
        struct traffic t3 = run_traffic(30);
        (void)t3;           /* left pending */
        MPI_Barrier(MPI_COMM_WORLD);
        genuine_fault();
        die("expected the own handler to exit got survival at %s fault", mode);
    }
    die("expected MODE touch|plain|accerr|handler|signal got '%s' at argv[1]", mode);
    return 1;
}

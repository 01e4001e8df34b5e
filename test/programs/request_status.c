/* request_status.c - the statuses of null and inactive requests, and of arrays that mix them with
 * real ones, through every completion function (MPICH's test suite, pt2pt/rqstatus, checks the
 * first of them). A tool must hand the program the status the library gives.
 *
 * Usage: request_status                  -np 2 (any even np works: ranks pair up)
 *
 * The standard's empty status: MPI_SOURCE = MPI_ANY_SOURCE, MPI_TAG = MPI_ANY_TAG, MPI_ERROR =
 * MPI_SUCCESS, count 0 (MPI_Get_count, MPI_Get_elements(_x), MPI_Get_count_c on MPI 4), not
 * cancelled. Each status below is filled with garbage first, so an empty one was really written.
 *   1. MPI_REQUEST_NULL: MPI_Request_get_status (with a status and MPI_STATUS_IGNORE), MPI_Test,
 *      MPI_Wait.
 *   2. An inactive persistent receive (MPI_Recv_init never started; then started, completed and
 *      inactive again): MPI_Request_get_status, MPI_Test, MPI_Wait.
 *   3. Arrays of null and inactive requests only: MPI_Waitany/MPI_Testany (index MPI_UNDEFINED,
 *      empty status, Testany's flag true), MPI_Waitsome/MPI_Testsome (outcount MPI_UNDEFINED),
 *      MPI_Waitall/MPI_Testall (every status empty).
 *   4. Arrays mixing null, inactive and real requests (an Irecv, an Isend, a started persistent
 *      receive), while a blocking MPI_Recv into an unread heap buffer is still pending (a receive
 *      the overlap tool runs in the background): MPI_Waitall gives the real ones their source,
 *      tag and count and the others empty statuses; MPI_Waitany/Testsome/Waitsome return the real
 *      ones only, each with its status. Then the pending buffer is read and checked.
 * Prints "request_status rank R: <C> checks, <W> wrong" on every rank, each wrong field on stderr;
 * exits 1 when any is wrong. Plain, both MPIs leave some empty statuses' MPI_ERROR as it was (and
 * MPICH 4.0's MPI_Testany writes no status when no request is active): mpii completes them.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG 65536 /* ints: a receive big enough for a page-guarded background receive */

static int errors;
static int checks;
static int rank;

static void fail(const char *what, const char *field, long got, long want)
{
    errors++;
    fprintf(stderr, "request_status rank %d: %s: %s is %ld, expected %ld\n", rank, what, field, got, want);
}

static void expect_long(const char *what, const char *field, long got, long want)
{
    checks++;
    if (got != want) fail(what, field, got, want);
}

static void garbage(MPI_Status *st, int n)
{
    memset(st, 0x5a, sizeof *st * (size_t) n);
}

static void expect_empty(const char *what, MPI_Status *st)
{
    int count = -1, elements = -1, cancelled = -1;
    MPI_Count elements_x = -1;
    expect_long(what, "MPI_SOURCE", st->MPI_SOURCE, MPI_ANY_SOURCE);
    expect_long(what, "MPI_TAG", st->MPI_TAG, MPI_ANY_TAG);
    expect_long(what, "MPI_ERROR", st->MPI_ERROR, MPI_SUCCESS);
    MPI_Get_count(st, MPI_INT, &count);
    expect_long(what, "count", count, 0);
    MPI_Get_elements(st, MPI_INT, &elements);
    expect_long(what, "elements", elements, 0);
    MPI_Get_elements_x(st, MPI_INT, &elements_x);
    expect_long(what, "elements_x", (long) elements_x, 0);
#if MPI_VERSION >= 4
    MPI_Count count_c = -1;
    MPI_Get_count_c(st, MPI_INT, &count_c);
    expect_long(what, "count_c", (long) count_c, 0);
#endif
    MPI_Test_cancelled(st, &cancelled);
    expect_long(what, "cancelled", cancelled, 0);
}

static void expect_message(const char *what, MPI_Status *st, int source, int tag, int count)
{
    int got = -1;
    expect_long(what, "MPI_SOURCE", st->MPI_SOURCE, source);
    expect_long(what, "MPI_TAG", st->MPI_TAG, tag);
    MPI_Get_count(st, MPI_INT, &got);
    expect_long(what, "count", got, count);
}

static void null_request(void)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    int flag = 0;
    garbage(&st, 1);
    MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st);
    expect_long("Request_get_status(null)", "flag", flag, 1);
    expect_empty("Request_get_status(null)", &st);
    flag = 0;
    MPI_Request_get_status(MPI_REQUEST_NULL, &flag, MPI_STATUS_IGNORE);
    expect_long("Request_get_status(null, MPI_STATUS_IGNORE)", "flag", flag, 1);
    garbage(&st, 1);
    flag = 0;
    MPI_Test(&req, &flag, &st);
    expect_long("Test(null)", "flag", flag, 1);
    expect_empty("Test(null)", &st);
    garbage(&st, 1);
    MPI_Wait(&req, &st);
    expect_empty("Wait(null)", &st);
    expect_long("Wait(null)", "request is null", req == MPI_REQUEST_NULL, 1);
}

static void inactive_request(int partner)
{
    int buf[4] = { 0 }, out[4] = { 1, 2, 3, 4 }, flag = 0;
    MPI_Request req;
    MPI_Status st;
    MPI_Recv_init(buf, 4, MPI_INT, partner, 11, MPI_COMM_WORLD, &req);
    for (int round = 0; round < 2; round++) {
        garbage(&st, 1);
        flag = 0;
        MPI_Request_get_status(req, &flag, &st);
        expect_long("Request_get_status(inactive)", "flag", flag, 1);
        expect_empty("Request_get_status(inactive)", &st);
        garbage(&st, 1);
        flag = 0;
        MPI_Test(&req, &flag, &st);
        expect_long("Test(inactive)", "flag", flag, 1);
        expect_empty("Test(inactive)", &st);
        garbage(&st, 1);
        MPI_Wait(&req, &st);
        expect_empty("Wait(inactive)", &st);
        expect_long("Wait(inactive)", "request kept", req != MPI_REQUEST_NULL, 1);
        if (round == 0) { /* start and complete it once: then it is inactive again */
            MPI_Start(&req);
            MPI_Send(out, 4, MPI_INT, partner, 11, MPI_COMM_WORLD);
            garbage(&st, 1);
            MPI_Wait(&req, &st);
            expect_message("Wait(persistent)", &st, partner, 11, 4);
            expect_long("Wait(persistent)", "buf[3]", buf[3], 4);
        }
    }
    MPI_Request_free(&req);
}

static void inactive_arrays(int partner)
{
    int buf = 0, index = -2, outcount = -2, flag = 0, indices[3];
    MPI_Request reqs[3];
    MPI_Status st, sts[3];
    reqs[0] = MPI_REQUEST_NULL;
    MPI_Recv_init(&buf, 1, MPI_INT, partner, 12, MPI_COMM_WORLD, &reqs[1]);
    reqs[2] = MPI_REQUEST_NULL;

    garbage(&st, 1);
    MPI_Waitany(3, reqs, &index, &st);
    expect_long("Waitany(null, inactive)", "index", index, MPI_UNDEFINED);
    expect_empty("Waitany(null, inactive)", &st);
    garbage(&st, 1);
    index = -2;
    MPI_Testany(3, reqs, &index, &flag, &st);
    expect_long("Testany(null, inactive)", "flag", flag, 1);
    expect_long("Testany(null, inactive)", "index", index, MPI_UNDEFINED);
    expect_empty("Testany(null, inactive)", &st);
    MPI_Waitsome(3, reqs, &outcount, indices, sts);
    expect_long("Waitsome(null, inactive)", "outcount", outcount, MPI_UNDEFINED);
    outcount = -2;
    MPI_Testsome(3, reqs, &outcount, indices, sts);
    expect_long("Testsome(null, inactive)", "outcount", outcount, MPI_UNDEFINED);
    garbage(sts, 3);
    MPI_Waitall(3, reqs, sts);
    for (int i = 0; i < 3; i++) expect_empty("Waitall(null, inactive)", &sts[i]);
    garbage(sts, 3);
    flag = 0;
    MPI_Testall(3, reqs, &flag, sts);
    expect_long("Testall(null, inactive)", "flag", flag, 1);
    for (int i = 0; i < 3; i++) expect_empty("Testall(null, inactive)", &sts[i]);
    MPI_Request_free(&reqs[1]);
}

/* A blocking receive of BIG ints the program does not read until the end (the overlap tool runs it
 * in the background), then arrays of null, inactive and real requests. */
static void mixed_arrays(int partner)
{
    int *pending = malloc(sizeof(int) * BIG), *big = malloc(sizeof(int) * BIG);
    int a = 0, b = 0, c = 0, mine = rank * 100, index = -2, outcount = -2, flag = 0, indices[5];
    int idle_buf = 0;
    MPI_Request reqs[5], inactive, idle;
    MPI_Status st, sts[5];
    for (int i = 0; i < BIG; i++) big[i] = rank * BIG + i;
    MPI_Recv_init(&c, 1, MPI_INT, partner, 23, MPI_COMM_WORLD, &inactive);
    MPI_Recv_init(&idle_buf, 1, MPI_INT, partner, 24, MPI_COMM_WORLD, &idle); /* never started */

    /* the even rank sends first: the pair never waits on each other's blocking receive */
    if (rank % 2 == 0) {
        MPI_Send(big, BIG, MPI_INT, partner, 20, MPI_COMM_WORLD);
        MPI_Recv(pending, BIG, MPI_INT, partner, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(pending, BIG, MPI_INT, partner, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(big, BIG, MPI_INT, partner, 20, MPI_COMM_WORLD);
    }

    /* Waitall: null, Irecv, inactive, Isend, null */
    reqs[0] = MPI_REQUEST_NULL;
    MPI_Irecv(&a, 1, MPI_INT, partner, 21, MPI_COMM_WORLD, &reqs[1]);
    reqs[2] = inactive;
    MPI_Isend(&mine, 1, MPI_INT, partner, 21, MPI_COMM_WORLD, &reqs[3]);
    reqs[4] = MPI_REQUEST_NULL;
    garbage(sts, 5);
    MPI_Waitall(5, reqs, sts);
    expect_empty("Waitall(mixed)[0] null", &sts[0]);
    expect_message("Waitall(mixed)[1] Irecv", &sts[1], partner, 21, 1);
    expect_empty("Waitall(mixed)[2] inactive", &sts[2]);
    expect_empty("Waitall(mixed)[4] null", &sts[4]);
    expect_long("Waitall(mixed)", "received", a, partner * 100);
    expect_long("Waitall(mixed)", "Irecv request freed", reqs[1] == MPI_REQUEST_NULL, 1);
    expect_long("Waitall(mixed)", "inactive request kept", reqs[2] == inactive, 1);

    /* Waitany, then Testsome/Waitsome: the real ones only, each with its status */
    reqs[0] = MPI_REQUEST_NULL;
    reqs[1] = idle;
    MPI_Irecv(&b, 1, MPI_INT, partner, 22, MPI_COMM_WORLD, &reqs[2]);
    MPI_Start(&inactive);
    reqs[3] = inactive;
    reqs[4] = MPI_REQUEST_NULL;
    MPI_Send(&mine, 1, MPI_INT, partner, 22, MPI_COMM_WORLD);
    MPI_Send(&mine, 1, MPI_INT, partner, 23, MPI_COMM_WORLD);
    garbage(&st, 1);
    MPI_Waitany(5, reqs, &index, &st);
    checks++;
    if (index != 2 && index != 3) fail("Waitany(mixed)", "index", index, 2);
    else expect_message("Waitany(mixed)", &st, partner, index == 2 ? 22 : 23, 1);
    int left = index == 2 ? 3 : 2;
    do {
        outcount = -2;
        garbage(sts, 5);
        MPI_Testsome(5, reqs, &outcount, indices, sts);
    } while (outcount == 0);
    expect_long("Testsome(mixed)", "outcount", outcount, 1);
    expect_long("Testsome(mixed)", "index", indices[0], left);
    expect_message("Testsome(mixed)", &sts[0], partner, left == 2 ? 22 : 23, 1);
    MPI_Waitsome(5, reqs, &outcount, indices, sts);
    expect_long("Waitsome(mixed, all done)", "outcount", outcount, MPI_UNDEFINED);
    flag = 0;
    garbage(&st, 1);
    MPI_Testany(5, reqs, &index, &flag, &st);
    expect_long("Testany(mixed, all done)", "flag", flag, 1);
    expect_long("Testany(mixed, all done)", "index", index, MPI_UNDEFINED);
    expect_empty("Testany(mixed, all done)", &st);
    expect_long("Waitany/Testsome(mixed)", "received", b + c, 2 * partner * 100);
    MPI_Request_free(&inactive);
    MPI_Request_free(&idle);

    /* only now the blocking receive's buffer */
    long bad = 0;
    for (int i = 0; i < BIG; i++) bad += pending[i] != partner * BIG + i;
    expect_long("blocking receive read last", "wrong ints", bad, 0);
    free(pending);
    free(big);
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int partner = rank ^ 1;
    null_request();
    if (partner < size) {
        inactive_request(partner);
        inactive_arrays(partner);
        mixed_arrays(partner);
    }
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("request_status rank %d: %d checks, %d wrong\n", rank, checks, errors);
    MPI_Finalize();
    return all != 0;
}

/* qmpi_counter_tool.c - an external QMPI tool written only against the
 * MPICH QMPI API (mpi.h / mpi_proto.h). It counts MPI_Send, MPI_Recv and
 * MPI_Barrier per tool instance and, in MPI_Finalize, prints one line per
 * instance to stderr:
 *     qmpi_counter[<tool_id>] rank=<r> sends=<n> recvs=<n> barriers=<n>
 * Every intercepted call is forwarded down the chain with QMPI_Get_function,
 * never via PMPI_*, so the tool also works stacked with other QMPI tools.
 *
 * Build (MPICH):    mpicc.mpich -shared -fPIC -o libqmpi_counter.so qmpi_counter_tool.c
 * Build (Open MPI): mpicc.openmpi -shared -fPIC -I<dir with mpii's qmpi.h> ...
 */
#include <mpi.h>
#if !defined(MPICH)
#include "qmpi.h" /* Open MPI has no QMPI; mpii ships MPICH-identical decls */
#endif
#include <stdio.h>
#include <stdlib.h>

struct counter_storage {
    int tool_id;
    long sends, recvs, barriers;
};

/* Fetch this instance's storage; tool_id identifies our layer in the chain. */
static struct counter_storage *storage(QMPI_Context context, int tool_id)
{
    void *p = NULL;
    QMPI_Get_tool_storage(context, tool_id, &p);
    return (struct counter_storage *)p;
}

static int my_send(QMPI_Context context, int tool_id, const void *buf, int count,
                   MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    void (*fn)(void) = NULL;
    void *addr = NULL;
    int next_id;

    storage(context, tool_id)->sends++;
    /* The runtime must report where the application called MPI_Send from. */
    QMPI_Get_calling_address(context, &addr);
    if (addr == NULL)
        fprintf(stderr, "qmpi_counter: no calling address\n");
    QMPI_Get_function(tool_id, MPI_SEND_T, &fn, &next_id);
    return ((QMPI_Send_t *)fn)(context, next_id, buf, count, datatype, dest, tag, comm);
}

static int my_recv(QMPI_Context context, int tool_id, void *buf, int count,
                   MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Status *status)
{
    void (*fn)(void) = NULL;
    int next_id;

    storage(context, tool_id)->recvs++;
    QMPI_Get_function(tool_id, MPI_RECV_T, &fn, &next_id);
    return ((QMPI_Recv_t *)fn)(context, next_id, buf, count, datatype, source, tag, comm,
                               status);
}

static int my_barrier(QMPI_Context context, int tool_id, MPI_Comm comm)
{
    void (*fn)(void) = NULL;
    int next_id;

    storage(context, tool_id)->barriers++;
    QMPI_Get_function(tool_id, MPI_BARRIER_T, &fn, &next_id);
    return ((QMPI_Barrier_t *)fn)(context, next_id, comm);
}

static int my_finalize(QMPI_Context context, int tool_id)
{
    struct counter_storage *s = storage(context, tool_id);
    void (*fn)(void) = NULL;
    int next_id, rank = -1;

    /* Rank goes through the chain too (PMPI_Comm_rank would bypass tools
     * stacked below us), and must be queried before finalize runs. */
    QMPI_Get_function(tool_id, MPI_COMM_RANK_T, &fn, &next_id);
    ((QMPI_Comm_rank_t *)fn)(context, next_id, MPI_COMM_WORLD, &rank);
    fprintf(stderr, "qmpi_counter[%d] rank=%d sends=%ld recvs=%ld barriers=%ld\n",
            s->tool_id, rank, s->sends, s->recvs, s->barriers);
    fflush(stderr);

    QMPI_Get_function(tool_id, MPI_FINALIZE_T, &fn, &next_id);
    return ((QMPI_Finalize_t *)fn)(context, next_id);
}

/* Called by the QMPI runtime once per instance of this tool in MPI_TOOLS. */
static void init(int tool_id)
{
    struct counter_storage *s = calloc(1, sizeof(*s));
    if (s == NULL)
        abort();
    s->tool_id = tool_id;
    QMPI_Register_tool_storage(tool_id, s);
    QMPI_Register_function(tool_id, MPI_SEND_T, (void (*)(void))my_send);
    QMPI_Register_function(tool_id, MPI_RECV_T, (void (*)(void))my_recv);
    QMPI_Register_function(tool_id, MPI_BARRIER_T, (void (*)(void))my_barrier);
    QMPI_Register_function(tool_id, MPI_FINALIZE_T, (void (*)(void))my_finalize);
}

/* Runs at dlopen/preload time, before MPI_Init, as QMPI requires. */
__attribute__((constructor)) static void register_tool(void)
{
    /* Stock Debian MPICH returns MPI_ERR_UNSUPPORTED_OPERATION here; say so
     * rather than silently counting nothing. */
    if (QMPI_Register_tool_name("qmpi_counter", init) != MPI_SUCCESS)
        fprintf(stderr, "qmpi_counter: QMPI_Register_tool_name failed\n");
}

/* profile: the bytes one call moves, as this process sees them in its own buffer arguments.
 * sent = what the call's send buffers hand to MPI, received = what MPI writes into its receive
 * buffers (the posted size: an upper bound when a message is shorter). For collectives that is
 * every block of the buffer, this process's own included (Alltoall sends count × size × n);
 * MPI_IN_PLACE drops the send side; the root's side of a rooted collective is counted at the
 * root only. All MPI calls here go to PMPI: they are the tool's, not the program's. Static inline:
 * inlined into profile.c's wrappers. */
#ifndef MPII_PROFILE_BYTES_H
#define MPII_PROFILE_BYTES_H
#include "mpii_core.h"
#include "extent.h" /* mpii_type_size: the core's datatype cache */

#define PB(name, id) MPII_PMPI(name, id)

typedef struct {
    uint64_t sent, recv;
} pf_bytes_t;

static inline uint64_t pf_times(MPI_Count count, uint64_t size)
{
    return count > 0 ? (uint64_t) count * size : 0;
}

/* element i of a counts array, whichever width this function uses */
static inline MPI_Count pf_at(const int *c, const MPI_Count *cc, int i)
{
    return cc ? cc[i] : c ? c[i] : 0;
}

static inline int pf_has_counts(const int *c, const MPI_Count *cc)
{
    return c || cc;
}

static uint64_t pf_sum(const int *c, const MPI_Count *cc, int n, uint64_t size)
{
    uint64_t t = 0;
    for (int i = 0; i < n; i++) t += pf_times(pf_at(c, cc, i), size);
    return t;
}

static uint64_t pf_sum_w(const int *c, const MPI_Count *cc, const MPI_Datatype *types, int n)
{
    uint64_t t = 0;
    for (int i = 0; i < n; i++) t += pf_times(pf_at(c, cc, i), types ? mpii_type_size(types[i]) : 0);
    return t;
}

/* The peer group of a collective: its size (the remote group of an inter-communicator), this
 * process's rank in it, and whether it is an inter-communicator. */
typedef struct {
    int n, me, inter;
} pf_group_t;

static pf_group_t pf_group(MPI_Comm comm)
{
    pf_group_t g = { 0, 0, 0 };
    if (comm == MPI_COMM_NULL) return g;
    PB(MPI_Comm_test_inter, MPI_COMM_TEST_INTER_T)(comm, &g.inter);
    if (g.inter) PB(MPI_Comm_remote_size, MPI_COMM_REMOTE_SIZE_T)(comm, &g.n);
    else
        PB(MPI_Comm_size, MPI_COMM_SIZE_T)(comm, &g.n);
    PB(MPI_Comm_rank, MPI_COMM_RANK_T)(comm, &g.me);
    return g;
}

/* In- and out-degree of a process topology (neighbourhood collectives). */
static void pf_degrees(MPI_Comm comm, int me, int *in, int *out)
{
    int topo = MPI_UNDEFINED;
    *in = *out = 0;
    PB(MPI_Topo_test, MPI_TOPO_TEST_T)(comm, &topo);
    if (topo == MPI_CART) {
        int nd = 0;
        PB(MPI_Cartdim_get, MPI_CARTDIM_GET_T)(comm, &nd);
        *in = *out = 2 * nd;
    } else if (topo == MPI_GRAPH) {
        PB(MPI_Graph_neighbors_count, MPI_GRAPH_NEIGHBORS_COUNT_T)(comm, me, in);
        *out = *in;
    } else if (topo == MPI_DIST_GRAPH) {
        int weighted = 0;
        PB(MPI_Dist_graph_neighbors_count, MPI_DIST_GRAPH_NEIGHBORS_COUNT_T)(comm, in, out, &weighted);
    }
}

/* `alltoall`: the send buffer holds one block per peer (Alltoall, Neighbor_alltoall), not one
 * block for all of them (Allgather, Neighbor_allgather). */
static __attribute__((noinline)) pf_bytes_t pf_collective(int kind, int alltoall, const mpii_args_t *a)
{
    pf_bytes_t b = { 0, 0 };
    if (kind == MPII_KIND_COLL_BARRIER) return b;
    pf_group_t g = pf_group(a->comm);
    int in_place = a->send_buffer == MPI_IN_PLACE;
    uint64_t ss = a->send_datatype && !in_place ? mpii_type_size(a->send_datatype) : 0;
    uint64_t rs = a->recv_datatype ? mpii_type_size(a->recv_datatype) : 0;
    uint64_t ds = a->datatype ? mpii_type_size(a->datatype) : 0;
    int root = g.inter ? a->root == MPI_ROOT : a->root == g.me;
    int leaf = !g.inter || (a->root != MPI_ROOT && a->root != MPI_PROC_NULL); /* not the root's group */
    int v_send = pf_has_counts(a->send_counts, a->send_counts_c),
        v_recv = pf_has_counts(a->recv_counts, a->recv_counts_c);

    switch (kind) {
    case MPII_KIND_COLL_O2A:
        if (!a->send_datatype && !a->recv_datatype) { /* bcast */
            if (root) b.sent = pf_times(a->count, ds);
            else if (leaf)
                b.recv = pf_times(a->count, ds);
            break;
        }
        if (root)
            b.sent = v_send ? pf_sum(a->send_counts, a->send_counts_c, g.n, ss)
                            : pf_times(a->send_count, ss) * (uint64_t) g.n;
        if (leaf && !(root && a->recv_buffer == MPI_IN_PLACE)) b.recv = pf_times(a->recv_count, rs);
        break;
    case MPII_KIND_COLL_A2O:
        if (!a->send_datatype && !a->recv_datatype) { /* reduce */
            if (leaf && !in_place) b.sent = pf_times(a->count, ds);
            if (root) b.recv = pf_times(a->count, ds);
            break;
        }
        if (leaf && !in_place) b.sent = pf_times(a->send_count, ss);
        if (root)
            b.recv = v_recv ? pf_sum(a->recv_counts, a->recv_counts_c, g.n, rs)
                            : pf_times(a->recv_count, rs) * (uint64_t) g.n;
        break;
    case MPII_KIND_COLL_A2A:
        if (a->send_datatypes || a->recv_datatypes) { /* alltoallw */
            if (!in_place) b.sent = pf_sum_w(a->send_counts, a->send_counts_c, a->send_datatypes, g.n);
            b.recv = pf_sum_w(a->recv_counts, a->recv_counts_c, a->recv_datatypes, g.n);
        } else if (v_send) { /* alltoallv */
            if (!in_place) b.sent = pf_sum(a->send_counts, a->send_counts_c, g.n, ss);
            b.recv = pf_sum(a->recv_counts, a->recv_counts_c, g.n, rs);
        } else if (a->send_datatype || a->recv_datatype) { /* allgather[v], alltoall */
            if (!in_place) b.sent = pf_times(a->send_count, ss) * (uint64_t) (alltoall ? g.n : 1);
            b.recv = v_recv ? pf_sum(a->recv_counts, a->recv_counts_c, g.n, rs)
                            : pf_times(a->recv_count, rs) * (uint64_t) g.n;
        } else if (v_recv) { /* reduce_scatter */
            if (!in_place) b.sent = pf_sum(a->recv_counts, a->recv_counts_c, g.n, ds);
            b.recv = g.me < g.n ? pf_times(pf_at(a->recv_counts, a->recv_counts_c, g.me), ds) : 0;
        } else if (a->recv_count) { /* reduce_scatter_block */
            if (!in_place) b.sent = pf_times(a->recv_count, ds) * (uint64_t) g.n;
            b.recv = pf_times(a->recv_count, ds);
        } else { /* allreduce */
            if (!in_place) b.sent = pf_times(a->count, ds);
            b.recv = pf_times(a->count, ds);
        }
        break;
    case MPII_KIND_COLL_SCAN:
        if (!in_place) b.sent = pf_times(a->count, ds);
        b.recv = pf_times(a->count, ds);
        break;
    case MPII_KIND_COLL_NEIGHBOR: {
        int in = 0, out = 0;
        pf_degrees(a->comm, g.me, &in, &out);
        if (a->send_datatypes || a->recv_datatypes) {
            b.sent = pf_sum_w(a->send_counts, a->send_counts_c, a->send_datatypes, out);
            b.recv = pf_sum_w(a->recv_counts, a->recv_counts_c, a->recv_datatypes, in);
        } else {
            b.sent = v_send ? pf_sum(a->send_counts, a->send_counts_c, out, ss)
                            : pf_times(a->send_count, ss) * (uint64_t) (alltoall ? out : 1);
            b.recv =
                v_recv ? pf_sum(a->recv_counts, a->recv_counts_c, in, rs) : pf_times(a->recv_count, rs) * (uint64_t) in;
        }
        break;
    }
    default: break;
    }
    return b;
}
#undef PB
#endif

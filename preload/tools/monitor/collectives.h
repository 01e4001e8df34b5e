/* monitor: collectives, under the report's model (RR-9038 §4, Table 2): "as we cannot predict
 * the actual algorithm", data is assumed to go directly between the processes that own it.
 *   one-to-all  (bcast, scatter[v])    the root records what it sends to each peer;
 *   all-to-one  (gather[v], reduce)    the root records what it receives from each peer;
 *   all-to-all  (the rest, barrier,    every process records what it sends to each peer
 *   scans, neighbourhood)              (0 bytes for a barrier; scans only to higher ranks).
 * Per peer that is the C line; the communicator's O2A/A2O/A2A totals get the sum and +1.
 * On a communicator of more members than the option coll-peers, no peer's row is touched (a
 * row per member on every rank would make the profile grow with the square of the ranks): a
 * call that sends every peer the same (all but the v and w variants and reduce_scatter) adds its
 * per-peer message to the record's `each` (scans: `higher`), which the report and the .prof
 * files spread over the members, exactly; the others add their messages to `apart`, counted in
 * the totals but in no peer's row. So the common call costs O(1) there, not O(members).
 * Where Open MPI's own component is wrong for a case (inter-communicators, graph topologies,
 * MPI_IN_PLACE, the scan total, scatterv to self) this follows the MPI semantics instead;
 * README "monitor" lists each difference. Only data that moves is counted: a peer that gets
 * 0 bytes gets no message (except in a barrier), a call that moves nothing adds no operation. */
#ifndef MPII_MONITOR_COLLECTIVES_H
#define MPII_MONITOR_COLLECTIVES_H
/* Included by monitor.c (the wrappers) only: every function that reads the call's arguments is
 * inlined into the wrappers, so the argument struct is never built in memory (that cost ~60 ns
 * per MPI_Alltoall before). Counts through state.h's helpers (mon_count, bytes_of, times). */
#include "mpii_core.h"
#include "comm_cache.h"
#include "state.h"

#define COLL_INLINE static inline __attribute__((always_inline))

/* element i of a counts array, whichever width this function uses */
static inline MPI_Count at(const int *c, const MPI_Count *cc, int i)
{
    return cc ? cc[i] : c ? c[i] : 0;
}

/* The sizes of the call's datatypes, asked once per call rather than once per peer, and only
 * the ones MPI defines here: with MPI_IN_PLACE the send type is ignored (may be garbage), and
 * only the root's receive type of a gather (send type of a scatter) is meaningful. */
typedef struct {
    uint64_t send, recv, data;
} sizes_t;

COLL_INLINE sizes_t sizes_of(int kind, const mpii_args_t *a)
{
    int in_place = a->send_buffer == MPI_IN_PLACE;
    int send = kind == MPII_KIND_COLL_O2A || (kind != MPII_KIND_COLL_A2O && !in_place);
    int recv = kind == MPII_KIND_COLL_A2O || (kind != MPII_KIND_COLL_O2A && in_place);
    return (sizes_t){ send && a->send_datatype ? mpii_type_size(a->send_datatype) : 0,
                      recv && a->recv_datatype ? mpii_type_size(a->recv_datatype) : 0,
                      a->datatype ? mpii_type_size(a->datatype) : 0 };
}

/* The peers of a collective: the remote group of an inter-communicator, else the local one. */
typedef struct {
    int n, me; /* me = -1 when the peers are the other group */
    const int *world;
} peer_set_t;

static inline peer_set_t peers_of(const mon_group_t *g)
{
    if (g->remote_size) return (peer_set_t){ g->remote_size, -1, g->remote_world };
    return (peer_set_t){ g->size, g->rank, g->world };
}

/* Am I the root? (inter-communicators: the root passes MPI_ROOT, its group MPI_PROC_NULL) */
static inline int is_root(const mon_group_t *g, int root)
{
    return g->remote_size ? root == MPI_ROOT : root == g->rank;
}

/* What this process sends to peer i in an all-to-all style call. */
COLL_INLINE uint64_t a2a_bytes(const mpii_args_t *a, const sizes_t *z, int i, int me)
{
    int in_place = a->send_buffer == MPI_IN_PLACE;
    if (a->send_datatypes || (in_place && a->recv_datatypes)) /* alltoallw */
        return in_place ? bytes_of(at(a->recv_counts, a->recv_counts_c, i), a->recv_datatypes[i])
                        : bytes_of(at(a->send_counts, a->send_counts_c, i), a->send_datatypes[i]);
    if (a->send_counts || a->send_counts_c) /* alltoallv */
        return in_place ? times(at(a->recv_counts, a->recv_counts_c, i), z->recv)
                        : times(at(a->send_counts, a->send_counts_c, i), z->send);
    if (a->send_datatype || a->recv_datatype) { /* allgather[v], alltoall */
        if (!in_place) return times(a->send_count, z->send);
        if (a->recv_counts || a->recv_counts_c)
            return times(at(a->recv_counts, a->recv_counts_c, me < 0 ? 0 : me), z->recv);
        return times(a->recv_count, z->recv);
    }
    if (a->recv_counts || a->recv_counts_c)
        return times(at(a->recv_counts, a->recv_counts_c, i), z->data); /* reduce_scatter */
    if (a->recv_count) return times(a->recv_count, z->data);            /* reduce_scatter_block */
    return times(a->count, z->data);                                    /* allreduce, scans */
}

/* What the root of a one-to-all sends to peer i, or receives from it in an all-to-one. */
COLL_INLINE uint64_t rooted_bytes(int kind, const mpii_args_t *a, const sizes_t *z, int i)
{
    if (kind == MPII_KIND_COLL_O2A) {
        if (a->send_counts || a->send_counts_c) return times(at(a->send_counts, a->send_counts_c, i), z->send);
        if (a->send_datatype) return times(a->send_count, z->send);
        return times(a->count, z->data); /* bcast */
    }
    if (a->recv_counts || a->recv_counts_c) return times(at(a->recv_counts, a->recv_counts_c, i), z->recv);
    if (a->recv_datatype) return times(a->recv_count, z->recv);
    return times(a->count, z->data); /* reduce */
}

/* Does an all-to-all style call send every peer the same (a2a_bytes independent of i)? Not
 * alltoallv/w (per-peer counts or types) nor reduce_scatter (per-peer receive counts). */
static inline int a2a_uniform(const mpii_args_t *a)
{
    if (a->send_datatypes || (a->send_buffer == MPI_IN_PLACE && a->recv_datatypes)) return 0;
    if (a->send_counts || a->send_counts_c) return 0;
    if (!a->send_datatype && !a->recv_datatype && (a->recv_counts || a->recv_counts_c)) return 0;
    return 1;
}

/* Counted on the record (g->spread: a communicator past coll-peers): `b` bytes to each peer. */
static inline void add_spread(mon_group_t *g, int field, uint64_t b)
{
    if (!g->stats) return;
    g->stats[field]++;
    g->stats[field + 1] += b;
}

static inline void add_total(mon_group_t *g, int field, uint64_t total)
{
    if (!g->stats) return;
    g->stats[field] += total;
    g->stats[field + 1]++;
}

COLL_INLINE void mon_collective(int kind, const mpii_args_t *a)
{
    mon_group_t *g = mon_comm(a->comm);
    if (!g) return;
    peer_set_t ps = peers_of(g);
    uint64_t total = 0;
    int field = MON_A2A_BYTES;

    if (kind == MPII_KIND_COLL_O2A || kind == MPII_KIND_COLL_A2O) {
        if (!is_root(g, a->root)) return; /* only the root records a rooted collective */
        sizes_t z = sizes_of(kind, a);
        field = kind == MPII_KIND_COLL_O2A ? MON_O2A_BYTES : MON_A2O_BYTES;
        if (g->spread && !(a->send_counts || a->send_counts_c || a->recv_counts || a->recv_counts_c)) {
            uint64_t b = rooted_bytes(kind, a, &z, 0); /* the same for every peer */
            if (b) add_spread(g, MON_EACH_COUNT, b);
            total = b * (uint64_t) (ps.n - (ps.me >= 0));
            if (total) add_total(g, field, total);
            return;
        }
        for (int i = 0; i < ps.n; i++) {
            if (i == ps.me) continue;
            uint64_t b = rooted_bytes(kind, a, &z, i);
            if (b && g->spread) add_spread(g, MON_APART_COUNT, b);
            else if (b)
                mon_count(ps.world[i], MON_COLL_COUNT, b);
            total += b;
        }
    } else if (kind == MPII_KIND_COLL_NEIGHBOR) {
        int n = mon_neighbors(a->comm, g);
        sizes_t z = sizes_of(kind, a);
        for (int k = 0; k < n; k++) {
            if (g->neighbors[k] < 0) continue;
            uint64_t b = a->send_datatypes ? bytes_of(at(a->send_counts, a->send_counts_c, k), a->send_datatypes[k])
                         : (a->send_counts || a->send_counts_c) ? times(at(a->send_counts, a->send_counts_c, k), z.send)
                                                                : times(a->send_count, z.send);
            if (b) mon_count(g->neighbors[k], MON_COLL_COUNT, b);
            total += b;
        }
    } else {
        int first = kind == MPII_KIND_COLL_SCAN && ps.me >= 0 ? ps.me + 1 : 0; /* prefix: to higher ranks */
        if (ps.n - (ps.me >= 0) <= 0) return;                                  /* nobody to talk to */
        sizes_t z = sizes_of(kind, a);
        if (g->spread && (kind == MPII_KIND_COLL_BARRIER || a2a_uniform(a))) {
            uint64_t b = kind == MPII_KIND_COLL_BARRIER ? 0 : a2a_bytes(a, &z, 0, ps.me); /* the same for every peer */
            int scan = kind == MPII_KIND_COLL_SCAN, to = scan ? ps.n - first : ps.n - (ps.me >= 0);
            if ((b || kind == MPII_KIND_COLL_BARRIER) && to > 0)
                add_spread(g, scan ? MON_HIGHER_COUNT : MON_EACH_COUNT, b);
            total = b * (uint64_t) to;
        } else {
            for (int i = first; i < ps.n; i++) {
                if (i == ps.me) continue;
                uint64_t b = kind == MPII_KIND_COLL_BARRIER ? 0 : a2a_bytes(a, &z, i, ps.me);
                if (b && g->spread) add_spread(g, MON_APART_COUNT, b);
                else if (b || kind == MPII_KIND_COLL_BARRIER)
                    mon_count(ps.world[i], MON_COLL_COUNT, b);
                total += b;
            }
        }
        if (kind == MPII_KIND_COLL_BARRIER) {
            add_total(g, field, 0);
            return;
        }
    }
    if (total) add_total(g, field, total);
}
#endif

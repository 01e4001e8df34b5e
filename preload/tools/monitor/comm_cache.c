/* monitor: rank translation. Every count is filed under the peer's MPI_COMM_WORLD rank, so each
 * communicator (and window) is described once, on first use, by the world rank of each member;
 * after that a translation is a table lookup. Communicators also own the per-communicator
 * collective record (Open MPI's D/O2A/A2O/A2A block), which lives in the profile and outlives
 * MPI_Comm_free. All MPI calls here go to PMPI: the tool's own queries are not user traffic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpii_core.h"
#include "mpii_tool.h"
#include "profile_file.h" /* mpii_json_string */
#include "handle_map.h"
#include "mpii_options_monitor.h" /* generated from tool.yaml: coll-peers */
#include "comm_cache.h"

#define P(name, id) MPII_PMPI(name, id)

typedef struct {
    char *name;      /* current name */
    char *labeled;   /* the name written into the profile when the record was made */
    uint64_t *stats; /* MON_COMM_FIELDS, in the profile (outlive the communicator) */
    char *procs;     /* member world ranks, "0,1,2" */
    int freed;       /* the communicator is gone (its record stays) */
    int *members;    /* a spread record's members (world ranks, communicator order), else NULL */
    int nmembers, me;
} record_name_t;

static int tool;
static MPI_Group world_group; /* valid once world_group_set (MPI_GROUP_NULL is no constant on Open MPI) */
static int world_group_set;
static handle_map_t comms, wins;
static mon_group_t *world;   /* MPI_COMM_WORLD, without a hash lookup */
static record_name_t *names; /* by record index */
static int nrecords;
static long long coll_peers = 64; /* option coll-peers: communicators larger count collectives on the record */
static int my_world;              /* this process's MPI_COMM_WORLD rank */

/* Labels whose member list is longer than this name the list by its hash, except on the lowest
 * member: the list is in the file once per communicator, not once per member. */
#define MEMBERS_BY_HASH 24

size_t mon_format_members(char *out, size_t cap, const int *world, int n)
{
    size_t at = 0;
    if (cap) out[0] = 0;
    for (int i = 0; i < n;) {
        int j = i + 1;
        long step = j < n ? (long) world[j] - world[i] : 0;
        while (j < n && (long) world[j] - world[j - 1] == step) j++;
        int run = j - i; /* world[i..j-1] steps by `step` */
        const char *sep = at ? "," : "";
        if (step > 0 && world[i] >= 0 && (run >= 4 || (step == 1 && run >= 3))) {
            if (step == 1)
                at += (size_t) snprintf(out + at, cap > at ? cap - at : 0, "%s%d-%d", sep, world[i], world[j - 1]);
            else
                at += (size_t) snprintf(out + at, cap > at ? cap - at : 0, "%s%d-%d:%ld", sep, world[i], world[j - 1],
                                        step);
            i = j;
        } else {
            at += (size_t) snprintf(out + at, cap > at ? cap - at : 0, "%s%d", sep, world[i]);
            i++;
        }
    }
    return at;
}

/* FNV-1a, 64 bits, of the formatted list: how the other members name it (the reader hashes the
 * lists it reads the same way, preload/tools/monitor/report/members.ts). */
static uint64_t members_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) h = (h ^ (unsigned char) *s) * 0x100000001b3ULL;
    return h;
}

/* world rank of each member of group g (MPI_UNDEFINED where it is not in WORLD) */
static int *world_ranks(MPI_Group g, int n)
{
    int *in = malloc(sizeof(int) * (size_t) (n ? n : 1)), *out = malloc(sizeof(int) * (size_t) (n ? n : 1));
    if (!in || !out) {
        free(in);
        free(out);
        return NULL;
    }
    for (int i = 0; i < n; i++) in[i] = i;
    P(MPI_Group_translate_ranks, MPI_GROUP_TRANSLATE_RANKS_T)(g, n, in, world_group, out);
    free(in);
    return out;
}

static int describe_group(MPI_Group g, int *size, int **world)
{
    P(MPI_Group_size, MPI_GROUP_SIZE_T)(g, size);
    *world = world_ranks(g, *size);
    return *world ? 0 : -1;
}

/* The user's name for comm, else `fallback` (Open MPI shows only names set by the user, MPICH
 * none for derived communicators). */
static char *comm_name(MPI_Comm comm, const char *fallback)
{
    char buf[MPI_MAX_OBJECT_NAME + 1] = "";
    int len = 0;
    P(MPI_Comm_get_name, MPI_COMM_GET_NAME_T)(comm, buf, &len);
    return strdup(len > 0 ? buf : fallback);
}

/* The communicator's collective record: a "comm" section labelled "<name>\n<procs>".
 * Unnamed ones are called after how they were made: "#5 MPI_Comm_split of MPI_COMM_WORLD". */
static void add_record(mon_group_t *g, MPI_Comm comm, const char *origin)
{
    char fallback[MPI_MAX_OBJECT_NAME + 64];
    snprintf(fallback, sizeof fallback, "#%d %s", nrecords, origin);
    char *name = comm_name(comm, fallback);
    size_t cap = (size_t) g->size * 24 + 32; /* a range's text is never longer than its items' */
    char *procs = malloc(cap), *ranges = malloc(cap), *labels = NULL;
    record_name_t *more = realloc(names, sizeof *names * (size_t) (nrecords + 1));
    if (more) names = more;
    if (!name || !procs || !ranges || !more) {
        free(name);
        free(procs);
        free(ranges);
        return;
    }
    /* the .prof files' D line lists every member; the profile, ranges */
    size_t at = 0;
    for (int i = 0; i < g->size; i++) at += (size_t) snprintf(procs + at, cap - at, i ? ",%d" : "%d", g->world[i]);
    size_t len = mon_format_members(ranges, cap, g->world, g->size);
    int lowest = 1;
    for (int i = 0; i < g->size && lowest; i++) lowest = g->world[i] < 0 || g->world[i] >= my_world;
    char ref[24];
    snprintf(ref, sizeof ref, "@%016llx", (unsigned long long) members_hash(ranges));
    const char *written = len > MEMBERS_BY_HASH && !lowest ? ref : ranges;
    size_t lcap = strlen(name) + strlen(written) + 2;
    labels = malloc(lcap);
    if (labels) snprintf(labels, lcap, "%s\n%s", name, written);
    g->stats = labels ? mpii_profile_counters(tool, "comm", MON_COMM_FIELDS, labels) : NULL;
    free(labels);
    free(ranges);
    if (!g->stats) {
        free(name);
        free(procs);
        return;
    }
    g->spread = !g->remote_size && g->size > coll_peers;
    int *members = g->spread ? malloc(sizeof(int) * (size_t) g->size) : NULL;
    if (members) memcpy(members, g->world, sizeof(int) * (size_t) g->size);
    else
        g->spread = 0; /* no list to spread over: counted per peer */
    g->record = nrecords;
    names[nrecords++] = (record_name_t){ name, strdup(name), g->stats, procs, 0, members, g->size, g->rank };
}

static mon_group_t *describe_comm(MPI_Comm comm, const char *origin)
{
    mon_group_t *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->record = -1;
    int inter = 0;
    MPI_Group local = MPI_GROUP_NULL, remote = MPI_GROUP_NULL;
    P(MPI_Comm_rank, MPI_COMM_RANK_T)(comm, &g->rank);
    P(MPI_Comm_test_inter, MPI_COMM_TEST_INTER_T)(comm, &inter);
    P(MPI_Comm_group, MPI_COMM_GROUP_T)(comm, &local);
    int ok = describe_group(local, &g->size, &g->world) == 0;
    if (ok && inter) {
        P(MPI_Comm_remote_group, MPI_COMM_REMOTE_GROUP_T)(comm, &remote);
        ok = describe_group(remote, &g->remote_size, &g->remote_world) == 0;
        P(MPI_Group_free, MPI_GROUP_FREE_T)(&remote);
    }
    P(MPI_Group_free, MPI_GROUP_FREE_T)(&local);
    if (!ok || handle_map_put(&comms, HANDLE_KEY(comm), g) != 0) {
        free(g->world);
        free(g->remote_world);
        free(g);
        return NULL;
    }
    add_record(g, comm, origin);
    return g;
}

int mon_cache_init(int tool_id)
{
    tool = tool_id;
    mpii_monitor_options_t o;
    mpii_monitor_options(tool_id, &o);
    coll_peers = o.coll_peers;
    P(MPI_Comm_rank, MPI_COMM_RANK_T)(MPI_COMM_WORLD, &my_world);
    if (P(MPI_Comm_group, MPI_COMM_GROUP_T)(MPI_COMM_WORLD, &world_group) != MPI_SUCCESS) return -1;
    world_group_set = 1;
    /* as in Open MPI's output: MPI_COMM_WORLD first, then MPI_COMM_SELF */
    world = describe_comm(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    return world && describe_comm(MPI_COMM_SELF, "MPI_COMM_SELF") ? 0 : -1;
}

mon_group_t *mon_comm(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD && world) return world;
    mon_group_t *g = handle_map_get(&comms, HANDLE_KEY(comm));
    if (MPII_LIKELY(g != NULL)) return g;
    if (comm == MPI_COMM_NULL || !world_group_set) return NULL;
    return describe_comm(comm, "communicator");
}

void mon_comm_created(MPI_Comm comm, MPI_Comm parent, const char *how)
{
    if (comm == MPI_COMM_NULL || handle_map_get(&comms, HANDLE_KEY(comm))) return;
    const mon_group_t *p = parent != MPI_COMM_NULL ? handle_map_get(&comms, HANDLE_KEY(parent)) : NULL;
    char origin[MPI_MAX_OBJECT_NAME + 64];
    if (p && p->record >= 0) snprintf(origin, sizeof origin, "%s of %s", how, names[p->record].name);
    else
        snprintf(origin, sizeof origin, "%s", how);
    describe_comm(comm, origin);
}

const mon_group_t *mon_win(MPI_Win win)
{
    const mon_group_t *g = handle_map_get(&wins, HANDLE_KEY(win));
    if (MPII_LIKELY(g != NULL)) return g;
    if (win == MPI_WIN_NULL || !world_group_set) return NULL;
    mon_group_t *w = calloc(1, sizeof *w);
    MPI_Group group = MPI_GROUP_NULL;
    if (!w) return NULL;
    w->record = -1;
    P(MPI_Win_get_group, MPI_WIN_GET_GROUP_T)(win, &group);
    int ok = describe_group(group, &w->size, &w->world) == 0;
    P(MPI_Group_free, MPI_GROUP_FREE_T)(&group);
    if (!ok || handle_map_put(&wins, HANDLE_KEY(win), w) != 0) {
        free(w->world);
        free(w);
        return NULL;
    }
    return w;
}

static void refresh_name(const mon_group_t *g, MPI_Comm comm)
{
    if (g->record < 0) return;
    char *now = comm_name(comm, names[g->record].labeled ? names[g->record].labeled : "");
    if (!now) return;
    free(names[g->record].name);
    names[g->record].name = now;
}

static void drop(mon_group_t *g)
{
    if (!g) return;
    free(g->world);
    free(g->remote_world);
    free(g->neighbors);
    free(g);
}

void mon_comm_freeing(MPI_Comm comm)
{
    mon_group_t *g = handle_map_get(&comms, HANDLE_KEY(comm));
    if (g) refresh_name(g, comm); /* the record stays in the profile; keep its last name */
}

/* Only once MPI freed it: a free that fails (a predefined or invalid handle under
 * MPI_ERRORS_RETURN) leaves the communicator in use. */
void mon_comm_forget(uintptr_t key)
{
    mon_group_t *g = handle_map_get(&comms, key);
    if (g && g->record >= 0) names[g->record].freed = 1;
    drop(handle_map_take(&comms, key));
}

void mon_win_forget(uintptr_t key)
{
    drop(handle_map_take(&wins, key));
}

void mon_comm_renamed(MPI_Comm comm)
{
    const mon_group_t *g = handle_map_get(&comms, HANDLE_KEY(comm));
    if (g) refresh_name(g, comm);
}

int mon_records(void)
{
    return nrecords;
}

const char *mon_record(int i, const char **procs, const uint64_t **stats, int *freed)
{
    if (i < 0 || i >= nrecords) return NULL;
    *procs = names[i].procs ? names[i].procs : "";
    *stats = names[i].stats;
    *freed = names[i].freed;
    return names[i].name;
}

const int *mon_record_members(int i, int *n, int *me)
{
    if (i < 0 || i >= nrecords || !names[i].members) return NULL;
    *n = names[i].nmembers;
    *me = names[i].me;
    return names[i].members;
}

/* Names set after a record was made (MPI_Comm_set_name), as {"<record index>": "name"}. */
void mon_cache_finish(void)
{
    size_t cap = 16;
    for (int i = 0; i < nrecords; i++) cap += 16 + 6 * strlen(names[i].name);
    char *json = malloc(cap);
    if (!json) return;
    size_t at = (size_t) snprintf(json, cap, "{");
    int any = 0;
    for (int i = 0; i < nrecords; i++) {
        if (!names[i].labeled || strcmp(names[i].name, names[i].labeled) == 0) continue;
        at += (size_t) snprintf(json + at, cap - at, "%s\"%d\":", any++ ? "," : "", i);
        at += mpii_json_string(json + at, cap - at, names[i].name);
    }
    snprintf(json + at, cap - at, "}");
    if (any) mpii_profile_text(tool, "comm-names", json);
    free(json);
}

/* Neighbourhood collectives: the destinations in send-buffer order, as world ranks (-1 for an
 * MPI_PROC_NULL slot of a Cartesian shift). Computed once per communicator. */
int mon_neighbors(MPI_Comm comm, mon_group_t *g)
{
    if (g->neighbors_known) return g->nneighbors;
    int topo = MPI_UNDEFINED, n = 0;
    int *slots = NULL;
    P(MPI_Topo_test, MPI_TOPO_TEST_T)(comm, &topo);
    if (topo == MPI_CART) {
        int ndims = 0;
        P(MPI_Cartdim_get, MPI_CARTDIM_GET_T)(comm, &ndims);
        slots = malloc(sizeof(int) * (size_t) (2 * ndims + 1));
        for (int d = 0; slots && d < ndims; d++) {
            int src, dst;
            P(MPI_Cart_shift, MPI_CART_SHIFT_T)(comm, d, 1, &src, &dst);
            slots[n++] = src; /* buffer block 2d goes to the -1 neighbour, 2d+1 to the +1 one */
            slots[n++] = dst;
        }
    } else if (topo == MPI_GRAPH) {
        P(MPI_Graph_neighbors_count, MPI_GRAPH_NEIGHBORS_COUNT_T)(comm, g->rank, &n);
        slots = malloc(sizeof(int) * (size_t) (n + 1));
        if (slots) P(MPI_Graph_neighbors, MPI_GRAPH_NEIGHBORS_T)(comm, g->rank, n, slots);
    } else if (topo == MPI_DIST_GRAPH) {
        int indeg = 0, weighted = 0;
        P(MPI_Dist_graph_neighbors_count, MPI_DIST_GRAPH_NEIGHBORS_COUNT_T)(comm, &indeg, &n, &weighted);
        int *src = malloc(sizeof(int) * (size_t) (indeg + 1)), *sw = malloc(sizeof(int) * (size_t) (indeg + 1));
        int *dw = malloc(sizeof(int) * (size_t) (n + 1));
        slots = malloc(sizeof(int) * (size_t) (n + 1));
        if (src && sw && dw && slots)
            P(MPI_Dist_graph_neighbors, MPI_DIST_GRAPH_NEIGHBORS_T)(comm, indeg, src, sw, n, slots, dw);
        free(src);
        free(sw);
        free(dw);
    }
    if (!slots) n = 0;
    /* -1 for MPI_PROC_NULL and for this process itself (a periodic dimension of size 1) */
    for (int k = 0; k < n; k++)
        slots[k] = slots[k] >= 0 && slots[k] < g->size && slots[k] != g->rank ? g->world[slots[k]] : -1;
    g->neighbors = slots;
    g->nneighbors = n;
    g->neighbors_known = 1;
    return n;
}

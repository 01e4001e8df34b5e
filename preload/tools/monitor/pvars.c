/* monitor: its data as MPI_T performance variables, with the semantics of Open MPI's monitoring
 * components (RR-9038 §8.3, §9.1; common_monitoring.c), so Open MPI monitoring programs run
 * unchanged on any MPI:
 *   mpii_monitor_p2p_count / _size, _osc_sent_*, _osc_recv_*, _coll_*   class SIZE, bound to a
 *       communicator, one unsigned long per member (per remote member for inter-communicators),
 *       the messages/bytes this process sent to it;
 *   mpii_monitor_{o2a,a2o,a2a}_count (COUNTER) / _size (AGGREGATE)   bound to a communicator, its
 *       one-to-all, all-to-one, all-to-all operations and bytes (the D block's numbers);
 *   mpii_monitor_flush   GENERIC, writable: the file name prefix; stopping a started handle
 *       writes <name>.<rank>.prof (Open MPI's text format) and resets the counters.
 * Each also answers to Open MPI's name (pml_monitoring_flush, pml_monitoring_messages_count, …)
 * when the MPI library has no variable of that name (MPICH; Open MPI builds without them).
 *
 * Semantics (Open MPI's): allocating a handle of any of them resets the counters; starting a
 * handle turns monitoring on, stopping a counts handle turns it off; starting a flush handle
 * also cancels the finalize output (option `prof`); stopping it flushes. The profile that mpii
 * reports keeps counting the whole run regardless: what MPI_T shows is a window onto it, kept as
 * a baseline (subtracted) and, while monitoring is off, a snapshot of the values when it was
 * turned off. Nothing is allocated until a program binds one of these variables. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpii_core.h"
#include "mpii_tool.h"
#include "profile_file.h"         /* mpii_json_string */
#include "mpii_options_monitor.h" /* generated from tool.yaml */
#include "comm_cache.h"           /* the communicator records */
#include "state.h"                /* the per-peer table */
#include "pvars.h"

static int tool;
static int state_on = 1;        /* Open MPI's mca_common_monitoring_current_state */
static int final_off;           /* a flush handle was started: no finalize output */
static char *flush_name;        /* the file name prefix written through the flush variable */
static uint64_t *base, *snap;   /* per-peer table: subtracted; the values when turned off */
static uint64_t *rbase, *rsnap; /* the same for the per-communicator records */
static char *gone;              /* records whose communicator was freed before the last flush */
static int rcap;
static char *flushed; /* JSON array of the prefixes written, for the profile */

/* ---- the window onto the counters ---- */

/* 0, -1 when out of memory, -2 when the tool is not recording (before MPI_Init, sessions) */
static int ensure_view(void)
{
    int rank, size;
    const uint64_t *peers = mon_peer_table(&rank, &size);
    if (!peers) return -2;
    int n = mon_records();
    if (!base) {
        base = calloc((size_t) size * MON_ROW, sizeof *base);
        snap = calloc((size_t) size * MON_ROW, sizeof *snap);
        if (!base || !snap) return -1;
    }
    if (n > rcap) {
        int cap = n + 16;
        uint64_t *b = realloc(rbase, sizeof *b * (size_t) cap * MON_COMM_FIELDS);
        if (b) rbase = b;
        uint64_t *s = realloc(rsnap, sizeof *s * (size_t) cap * MON_COMM_FIELDS);
        if (s) rsnap = s;
        char *g = realloc(gone, (size_t) cap);
        if (g) gone = g;
        if (!b || !s || !g) return -1;
        memset(rbase + (size_t) rcap * MON_COMM_FIELDS, 0, sizeof *b * (size_t) (cap - rcap) * MON_COMM_FIELDS);
        memset(rsnap + (size_t) rcap * MON_COMM_FIELDS, 0, sizeof *s * (size_t) (cap - rcap) * MON_COMM_FIELDS);
        memset(gone + rcap, 0, (size_t) (cap - rcap));
        rcap = cap;
    }
    return 0;
}

static const uint64_t *record_stats(int r)
{
    const char *procs;
    const uint64_t *stats;
    int freed;
    return mon_record(r, &procs, &stats, &freed) ? stats : NULL;
}

/* The live value of peer entry k / record field (r, f) while on, the snapshot while off */
static uint64_t peer_now(const uint64_t *peers, size_t k)
{
    return state_on ? peers[k] : snap[k];
}

static uint64_t record_now(int r, int f)
{
    const uint64_t *s = record_stats(r);
    return state_on ? (s ? s[f] : 0) : rsnap[(size_t) r * MON_COMM_FIELDS + f];
}

static uint64_t peer_view(const uint64_t *peers, size_t k)
{
    return peer_now(peers, k) - base[k];
}

static uint64_t record_view(int r, int f)
{
    return record_now(r, f) - rbase[(size_t) r * MON_COMM_FIELDS + f];
}

/* Every counter shown through MPI_T back to zero. */
static void reset_view(void)
{
    if (ensure_view() != 0) return;
    int rank, size;
    const uint64_t *peers = mon_peer_table(&rank, &size);
    for (size_t k = 0; k < (size_t) size * MON_ROW; k++) base[k] = peer_now(peers, k);
    for (int r = 0; r < mon_records(); r++)
        for (int f = 0; f < MON_COMM_FIELDS; f++) rbase[(size_t) r * MON_COMM_FIELDS + f] = record_now(r, f);
}

/* Monitoring on or off as MPI_T sees it: off keeps a snapshot; back on, the traffic of the
 * pause goes into the baseline. */
static void set_state(int on)
{
    if (on == state_on || ensure_view() != 0) return;
    int rank, size;
    const uint64_t *peers = mon_peer_table(&rank, &size);
    size_t n = (size_t) size * MON_ROW;
    int nr = mon_records();
    if (!on) {
        memcpy(snap, peers, n * sizeof *snap);
        for (int r = 0; r < nr; r++) {
            const uint64_t *s = record_stats(r);
            for (int f = 0; f < MON_COMM_FIELDS; f++) rsnap[(size_t) r * MON_COMM_FIELDS + f] = s ? s[f] : 0;
        }
    } else {
        for (size_t k = 0; k < n; k++) base[k] += peers[k] - snap[k];
        for (int r = 0; r < nr; r++) {
            const uint64_t *s = record_stats(r);
            for (int f = 0; f < MON_COMM_FIELDS; f++) {
                size_t k = (size_t) r * MON_COMM_FIELDS + f;
                rbase[k] += (s ? s[f] : 0) - rsnap[k]; /* records made while off: snapshot 0 */
                rsnap[k] = 0;
            }
        }
    }
    state_on = on;
}

/* ---- collectives counted on a record (a communicator past coll-peers), spread over its members ---- */

/* Per world rank: the collective messages (k) and bytes (size + k) of the records' `each` (and
 * `higher`, to the members after this process) as seen through the window, or NULL when no
 * record has any (the common case: nothing allocated). The caller frees it. */
static uint64_t *spread_view(int size)
{
    uint64_t *out = NULL;
    for (int r = 0; r < mon_records(); r++) {
        int n = 0, me = -1;
        const int *members = mon_record_members(r, &n, &me);
        uint64_t ec = members ? record_view(r, MON_EACH_COUNT) : 0, eb = members ? record_view(r, MON_EACH_BYTES) : 0;
        uint64_t hc = members ? record_view(r, MON_HIGHER_COUNT) : 0,
                 hb = members ? record_view(r, MON_HIGHER_BYTES) : 0;
        if (!ec && !hc) continue;
        if (!out && !(out = calloc(2 * (size_t) size, sizeof *out))) return NULL;
        for (int k = 0; k < n; k++) {
            int w = members[k];
            if (k == me || w < 0 || w >= size) continue;
            out[w] += ec + (k > me ? hc : 0);
            out[(size_t) size + w] += eb + (k > me ? hb : 0);
        }
    }
    return out;
}

/* ---- the .prof text (preload/tools/monitor/report/files.ts writes the same from a profile) ---- */

static int write_prof(const char *prefix)
{
    if (ensure_view() != 0) return -1;
    int rank, size;
    const uint64_t *peers = mon_peer_table(&rank, &size);
    char path[4200];
    snprintf(path, sizeof path, "%s.%d.prof", prefix, rank);
    FILE *f = fopen(path, "w");
    if (!f) {
        mpii_error("monitor: cannot write %s: %s", path, strerror(errno));
        return -1;
    }
#define V(p, field) peer_view(peers, (size_t) (p) *MON_ROW + (field))
    fprintf(f, "# POINT TO POINT\n");
    for (int p = 0; p < size; p++) {
        if (!V(p, MON_PML_COUNT)) continue;
        fprintf(f, "E\t%d\t%d\t%llu bytes\t%llu msgs sent\t", rank, p, (unsigned long long) V(p, MON_PML_BYTES),
                (unsigned long long) V(p, MON_PML_COUNT));
        for (int b = 0; b < MON_HIST_BINS; b++)
            fprintf(f, "%llu%s", (unsigned long long) V(p, MON_HIST + b), b < MON_HIST_BINS - 1 ? "," : "\n");
    }
    fprintf(f, "# OSC\n");
    for (int p = 0; p < size; p++) {
        if (V(p, MON_OSC_S_COUNT))
            fprintf(f, "S\t%d\t%d\t%llu bytes\t%llu msgs sent\n", rank, p, (unsigned long long) V(p, MON_OSC_S_BYTES),
                    (unsigned long long) V(p, MON_OSC_S_COUNT));
        if (V(p, MON_OSC_R_COUNT))
            fprintf(f, "R\t%d\t%d\t%llu bytes\t%llu msgs sent\n", rank, p, (unsigned long long) V(p, MON_OSC_R_BYTES),
                    (unsigned long long) V(p, MON_OSC_R_COUNT));
    }
    fprintf(f, "# COLLECTIVES\n");
    uint64_t *spread = spread_view(size);
    for (int p = 0; p < size; p++) {
        uint64_t count = V(p, MON_COLL_COUNT) + (spread ? spread[p] : 0);
        uint64_t bytes = V(p, MON_COLL_BYTES) + (spread ? spread[(size_t) size + p] : 0);
        if (count)
            fprintf(f, "C\t%d\t%d\t%llu bytes\t%llu msgs sent\n", rank, p, (unsigned long long) bytes,
                    (unsigned long long) count);
    }
    free(spread);
#undef V
    static const char *const kinds[] = { "O2A", "A2O", "A2A" };
    for (int r = 0; r < mon_records(); r++) {
        const char *procs;
        const uint64_t *stats;
        int freed;
        const char *name = mon_record(r, &procs, &stats, &freed);
        if (!name || gone[r]) continue;
        fprintf(f, "D\t%s\tprocs: %s\n", name, procs);
        for (int k = 0; k < 3; k++)
            fprintf(f, "%s\t%d\t%llu bytes\t%llu msgs sent\n", kinds[k], rank,
                    (unsigned long long) record_view(r, 2 * k), (unsigned long long) record_view(r, 2 * k + 1));
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        mpii_error("monitor: cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static void note_flush(const char *prefix)
{
    size_t old = flushed ? strlen(flushed) : 0, need = 6 * strlen(prefix) + 4; /* quoted, a comma */
    char *more = realloc(flushed, old + need);
    if (!more) return;
    flushed = more;
    if (old) flushed[old++] = ',';
    mpii_json_string(flushed + old, need - 1, prefix);
}

/* Stopping a flush handle: Open MPI does nothing while monitoring is off or without a name. */
static int flush(void)
{
    if (!state_on || !flush_name) return 0;
    if (write_prof(flush_name) != 0) return MPI_ERR_OTHER;
    note_flush(flush_name);
    mpii_pvar_sample(flush_name); /* mpii run --pvar: the library's variables for this phase too */
    reset_view();
    for (int r = 0; r < mon_records(); r++) { /* freed communicators leave the next phases */
        const char *procs;
        const uint64_t *stats;
        int freed;
        if (mon_record(r, &procs, &stats, &freed) && freed) gone[r] = 1;
    }
    return 0;
}

/* ---- the variables ---- */

typedef struct {
    int field; /* MON_* of the per-peer row, or MON_COMM_FIELDS + the record field */
} var_data_t;

static int comm_of(const void *obj, MPI_Comm *c)
{
    if (!obj) return -1;
    *c = *(const MPI_Comm *) obj;
    return 0;
}

static int peers_count(const mpii_pvar_t *v, const void *obj)
{
    (void) v;
    MPI_Comm c;
    int n = 0;
    if (comm_of(obj, &c) != 0 || !mon_comm_peers(c, &n)) return -1;
    return n;
}

static int peers_read(const mpii_pvar_t *v, const void *obj, void *buf, int count)
{
    const var_data_t *d = v->data;
    MPI_Comm c;
    int n = 0, rank, size;
    const int *world = comm_of(obj, &c) == 0 ? mon_comm_peers(c, &n) : NULL;
    const uint64_t *peers = mon_peer_table(&rank, &size);
    if (!world || !peers || ensure_view() != 0) return MPI_T_ERR_INVALID_HANDLE;
    unsigned long *out = buf;
    int coll = d->field == MON_COLL_COUNT || d->field == MON_COLL_BYTES;
    uint64_t *spread = coll ? spread_view(size) : NULL; /* collectives of big communicators */
    size_t off = d->field == MON_COLL_BYTES ? (size_t) size : 0;
    for (int i = 0; i < count; i++) {
        int w = i < n ? world[i] : -1;
        out[i] = w >= 0 && w < size ? (unsigned long) (peer_view(peers, (size_t) w * MON_ROW + d->field) +
                                                       (spread ? spread[off + (size_t) w] : 0))
                                    : 0;
    }
    free(spread);
    return 0;
}

static int record_count(const mpii_pvar_t *v, const void *obj)
{
    (void) v;
    MPI_Comm c;
    return comm_of(obj, &c) == 0 && mon_comm_record(c) >= 0 ? 1 : -1;
}

static int record_read(const mpii_pvar_t *v, const void *obj, void *buf, int count)
{
    const var_data_t *d = v->data;
    MPI_Comm c;
    int r = comm_of(obj, &c) == 0 ? mon_comm_record(c) : -1;
    if (r < 0 || count < 1 || ensure_view() != 0) return MPI_T_ERR_INVALID_HANDLE;
    *(unsigned long *) buf = (unsigned long) record_view(r, d->field - MON_COMM_FIELDS);
    return 0;
}

static int view_error(void)
{
    int rc = ensure_view();
    return rc == 0 ? 0 : rc == -2 ? MPI_T_ERR_INVALID_HANDLE : MPI_T_ERR_MEMORY;
}

/* Counts and sizes: binding resets, start turns monitoring on, stop turns it off. */
static int counts_notify(const mpii_pvar_t *v, const void *obj, int event)
{
    (void) v;
    (void) obj;
    if (event == MPII_PVAR_BIND) reset_view();
    else if (event == MPII_PVAR_START)
        set_state(1);
    else if (event == MPII_PVAR_STOP)
        set_state(0);
    return view_error();
}

static int flush_count(const mpii_pvar_t *v, const void *obj)
{
    (void) v;
    (void) obj;
    return flush_name ? (int) strlen(flush_name) : 0;
}

static int flush_read(const mpii_pvar_t *v, const void *obj, void *buf, int count)
{
    (void) v;
    (void) obj;
    size_t len = flush_name ? strlen(flush_name) : 0, n = count > 0 && (size_t) count < len ? (size_t) count : len;
    if (n) memcpy(buf, flush_name, n);
    if (count > 0 && n < (size_t) count) ((char *) buf)[n] = 0;
    return 0;
}

/* A name, or (an empty string, the address of a NULL pointer as in the report's example) none. */
static int flush_write(const mpii_pvar_t *v, const void *obj, const void *buf, int count)
{
    (void) v;
    (void) obj;
    (void) count;
    free(flush_name);
    flush_name = NULL;
    if (buf && *(const char *) buf) {
        flush_name = strdup(buf);
        if (!flush_name) return MPI_T_ERR_MEMORY;
    }
    return 0;
}

static int flush_notify(const mpii_pvar_t *v, const void *obj, int event)
{
    (void) v;
    (void) obj;
    switch (event) {
    case MPII_PVAR_BIND: reset_view(); return view_error();
    case MPII_PVAR_START:
        set_state(1);
        final_off = 1; /* Open MPI: phases through MPI_T and a finalize output do not mix */
        mpii_profile_event(tool, MPII_EVENT_PHASE_START, 0, NULL); /* the report's timeline; named at its end */
        return 0;
    case MPII_PVAR_STOP: {
        int written = state_on && flush_name;
        int rc = flush();
        mpii_profile_event(tool, MPII_EVENT_PHASE_END, written && rc == 0, flush_name);
        return rc;
    }
    default: return 0;
    }
}

static const struct {
    const char *mpii, *ompi, *ompi2; /* mpii's name, Open MPI's (and its other spelling) */
    int field, kind;                 /* kind: 0 per peer, 1 count of a record, 2 size of a record */
    const char *desc;
} VARS[] = {
    { "mpii_monitor_p2p_count", "pml_monitoring_messages_count", NULL, MON_PML_COUNT, 0,
      "Point-to-point messages this process sent to each member of the communicator (E lines)" },
    { "mpii_monitor_p2p_size", "pml_monitoring_messages_size", NULL, MON_PML_BYTES, 0,
      "Point-to-point bytes this process sent to each member of the communicator (E lines)" },
    { "mpii_monitor_osc_sent_count", "osc_monitoring_messages_sent_count", NULL, MON_OSC_S_COUNT, 0,
      "One-sided operations writing to each member (S lines)" },
    { "mpii_monitor_osc_sent_size", "osc_monitoring_messages_sent_size", NULL, MON_OSC_S_BYTES, 0,
      "One-sided bytes written to each member (S lines)" },
    { "mpii_monitor_osc_recv_count", "osc_monitoring_messages_recv_count", "osc_monitoring_messages_rcv_count",
      MON_OSC_R_COUNT, 0, "One-sided operations reading from each member (R lines)" },
    { "mpii_monitor_osc_recv_size", "osc_monitoring_messages_recv_size", "osc_monitoring_messages_rcv_size",
      MON_OSC_R_BYTES, 0, "One-sided bytes read from each member (R lines)" },
    { "mpii_monitor_coll_count", "coll_monitoring_messages_count", NULL, MON_COLL_COUNT, 0,
      "Collective messages to each member under the direct-transfer model (C lines)" },
    { "mpii_monitor_coll_size", "coll_monitoring_messages_size", NULL, MON_COLL_BYTES, 0,
      "Collective bytes to each member under the direct-transfer model (C lines)" },
    { "mpii_monitor_o2a_count", "coll_monitoring_o2a_count", NULL, MON_COMM_FIELDS + MON_O2A_COUNT, 1,
      "One-to-all operations on the communicator in which this process was root" },
    { "mpii_monitor_o2a_size", "coll_monitoring_o2a_size", NULL, MON_COMM_FIELDS + MON_O2A_BYTES, 2,
      "Bytes this process sent as root of one-to-all operations on the communicator" },
    { "mpii_monitor_a2o_count", "coll_monitoring_a2o_count", NULL, MON_COMM_FIELDS + MON_A2O_COUNT, 1,
      "All-to-one operations on the communicator in which this process was root" },
    { "mpii_monitor_a2o_size", "coll_monitoring_a2o_size", NULL, MON_COMM_FIELDS + MON_A2O_BYTES, 2,
      "Bytes this process received as root of all-to-one operations on the communicator" },
    { "mpii_monitor_a2a_count", "coll_monitoring_a2a_count", NULL, MON_COMM_FIELDS + MON_A2A_COUNT, 1,
      "All-to-all operations on the communicator" },
    { "mpii_monitor_a2a_size", "coll_monitoring_a2a_size", NULL, MON_COMM_FIELDS + MON_A2A_BYTES, 2,
      "Bytes this process sent in all-to-all operations on the communicator" },
};
#define NVARS (sizeof VARS / sizeof VARS[0])
static var_data_t var_data[NVARS];

static void register_as(mpii_pvar_t v, const char *name, int alias)
{
    if (!name) return;
    v.name = name;
    if (alias) v.flags |= MPII_PVAR_UNLESS_LIBRARY;
    mpii_pvar_register(&v);
}

/* The variable for VARS[i] (the same under mpii's and Open MPI's names). */
static mpii_pvar_t counts_var(size_t i)
{
    int per_peer = VARS[i].kind == 0;
    return (mpii_pvar_t){ .desc = VARS[i].desc,
                          .var_class = per_peer            ? MPI_T_PVAR_CLASS_SIZE
                                       : VARS[i].kind == 1 ? MPI_T_PVAR_CLASS_COUNTER
                                                           : MPI_T_PVAR_CLASS_AGGREGATE,
                          .type = MPII_PVAR_U64,
                          .bind = MPI_T_BIND_MPI_COMM,
                          .flags = MPII_PVAR_READONLY | MPII_PVAR_OWN_STATE,
                          .count = per_peer ? peers_count : record_count,
                          .read = per_peer ? peers_read : record_read,
                          .notify = counts_notify,
                          .data = &var_data[i] };
}

void mon_pvars_register(int tool_id)
{
    tool = tool_id;
    mpii_pvar_t flushv = { .desc = "Write a file name prefix; stopping a started handle writes <prefix>.<rank>.prof "
                                   "(Open MPI's format) and resets the monitoring counters",
                           .var_class = MPI_T_PVAR_CLASS_GENERIC,
                           .type = MPII_PVAR_CHAR,
                           .bind = MPI_T_BIND_NO_OBJECT,
                           .flags = MPII_PVAR_OWN_STATE,
                           .count = flush_count,
                           .read = flush_read,
                           .write = flush_write,
                           .notify = flush_notify };
    register_as(flushv, "mpii_monitor_flush", 0);
    for (size_t i = 0; i < NVARS; i++) {
        var_data[i].field = VARS[i].field;
        mpii_pvar_t v = counts_var(i);
        register_as(v, VARS[i].mpii, 0);
    }
    /* Open MPI's names, after all of mpii's, for programs written for Open MPI's monitoring */
    register_as(flushv, "pml_monitoring_flush", 1);
    for (size_t i = 0; i < NVARS; i++) {
        mpii_pvar_t v = counts_var(i);
        register_as(v, VARS[i].ompi, 1);
        register_as(v, VARS[i].ompi2, 1);
    }
}

/* At MPI_Finalize: option `prof` (Open MPI's pml_monitoring_filename with enable_output 3)
 * writes what was counted since the last reset, unless a flush handle was started. */
void mon_pvars_finish(void)
{
    mpii_monitor_options_t o; /* generated from tool.yaml */
    mpii_monitor_options(tool, &o);
    const char *prefix = o.prof;
    int wrote = 0;
    if (prefix && *prefix && !final_off) {
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", prefix);
        wrote = write_prof(copy) == 0;
        if (wrote) note_flush(copy);
    }
    if (flushed) {
        size_t n = strlen(flushed) + 64;
        char *json = malloc(n);
        if (json) {
            snprintf(json, n, "{\"flushed\":[%s],\"final\":%s}", flushed, wrote ? "true" : "false");
            mpii_profile_text(tool, "mpit", json);
            free(json);
        }
    }
}

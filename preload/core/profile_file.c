/* The run's profile. Each process keeps its tools' results in a file-backed shared mapping from
 * the start, a slot of its host's node file (<out>/node-<host>.live, node_file.c), so what was
 * counted survives a crash or a SIGKILL from the launcher. At MPI_Finalize one rank gathers every
 * rank's image through MPI (no shared filesystem needed; gather.c), streaming them into
 * <out>/profile.mpii with a bounded window; each process then releases its slot, and the last one
 * of a host removes the node file. The
 * writer is the first rank that sees the file `mpii run` put in the output directory
 * (MPII_RUN_MARK), so mpii can read what it writes; rank 0 when none does.
 *
 * The layout (headers, records, the core's blocks such as the timeline "events") is declared in
 * preload/spec/profile-file.yaml and generated into mpii_profile_format.h, which this file
 * writes and src/profile-file/read.ts reads (docs/profile-file.md). An image is a header and records
 * up to `used`: `used` covers whole records only. profile.mpii is a profile header and every
 * rank's image, counter records that are mostly zeros stored sparse (per-peer tables are
 * mostly zeros at scale). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "mpii_gen.h"
#include "mpii_objects.h"
#include "mpii_tool.h" /* MPII_EVENT_*, MPII_EVENTS_KEPT */
#include "log.h"
#include "gather.h"
#include "mpii_env.h"
#include "mpii_profile_format.h"
#include "node_file.h"
#include "profile_file.h"
#include "util.h"

#define IMAGE_CAPACITY MPII_NODE_SLOT_BYTES /* a slot: sparse, only touched pages cost memory/disk */

static mpii_image_header_t *image; /* the mapping, or anonymous memory when no output dir */
static int image_is_file;
static mpii_node_slot_t slot; /* where the image is mapped from */
static char out_dir[4096];

static uint64_t *events; /* the "events" counters in the image */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

static size_t pad8(size_t n)
{
    return (n + 7) & ~(size_t) 7;
}

static int make_dirs(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

void mpii_profile_begin(const char *dir)
{
    if (image) return;
    void *mem = MAP_FAILED;
    if (dir && *dir) {
        snprintf(out_dir, sizeof out_dir, "%s", dir);
        if (make_dirs(out_dir) == 0) mem = mpii_slot_claim(&slot, out_dir, NULL, NULL, 0);
        if (mem == MAP_FAILED)
            mpii_error("cannot write the profile in %s (%s): results are kept in memory only; "
                       "pass a writable --out directory",
                       out_dir, strerror(errno));
        else
            image_is_file = 1;
    }
    if (mem == MAP_FAILED)
        mem = mmap(NULL, IMAGE_CAPACITY, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) return;
    image = mem;
    image->version = MPII_FORMAT_VERSION;
    image->state = MPII_STATE_RUNNING;
    image->rank = mpii_rank;
    image->size = -1;
    image->pid = (int32_t) getpid();
    image->used = sizeof *image;
    image->capacity = IMAGE_CAPACITY;
    image->t_start = now();
    gethostname(image->host, sizeof image->host - 1);
    snprintf(image->flavor, sizeof image->flavor, "%s", MPII_MPI_FLAVOR);
    /* the magic last: a process killed before it leaves a slot the reader skips, not a bad image */
    __atomic_signal_fence(__ATOMIC_RELEASE);
    memcpy(image->magic, MPII_IMAGE_MAGIC, sizeof image->magic);
    events = mpii_profile_counters(0, "events", EV_HEAD + (size_t) MPII_EVENTS_KEPT * EV_WORDS,
                                   "timeline: header {entry words, capacity, seen, init ns, init realtime, end ns}, "
                                   "entries {ns, kind | tool << 32, value, name[40]}");
    if (events) {
        events[EV_H_WORDS] = EV_WORDS;
        events[EV_H_CAPACITY] = MPII_EVENTS_KEPT;
    }
    /* the report options mpii run was given (JSON): a later `mpii report` of this run starts from them */
    const char *report_options = getenv(MPII_ENV_REPORT_OPTIONS);
    if (report_options && *report_options) mpii_profile_text(0, "report-options", report_options);
}

void mpii_profile_event(int tool_id, unsigned kind, int64_t value, const char *name)
{
    if (!events || !kind) return;
    uint64_t t = mpii_now_ns();
    uint64_t slot = __atomic_fetch_add(&events[EV_H_SEEN], 1, __ATOMIC_RELAXED);
    if (slot >= MPII_EVENTS_KEPT) return; /* counted: seen - capacity were dropped */
    uint64_t *e = events + EV_HEAD + slot * EV_WORDS;
    e[EV_NS] = t;
    e[EV_VALUE] = (uint64_t) value;
    if (name) strncpy((char *) (e + EV_NAME), name, EV_NAME_BYTES - 1);
    __atomic_store_n(&e[EV_KIND_TOOL], (uint64_t) kind | (uint64_t) (uint32_t) tool_id << 32, __ATOMIC_RELEASE);
}

static void events_end(void)
{
    if (events && !events[EV_H_END_NS]) events[EV_H_END_NS] = mpii_now_ns();
}


/* The linked-in shim learns its output directory only after MPI_Init (site.c): move the image,
 * which tools already hold pointers into, to a slot mapped at the same address. */
void mpii_profile_attach_dir(const char *dir)
{
    if (!image || image_is_file || !dir || !*dir) return;
    snprintf(out_dir, sizeof out_dir, "%s", dir);
    if (make_dirs(out_dir) == 0 && mpii_slot_claim(&slot, out_dir, image, image, image->used) != MAP_FAILED)
        image_is_file = 1;
    else
        mpii_error("cannot write the profile in %s (%s): results are kept in memory only", out_dir, strerror(errno));
}

/* After MPI_Init: the rank is known, and the job: a job started by MPI_Comm_spawn keeps its
 * profile in a directory of its own under the run's (`subdir`, the same on all its ranks). Until
 * then its processes were in the run's node file, among their parents: the image moves to a slot
 * of the subdirectory's, at the same address, and the old slot is released. */
void mpii_profile_started(const char *subdir)
{
    if (!image) return;
    image->rank = mpii_rank;
    image->size = mpii_size;
    if (events) {
        double real = now();
        events[EV_H_INIT_NS] = mpii_now_ns();
        memcpy(&events[EV_H_INIT_REAL], &real, sizeof real);
    }
    if (!out_dir[0] || !subdir || !*subdir) return;
    char dir[sizeof out_dir];
    snprintf(dir, sizeof dir, "%s/%s", out_dir, subdir);
    if (make_dirs(dir) != 0) { /* all its ranks fail alike: the job's profile goes where the run's would */
        mpii_error("cannot make %s for the spawned job's profile (%s): it is written in %s", dir, strerror(errno),
                   out_dir);
        return;
    }
    /* every rank's gathered profile goes to the subdirectory, whichever rank writes it */
    char was[sizeof out_dir];
    snprintf(was, sizeof was, "%s", out_dir);
    snprintf(out_dir, sizeof out_dir, "%s", dir);
    if (!image_is_file) return; /* in memory: nothing to move */
    mpii_node_slot_t moved = { 0 };
    if (mpii_slot_claim(&moved, dir, image, image, image->used) == MAP_FAILED) {
        mpii_error("cannot keep the spawned job's image in %s (%s): while it runs, it stays in %s", dir,
                   strerror(errno), was);
        return;
    }
    mpii_slot_release(&slot, 1); /* no longer mapped: its pages can go */
    slot = moved;
}

/* Append one record; returns its payload or NULL when the image is full. */
static void *append(uint32_t kind, int tool_id, const char *name, const char *labels, uint64_t count, size_t payload)
{
    if (!image) return NULL;
    size_t nl = strlen(name), ll = labels ? strlen(labels) : 0;
    size_t need = sizeof(mpii_record_t) + pad8(nl) + pad8(ll) + pad8(payload);
    if (image->used + need > image->capacity) {
        mpii_error("profile image full: section '%s' dropped", name);
        return NULL;
    }
    char *at = (char *) image + image->used;
    mpii_record_t *r = (mpii_record_t *) at;
    *r = (mpii_record_t){ kind, (uint32_t) tool_id, count, (uint32_t) nl, (uint32_t) ll };
    char *p = at + sizeof *r;
    memcpy(p, name, nl);
    p += pad8(nl);
    if (ll) memcpy(p, labels, ll);
    p += pad8(ll);
    image->used += need; /* publish only whole records: a crash never leaves half of one */
    return p;
}

void mpii_profile_add_tool(int tool_id, const char *name, const char *origin)
{
    append(MPII_REC_TOOL, tool_id, name, origin, 0, 0);
    if (image) image->ntools = tool_id > image->ntools ? tool_id : image->ntools;
}

uint64_t *mpii_profile_counters(int tool_id, const char *section, size_t n, const char *labels)
{
    uint64_t *c = append(MPII_REC_COUNTERS, tool_id, section, labels, n, n * sizeof(uint64_t));
    if (!c && !image) c = calloc(n, sizeof *c); /* no profile at all: the tool still gets memory */
    return c;
}

int mpii_profile_text(int tool_id, const char *section, const char *text)
{
    size_t n = strlen(text);
    char *p = append(MPII_REC_TEXT, tool_id, section, NULL, n, n);
    if (!p) return -1;
    memcpy(p, text, n);
    return 0;
}

size_t mpii_json_string(char *out, size_t cap, const char *s)
{
    size_t at = 0;
    at += (size_t) snprintf(out + at, cap > at ? cap - at : 0, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char) *s;
        if (c == '"' || c == '\\') at += (size_t) snprintf(out + at, cap > at ? cap - at : 0, "\\%c", c);
        else if (c < 0x20)
            at += (size_t) snprintf(out + at, cap > at ? cap - at : 0, "\\u%04x", c);
        else
            at += (size_t) snprintf(out + at, cap > at ? cap - at : 0, "%c", c);
    }
    at += (size_t) snprintf(out + at, cap > at ? cap - at : 0, "\"");
    return at;
}

void mpii_profile_mark_aborted(void)
{
    if (!image) return;
    image->state = MPII_STATE_ABORTED;
    image->t_end = now();
    events_end();
}

/* The copy of the image sent to rank 0: counter records that are mostly zeros become sparse
 * records, so the gather costs what was counted, not ranks × table size. */
static char *compact_image(size_t *len)
{
    char *out = malloc(image->used), *src = (char *) image;
    if (!out) return NULL;
    size_t at = sizeof *image, o = sizeof *image;
    memcpy(out, image, sizeof *image);
    while (at + sizeof(mpii_record_t) <= image->used) {
        mpii_record_t *r = (mpii_record_t *) (src + at);
        size_t head = sizeof *r + pad8(r->name_len) + pad8(r->labels_len);
        size_t payload = r->kind == MPII_REC_COUNTERS ? r->count * 8 : r->kind == MPII_REC_TEXT ? r->count : 0;
        size_t whole = head + pad8(payload);
        const uint64_t *v = (const uint64_t *) (src + at + head);
        uint64_t nnz = 0;
        if (r->kind == MPII_REC_COUNTERS)
            for (uint64_t i = 0; i < r->count; i++) nnz += v[i] != 0;
        size_t sparse = sizeof(mpii_sparse_head_t) + sizeof(mpii_sparse_entry_t) * nnz;
        if (r->kind == MPII_REC_COUNTERS && sparse < payload) {
            memcpy(out + o, r, head);
            ((mpii_record_t *) (out + o))->kind = MPII_REC_SPARSE;
            uint64_t *w = (uint64_t *) (out + o + head);
            *w++ = nnz;
            for (uint64_t i = 0; i < r->count; i++)
                if (v[i]) {
                    *w++ = i;
                    *w++ = v[i];
                }
            o += head + sparse;
        } else {
            memcpy(out + o, r, whole);
            o += whole;
        }
        at += whole;
    }
    ((mpii_image_header_t *) out)->used = o;
    *len = o;
    return out;
}

/* The rank that writes profile.mpii: the lowest one that sees the file mpii run created in the
 * output directory, so mpii can read the profile even when rank 0's host shares no filesystem
 * with it. Rank 0 when none does, or no mpii run started the job (a program linked with the
 * installed shim). */
static int profile_writer(void)
{
    const char *mark = getenv(MPII_ENV_RUN_MARK);
    int here = mark && *mark && access(mark, F_OK) == 0 ? mpii_rank : mpii_size, first = mpii_size;
    MPII_PMPI(MPI_Allreduce, MPI_ALLREDUCE_T)(&here, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first < mpii_size) return first;
    if (mark && *mark && mpii_rank == 0)
        mpii_error("no rank's host shares the output directory with mpii run's: the profile is written on %s, in "
                   "%s/profile.mpii",
                   image->host, out_dir);
    return 0;
}

/* The writer's side: a temporary file renamed profile.mpii once every image is in it. */
static int write_gathered(MPI_Comm comm, int writer, const void *mine, int mine_len)
{
    char tmp[4200], final[4200];
    snprintf(tmp, sizeof tmp, "%s/.profile.mpii.%d", out_dir, (int) getpid());
    snprintf(final, sizeof final, "%s/profile.mpii", out_dir);
    mpii_profile_header_t head = { MPII_PROFILE_MAGIC, MPII_FORMAT_VERSION, (uint32_t) mpii_size };
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int ok = fd >= 0 && mpii_write_all(fd, &head, sizeof head, -1) == 0;
    /* collective: called whether or not the file opened (the others' images are then drained) */
    ok = mpii_gather_images(comm, writer, mine, mine_len, ok ? fd : -1, IMAGE_CAPACITY) && ok;
    if (fd >= 0 && close(fd) != 0) ok = 0;
    ok = ok && rename(tmp, final) == 0;
    if (!ok) {
        mpii_error("cannot write %s (%s)%s", final, strerror(errno), image_is_file ? ": the .live files are kept" : "");
        unlink(tmp);
    }
    return ok;
}

/* The profile is in profile.mpii: the slot goes. The tools' MPI_Finalize wrappers still hold
 * pointers into the image when this returns, so it moves first to private memory at the same
 * address; only then can the slot's pages be punched out, which would zero them under a mapping.
 * (Copied out and back, not mremap: UCX's hook of it, ucm_mremap, passes no MREMAP_FIXED address on.
 * Nothing writes the image meanwhile: MPI_Finalize is called once every thread's MPI calls are done.) */
static void release_slot(void)
{
    size_t used = image->used;
    char *copy = malloc(used);
    int moved = copy != NULL;
    if (moved) {
        memcpy(copy, image, used);
        moved = mmap(image, IMAGE_CAPACITY, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) != MAP_FAILED;
        if (moved) memcpy(image, copy, used);
        free(copy);
    }
    image_is_file = 0;
    mpii_slot_release(&slot, moved);
}

/* Every rank's image to the writer (through PMPI, so legacy tools below us do not see it, on a
 * communicator of its own, so no message of the program's can match ours): gather.c, through
 * group leaders, each image sent when asked and streamed into the file. A rank's cost is its
 * own image; the writer's, the file (docs/architecture.md, "The end of the job"). */
void mpii_profile_finish(void)
{
    if (!image) return;
    image->state = MPII_STATE_FINALIZED;
    image->t_end = now();
    events_end();
    /* every rank that was given a directory takes part, each with the same out_dir, whether or
     * not its slot could be claimed (its image then in memory): a rank that left the gather
     * alone would hang the others in it */
    if (!out_dir[0] || mpii_size < 1) return;
    int writer = profile_writer();
    size_t compact_len = 0;
    char *mine_image = compact_image(&compact_len);
    const void *mine_bytes = mine_image ? (const void *) mine_image : (const void *) image;
    int mine = (int) (mine_image ? compact_len : pad8(image->used));
    MPI_Comm comm = MPI_COMM_NULL;
    MPII_PMPI(MPI_Comm_dup, MPI_COMM_DUP_T)(MPI_COMM_WORLD, &comm);
    int ok = 1;
    if (mpii_rank == writer) ok = write_gathered(comm, writer, mine_bytes, mine);
    else
        mpii_gather_images(comm, writer, mine_bytes, mine, -1, IMAGE_CAPACITY);
    free(mine_image);
    /* everyone learns whether the gathered file exists before dropping its own copy */
    MPII_PMPI(MPI_Bcast, MPI_BCAST_T)(&ok, 1, MPI_INT, writer, comm);
    MPII_PMPI(MPI_Comm_free, MPI_COMM_FREE_T)(&comm);
    if (ok && image_is_file) release_slot();
}

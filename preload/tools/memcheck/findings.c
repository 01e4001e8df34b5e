/* Findings: kept in the rank's profile (a file-backed mapping: a crash keeps them), printed to
 * stderr the first time each one happens, deduplicated per (kind, call site, instruction).
 * mc_report runs inside the SIGSEGV handler, so it allocates nothing and formats by hand.
 *
 * Record layout: block "findings" in blocks.yaml (F_* fields, MC_FIELDS per finding, generated in
 * memcheck_blocks.h); the CLI reads the row length from "layout".
 * Addresses are raw; "objects" (written at start and at MPI_Finalize) maps them to files and
 * load biases so the CLI can ask addr2line for file:line. */
#define _GNU_SOURCE
#include <execinfo.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include "state.h"
#include "findings.h"
#include "mpii_tool.h"
#include "profile_file.h" /* mpii_profile_mark_aborted */


static uint64_t *table;   /* MC_MAX_FINDINGS × MC_FIELDS, in the profile */
static uint64_t *by_kind; /* occurrences per kind, in the profile */
static uint64_t spare_table[MC_FIELDS], spare_kinds[MC_KINDS];
static int n_findings, capacity; /* capacity 0: no profile table, count only */
static char host[64];

/* ---- loaded objects (snapshot; the handler may not call the dynamic loader) ---- */

#define MC_OBJECTS 128
typedef struct {
    uintptr_t lo, hi, bias;
    char path[200];
    const char *base; /* file name part */
} mc_object_t;
static mc_object_t objects[MC_OBJECTS];
static int n_objects;

static int add_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void) size, (void) data;
    if (n_objects == MC_OBJECTS) return 1;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo) lo = a;
        if (a + ph->p_memsz > hi) hi = a + ph->p_memsz;
    }
    if (lo >= hi) return 0;
    mc_object_t *o = &objects[n_objects++];
    o->lo = lo;
    o->hi = hi;
    o->bias = info->dlpi_addr;
    const char *name = info->dlpi_name;
    if (!name || !*name) { /* the program itself */
        ssize_t n = readlink("/proc/self/exe", o->path, sizeof o->path - 1);
        o->path[n > 0 ? n : 0] = 0;
    } else {
        snprintf(o->path, sizeof o->path, "%s", name);
    }
    const char *slash = strrchr(o->path, '/');
    o->base = slash ? slash + 1 : o->path;
    return 0;
}

void mc_findings_save_objects(void)
{
    n_objects = 0;
    dl_iterate_phdr(add_object, NULL);
    size_t cap = (size_t) n_objects * 256 + 1, len = 0;
    char *text = malloc(cap);
    if (!text) return;
    text[0] = 0;
    for (int i = 0; i < n_objects; i++)
        len += (size_t) snprintf(text + len, cap - len, "%lx %lx %lx %s\n", (unsigned long) objects[i].lo,
                                 (unsigned long) objects[i].hi, (unsigned long) objects[i].bias, objects[i].path);
    mpii_profile_text(mc_tool, "objects", text);
    free(text);
}

static const mc_object_t *object_of(uintptr_t a)
{
    for (int i = 0; i < n_objects; i++)
        if (a >= objects[i].lo && a < objects[i].hi) return &objects[i];
    return NULL;
}

/* ---- a line built without stdio ---- */

typedef struct {
    char s[1024];
    size_t n;
} line_t;

static void put(line_t *l, const char *s)
{
    while (*s && l->n < sizeof l->s - 1) l->s[l->n++] = *s++;
}

static void put_num(line_t *l, uint64_t v, int base)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v % (unsigned) base];
        v /= (unsigned) base;
    } while (v);
    if (base == 16) put(l, "0x");
    while (n && l->n < sizeof l->s - 1) l->s[l->n++] = tmp[--n];
}

static void put_addr(line_t *l, uintptr_t a)
{
    const mc_object_t *o = object_of(a);
    if (!o) {
        put_num(l, a, 16);
        return;
    }
    put(l, o->base);
    put(l, "+");
    put_num(l, a - o->bias, 16);
}

static void put_bytes(line_t *l, uint64_t n)
{
    put_num(l, n, 10);
    put(l, " B");
}

/* Each kind's class, from blocks.yaml (the report reads the same declaration). */
static const unsigned char kind_class[MC_KINDS] = MC_KIND_CLASSES;

/* The kind's label: the k-th line of MC_KIND_LABELS (one list of names, shared with the report). */
static void put_label(line_t *l, int kind)
{
    const char *s = MC_KIND_LABELS;
    for (int k = 0; k < kind && *s; s++)
        if (*s == '\n') k++;
    while (*s && *s != '\n' && l->n < sizeof l->s - 1) l->s[l->n++] = *s++;
}

static void print(const uint64_t *rec, const mc_finding_t *f)
{
    line_t l = { .n = 0 };
    put(&l, "[");
    put(&l, host);
    put(&l, ":");
    put_num(&l, (uint64_t) getpid(), 10);
    put(&l, "] memcheck: rank ");
    put_num(&l, (uint64_t) (mpii_world_rank() < 0 ? 0 : mpii_world_rank()), 10);
    put(&l, kind_class[f->kind] == MC_CLASS_HINT ? ": hint: " : ": error: ");
    put_label(&l, f->kind);
    if (f->kind == MC_SEND_OVERRUN || f->kind == MC_RECV_OVERRUN) {
        put(&l, ": ");
        put_bytes(&l, f->bytes);
        put(&l, " past the end of its allocation (buffer ");
        put_num(&l, f->base, 16);
        put(&l, ", ");
        put_bytes(&l, f->len);
        put(&l, ")");
    } else if (f->kind == MC_UNREAD || f->kind == MC_UNREAD_OVERWRITTEN) {
        put(&l, ": ");
        put_bytes(&l, f->bytes);
        put(&l, " of ");
        put_bytes(&l, f->len);
        put(&l, " at ");
        put_num(&l, f->base, 16);
    } else {
        put(&l, " at ");
        put_num(&l, f->addr, 16);
        put(&l, " (buffer+");
        put_num(&l, f->addr - f->base, 10);
        put(&l, " of ");
        put_bytes(&l, f->len);
        put(&l, ")");
    }
    if (f->origin) {
        put(&l, "; ");
        put(&l, (const char *) &rec[F_FN]);
        put(&l, " called at ");
        put_addr(&l, (uintptr_t) f->origin->site);
    }
    if (rec[F_PC]) {
        put(&l, "; access at ");
        put_addr(&l, rec[F_PC]);
    }
    put(&l, "\n    backtrace:");
    for (uint64_t i = 0; i < rec[F_NFRAMES]; i++) {
        put(&l, " ");
        put_addr(&l, rec[F_FRAMES + i]);
    }
    put(&l, "\n");
    ssize_t w = write(2, l.s, l.n);
    (void) w;
}

/* The frames from the program's side: from the faulting instruction (in a signal handler) or
 * from the MPI call site (in a wrapper); the tool's and the shim's own frames are dropped. */
/* The program's frames: from the faulting instruction `pc` (a signal handler: the frames before
 * it are the handler's), or else from the first frame outside the shim (a wrapper, free(), a
 * system call wrapper). */
static int program_frames(uint64_t *out, uintptr_t pc)
{
    void *raw[64];
    int n = backtrace(raw, 64), start = -1, k = 0;
    const mc_object_t *self = object_of((uintptr_t) program_frames);
    for (int i = 0; i < n && start < 0; i++) {
        uintptr_t a = (uintptr_t) raw[i];
        if (pc ? a == pc : (!self || a < self->lo || a >= self->hi)) start = i;
    }
    if (start < 0) {
        if (pc) out[k++] = pc;
        return k;
    }
    for (int i = start; i < n && k < MC_FRAMES; i++) out[k++] = (uintptr_t) raw[i];
    return k;
}

void mc_report(const mc_finding_t *f)
{
    mc_stats[MS_FINDINGS]++;
    if (by_kind) by_kind[f->kind]++;
    uintptr_t pc = 0;
#if defined(__x86_64__)
    if (f->ucontext) pc = (uintptr_t) ((ucontext_t *) f->ucontext)->uc_mcontext.gregs[REG_RIP];
#endif
    /* In a Python rank the access is named by the Python line that made it, as call sites are
     * (pysite.c: its key; a new line takes the GIL once, which the faulting thread holds or no
     * other thread keeps for long); the backtrace keeps the C frames from the instruction. */
    uintptr_t at = pc && mpii_python_site ? (uintptr_t) mpii_python_site(pc) : pc;
    uintptr_t site = f->origin ? (uintptr_t) f->origin->site : 0;
    /* An error is kept per instruction (each place that breaks the rule is shown); a hint per call
     * site only, its first instruction the sample: QE's broadcasts overwritten at many places are
     * one row each, not one per instruction (and cannot crowd the errors out of the table). */
    int hint = kind_class[f->kind] == MC_CLASS_HINT;
    for (int i = 0; i < n_findings; i++) {
        uint64_t *rec = &table[(size_t) i * MC_FIELDS];
        if (rec[F_KIND] == (uint64_t) f->kind && rec[F_SITE] == site && (hint || rec[F_PC] == at)) {
            rec[F_COUNT]++;
            rec[F_BYTES] += f->bytes;
            return; /* printed the first time */
        }
    }
    uint64_t *rec = n_findings < capacity ? &table[(size_t) n_findings++ * MC_FIELDS] : spare_table;
    memset(rec, 0, sizeof(uint64_t) * MC_FIELDS);
    rec[F_KIND] = (uint64_t) f->kind;
    rec[F_COUNT] = 1;
    rec[F_SITE] = site;
    rec[F_PC] = at;
    rec[F_ADDR] = f->addr;
    rec[F_BASE] = f->base;
    rec[F_LEN] = f->len;
    rec[F_BYTES] = f->bytes;
    rec[F_ACCESS] = (uint64_t) (int64_t) f->access;
    if (f->origin && f->origin->fn >= 0 && f->origin->fn < MPII_NFUNCS && mpii_fn_info[f->origin->fn].name)
        strncpy((char *) &rec[F_FN], mpii_fn_info[f->origin->fn].name, 31);
    rec[F_NFRAMES] = (uint64_t) program_frames(&rec[F_FRAMES], pc);
    print(rec, f);
    if (mc_fatal && !hint) {
        static const char msg[] =
            "MPII memcheck: stopping the job at the first error (memcheck fatal=true; hints never stop it)\n";
        ssize_t w = write(2, msg, sizeof msg - 1);
        (void) w;
        mpii_profile_mark_aborted();
        _exit(86);
    }
}

int mc_findings_start(void)
{
    char layout[256];
    snprintf(layout, sizeof layout,
             "{\"fields\":%d,\"frames\":%d,\"names\":[\"kind\",\"count\",\"site\",\"pc\",\"addr\",\"base\",\"len\","
             "\"bytes\","
             "\"access\",\"nframes\",\"fn\"]}",
             MC_FIELDS, MC_FRAMES);
    mpii_profile_text(mc_tool, "layout", layout);
    table = mpii_profile_counters(mc_tool, "findings", (size_t) MC_MAX_FINDINGS * MC_FIELDS, NULL);
    by_kind = mpii_profile_counters(mc_tool, "by kind", MC_KINDS, MC_KIND_LABELS);
    if (!table || !by_kind) {
        by_kind = spare_kinds;
        return -1;
    }
    capacity = MC_MAX_FINDINGS;
    if (gethostname(host, sizeof host) != 0) strcpy(host, "?");
    host[sizeof host - 1] = 0;
    void *warm[4];
    backtrace(warm, 4); /* loads the unwinder now, not inside the SIGSEGV handler */
    mc_findings_save_objects();
    return 0;
}

void mc_findings_publish(void)
{
    mpii_pvar_counters("mpii_memcheck_found_", "memcheck findings: ", by_kind, MC_KINDS, MC_KIND_LABELS);
}

/* The shim as an MPI_T provider. The generated MPI_T_* wrappers end here (spec kind `mpit`)
 * instead of in the library: the application, and any MPI_T client in it, sees the library's
 * performance variables and categories under their own indices, followed by the variables the
 * tools publish (mpii_pvar_register) and one category "mpii" holding them.
 *
 * Indices never change once shown (MPI_T requires it), even when the library registers more
 * variables later: the index space is a list of segments, each a run of library indices or of
 * tool variables, appended whenever one side has grown since the last look. Handles of tool
 * variables are the core's own (told apart from the library's by a registry); everything on a
 * library handle or index is forwarded unchanged. Cvars, enums and events belong to the library
 * alone. Nothing here runs before the application calls MPI_T, and with no tool variables (no
 * stack, INJ_IGNORE) every call is forwarded with the indices unchanged. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "library_tools.h"
#include "log.h"
#include "mpit.h"

/* ---- the library ---- */

static mpii_mpit_lib_t lib;

static void *next_symbol(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        char p[64];
        snprintf(p, sizeof p, "P%s", name);
        f = dlsym(RTLD_DEFAULT, p);
    }
    return f;
}

static void resolve(void)
{
#define R(field) *(void **) &lib.field = next_symbol("MPI_T_" #field)
    R(init_thread);
    R(finalize);
    R(pvar_get_num);
    R(pvar_get_info);
    R(pvar_get_index);
    R(pvar_session_create);
    R(pvar_session_free);
    R(pvar_handle_alloc);
    R(pvar_handle_free);
    R(pvar_start);
    R(pvar_stop);
    R(pvar_read);
    R(pvar_write);
    R(pvar_reset);
    R(pvar_readreset);
    R(category_get_num);
    R(category_get_info);
    R(category_get_index);
    R(category_get_cvars);
    R(category_get_pvars);
    R(category_get_categories);
    R(category_get_num_events);
    R(category_get_events);
    R(category_changed);
#undef R
#if defined(MPICH)
    /* MPICH's MPI_T_PVAR_ALL_HANDLES is a variable of libmpich: read it, never link it */
    MPI_T_pvar_handle *all = dlsym(RTLD_DEFAULT, "MPI_T_PVAR_ALL_HANDLES");
    lib.all_handles = all ? *all : MPI_T_PVAR_HANDLE_NULL;
#else
    lib.all_handles = MPI_T_PVAR_ALL_HANDLES;
#endif
}

const mpii_mpit_lib_t *mpii_mpit_lib(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, resolve);
    return &lib;
}

#define CALL(fn, ...) (lib.fn ? lib.fn(__VA_ARGS__) : MPII_MPIT_NONE)

int mpii_mpit_lib_pvar(const char *name, MPI_Datatype *type, int *bind, int *continuous)
{
    mpii_mpit_lib();
    int n = 0;
    if (!lib.pvar_get_info || CALL(pvar_get_num, &n) != MPI_SUCCESS) return -1;
    for (int i = 0; i < n; i++) {
        char have[256];
        int len = sizeof have, dlen = 0, verb, cls, b, ro, cont, at;
        MPI_Datatype t;
        MPI_T_enum en;
        if (lib.pvar_get_info(i, have, &len, &verb, &cls, &t, &en, NULL, &dlen, &b, &ro, &cont, &at) != MPI_SUCCESS ||
            strcmp(have, name) != 0)
            continue; /* an index the library gave up (Open MPI: components it did not select) */
        if (type) *type = t;
        if (bind) *bind = b;
        if (continuous) *continuous = cont;
        return i;
    }
    return -1;
}

int mpii_mpit_comm(void *obj, MPI_Comm *comm)
{
    if (!obj) return -1;
#if defined(MPICH)
        /* an MPICH communicator handle: kind bits 30-31 set, object kind (bits 26-29) 1 = comm */
#define IS_COMM(v) (((v) >> 30) != 0 && (((v) >> 26) & 0xf) == 1)
    uintptr_t v = (uintptr_t) obj;
    if (v <= 0xffffffffu && IS_COMM(v)) {
        *comm = (MPI_Comm) (int) v;
        return 0;
    }
    MPI_Comm c = *(MPI_Comm *) obj;
    if (!IS_COMM((unsigned) c)) return -1;
    *comm = c;
    return 0;
#undef IS_COMM
#else
    /* Open MPI: a communicator object starts with its class pointer */
    static void *comm_class;
    if (!comm_class) comm_class = dlsym(RTLD_DEFAULT, "ompi_communicator_t_class");
    if (!comm_class) return -1;
    if (*(void **) obj == comm_class) {
        *comm = (MPI_Comm) obj;
        return 0;
    }
    MPI_Comm c = *(MPI_Comm *) obj;
    if (!c || *(void **) c != comm_class) return -1;
    *comm = c;
    return 0;
#endif
}

/* ---- the tools' variables ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static mpii_pvar_t **vars; /* registration order (copies) */
static int nvars, vars_cap;
static int considered; /* vars[0..considered) were checked for exposure */
static int *shown;     /* tool variable positions in the order they got indices */
static int nshown;

/* ---- index spaces: segments of library indices or of tool variables ---- */

typedef struct {
    int tools; /* 0: library indices, 1: positions in shown[] (or the mpii category) */
    int first, len;
} seg_t;

typedef struct {
    seg_t *s;
    int n, cap;
} map_t;

static map_t pmap, cmap;        /* performance variables, categories */
static int lib_pvars, lib_cats; /* library indices mapped so far */
static int tool_cat = -1;       /* virtual index of the "mpii" category */
static int tool_stamp;          /* changes on our side, for MPI_T_category_changed */

static void map_add(map_t *m, int tools, int first, int len)
{
    if (len <= 0) return;
    if (m->n && m->s[m->n - 1].tools == tools && m->s[m->n - 1].first + m->s[m->n - 1].len == first) {
        m->s[m->n - 1].len += len;
        return;
    }
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 4;
        seg_t *s = realloc(m->s, sizeof *s * (size_t) cap);
        if (!s) return;
        m->s = s;
        m->cap = cap;
    }
    m->s[m->n++] = (seg_t){ tools, first, len };
}

/* virtual index -> (side, index on that side); -1 when out of range */
static int map_find(const map_t *m, int v, int *index)
{
    if (v < 0) return -1;
    for (int i = 0; i < m->n; i++) {
        if (v < m->s[i].len) {
            *index = m->s[i].first + v;
            return m->s[i].tools;
        }
        v -= m->s[i].len;
    }
    return -1;
}

static int map_virtual(const map_t *m, int tools, int index)
{
    int base = 0;
    for (int i = 0; i < m->n; i++) {
        const seg_t *s = &m->s[i];
        if (s->tools == tools && index >= s->first && index < s->first + s->len) return base + index - s->first;
        base += s->len;
    }
    return -1;
}

static int map_total(const map_t *m)
{
    int n = 0;
    for (int i = 0; i < m->n; i++) n += m->s[i].len;
    return n;
}

/* Bring both index spaces up to date. Returns the library's error when it refuses (MPI_T not
 * initialized): the caller returns it, as the library alone would have. */
static int sync_pvars(void)
{
    int n = 0, rc = CALL(pvar_get_num, &n);
    if (rc != MPI_SUCCESS) return rc;
    if (n > lib_pvars) {
        map_add(&pmap, 0, lib_pvars, n - lib_pvars);
        lib_pvars = n;
    }
    if (!mpii_active || considered == nvars) return MPI_SUCCESS;
    int *more = realloc(shown, sizeof *shown * (size_t) nvars);
    if (!more) return MPI_T_ERR_MEMORY;
    shown = more;
    int from = nshown;
    for (; considered < nvars; considered++) {
        const mpii_pvar_t *v = vars[considered];
        int alias_of_library =
            (v->flags & MPII_PVAR_UNLESS_LIBRARY) && mpii_mpit_lib_pvar(v->name, NULL, NULL, NULL) >= 0;
        if (!alias_of_library) shown[nshown++] = considered;
    }
    map_add(&pmap, 1, from, nshown - from);
    if (nshown > from) tool_stamp++;
    return MPI_SUCCESS;
}

static int sync_categories(void)
{
    int rc = sync_pvars();
    if (rc != MPI_SUCCESS) return rc;
    int n = 0;
    rc = CALL(category_get_num, &n);
    if (rc != MPI_SUCCESS) return rc;
    if (n > lib_cats) {
        map_add(&cmap, 0, lib_cats, n - lib_cats);
        lib_cats = n;
    }
    if (tool_cat < 0 && nshown > 0) {
        tool_cat = map_total(&cmap);
        map_add(&cmap, 1, 0, 1);
    }
    return MPI_SUCCESS;
}

/* ---- registration ---- */

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

int mpii_pvar_register(const mpii_pvar_t *var)
{
    if (!var || !var->name || !*var->name || !var->read) return -1;
    mpii_pvar_t *e = malloc(sizeof *e);
    if (!e) return -1;
    *e = *var;
    e->name = dup_or_empty(var->name);
    e->desc = dup_or_empty(var->desc);
    pthread_mutex_lock(&lock);
    if (nvars == vars_cap) {
        int cap = vars_cap ? 2 * vars_cap : 32;
        mpii_pvar_t **more = realloc(vars, sizeof *more * (size_t) cap);
        if (!more) {
            pthread_mutex_unlock(&lock);
            free(e);
            return -1;
        }
        vars = more;
        vars_cap = cap;
    }
    vars[nvars++] = e;
    pthread_mutex_unlock(&lock);
    return 0;
}

static int read_counter(const mpii_pvar_t *v, const void *obj, void *buf, int count)
{
    (void) obj;
    (void) count;
    *(unsigned long *) buf = (unsigned long) __atomic_load_n((const uint64_t *) v->data, __ATOMIC_RELAXED);
    return 0;
}

int mpii_pvar_counters(const char *prefix, const char *desc_prefix, const uint64_t *values, size_t n,
                       const char *labels)
{
    int done = 0;
    const char *p = labels ? labels : "";
    for (size_t i = 0; i < n && values; i++) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t) (end - p) : strlen(p);
        char label[200], name[256], desc[512];
        snprintf(label, sizeof label, "%.*s", (int) len, p);
        if (!*label) snprintf(label, sizeof label, "%zu", i);
        size_t at = (size_t) snprintf(name, sizeof name, "%s", prefix ? prefix : "mpii_");
        for (const char *c = label; *c && at < sizeof name - 1; c++) {
            char ch = isalnum((unsigned char) *c) ? (char) tolower((unsigned char) *c) : '_';
            if (ch == '_' && (at == 0 || name[at - 1] == '_')) continue;
            name[at++] = ch;
        }
        while (at > 0 && name[at - 1] == '_') at--;
        name[at] = 0;
        snprintf(desc, sizeof desc, "%s%s", desc_prefix ? desc_prefix : "", label);
        mpii_pvar_t v = { .name = name,
                          .desc = desc,
                          .var_class = MPI_T_PVAR_CLASS_COUNTER,
                          .type = MPII_PVAR_U64,
                          .read = read_counter,
                          .data = (void *) &values[i] };
        done += mpii_pvar_register(&v) == 0;
        p = end ? end + 1 : p + len;
    }
    return done;
}

/* ---- handles of tool variables ---- */

typedef struct handle {
    struct handle *next;
    MPI_T_pvar_session session;
    const mpii_pvar_t *v;
    MPI_Comm comm;
    int has_comm;
    int count;
    int started;
    /* the core's accounting (variables without MPII_PVAR_OWN_STATE, accumulating classes) */
    void *accum, *base, *now;
} handle_t;

static handle_t *handles;
static int app_inits; /* MPI_T_init_thread minus MPI_T_finalize, as the application called them */

static handle_t *ours(MPI_T_pvar_handle h)
{
    for (handle_t *x = handles; x; x = x->next)
        if ((void *) x == (void *) h) return x;
    return NULL;
}

static const void *obj_of(const handle_t *h)
{
    return h->has_comm ? &h->comm : NULL;
}

static size_t elem_size(const mpii_pvar_t *v)
{
    return v->type == MPII_PVAR_CHAR ? 1 : v->type == MPII_PVAR_DOUBLE ? sizeof(double) : sizeof(unsigned long);
}

static int accumulating(const mpii_pvar_t *v)
{
    return !(v->flags & MPII_PVAR_OWN_STATE) && v->type != MPII_PVAR_CHAR &&
           (v->var_class == MPI_T_PVAR_CLASS_COUNTER || v->var_class == MPI_T_PVAR_CLASS_AGGREGATE ||
            v->var_class == MPI_T_PVAR_CLASS_TIMER);
}

static int notify(const handle_t *h, int event)
{
    const mpii_pvar_t *v = h->v;
    return v->notify ? v->notify(v, obj_of(h), event) : 0;
}

/* the live value into h->now */
static int sample(handle_t *h)
{
    const mpii_pvar_t *v = h->v;
    return v->read(v, obj_of(h), h->now, h->count);
}

/* dst = a + sign * (b - c), elementwise, in the variable's type (NULL b/c: just a) */
static void combine(const handle_t *h, void *dst, const void *a, const void *b, const void *c)
{
    for (int i = 0; i < h->count; i++) {
        if (h->v->type == MPII_PVAR_DOUBLE) {
            double x = ((const double *) a)[i];
            if (b) x += ((const double *) b)[i] - ((const double *) c)[i];
            ((double *) dst)[i] = x;
        } else {
            unsigned long x = ((const unsigned long *) a)[i];
            if (b) x += ((const unsigned long *) b)[i] - ((const unsigned long *) c)[i];
            ((unsigned long *) dst)[i] = x;
        }
    }
}

static void free_handle(handle_t *h)
{
    for (handle_t **p = &handles; *p; p = &(*p)->next)
        if (*p == h) {
            *p = h->next;
            break;
        }
    notify(h, MPII_PVAR_UNBIND);
    free(h->accum);
    free(h->base);
    free(h->now);
    free(h);
}

static int start_one(handle_t *h)
{
    const mpii_pvar_t *v = h->v;
    if (v->flags & MPII_PVAR_CONTINUOUS) return MPI_T_ERR_PVAR_NO_STARTSTOP;
    if (h->started) return MPI_SUCCESS;
    if (accumulating(v)) {
        int rc = sample(h);
        if (rc) return rc;
        memcpy(h->base, h->now, elem_size(v) * (size_t) h->count);
    }
    int rc = notify(h, MPII_PVAR_START);
    if (rc == 0) h->started = 1;
    return rc;
}

static int stop_one(handle_t *h)
{
    const mpii_pvar_t *v = h->v;
    if (v->flags & MPII_PVAR_CONTINUOUS) return MPI_T_ERR_PVAR_NO_STARTSTOP;
    if (!h->started) return MPI_SUCCESS;
    if (accumulating(v)) {
        int rc = sample(h);
        if (rc) return rc;
        combine(h, h->accum, h->accum, h->now, h->base);
    }
    h->started = 0;
    return notify(h, MPII_PVAR_STOP);
}

static int read_one(handle_t *h, void *buf)
{
    const mpii_pvar_t *v = h->v;
    if (!accumulating(v)) return v->read(v, obj_of(h), buf, h->count);
    if (h->started) {
        int rc = sample(h);
        if (rc) return rc;
        combine(h, buf, h->accum, h->now, h->base);
    } else {
        memcpy(buf, h->accum, elem_size(v) * (size_t) h->count);
    }
    return MPI_SUCCESS;
}

/* a write sets the handle's value; a reset sets it to zero (buf NULL) */
static int write_one(handle_t *h, const void *buf)
{
    const mpii_pvar_t *v = h->v;
    if (v->flags & MPII_PVAR_READONLY) return MPI_T_ERR_PVAR_NO_WRITE;
    if (!accumulating(v)) {
        if (!buf) return notify(h, MPII_PVAR_RESET);
        return v->write ? v->write(v, obj_of(h), buf, h->count) : MPI_T_ERR_PVAR_NO_WRITE;
    }
    size_t bytes = elem_size(v) * (size_t) h->count;
    if (buf) memcpy(h->accum, buf, bytes);
    else
        memset(h->accum, 0, bytes);
    if (h->started) {
        int rc = sample(h);
        if (rc) return rc;
        memcpy(h->base, h->now, bytes);
    }
    return MPI_SUCCESS;
}

static int alloc_one(MPI_T_pvar_session session, const mpii_pvar_t *v, void *obj, MPI_T_pvar_handle *out, int *count)
{
    if (session == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
    handle_t *h = calloc(1, sizeof *h);
    if (!h) return MPI_T_ERR_MEMORY;
    h->session = session;
    h->v = v;
    if (v->bind == MPI_T_BIND_MPI_COMM) {
        if (mpii_mpit_comm(obj, &h->comm) != 0) {
            free(h);
            return MPI_T_ERR_INVALID_HANDLE;
        }
        h->has_comm = 1;
    }
    h->count = v->count ? v->count(v, obj_of(h)) : 1;
    if (h->count < 0) {
        free(h);
        return MPI_T_ERR_INVALID_HANDLE;
    }
    if (accumulating(v)) {
        size_t bytes = elem_size(v) * (size_t) (h->count ? h->count : 1);
        h->accum = calloc(1, bytes);
        h->base = calloc(1, bytes);
        h->now = calloc(1, bytes);
        if (!h->accum || !h->base || !h->now) {
            free(h->accum);
            free(h->base);
            free(h->now);
            free(h);
            return MPI_T_ERR_MEMORY;
        }
    }
    int rc = notify(h, MPII_PVAR_BIND);
    if (rc == 0 && (v->flags & MPII_PVAR_CONTINUOUS) && accumulating(v)) rc = sample(h);
    if (rc != 0) {
        free(h->accum);
        free(h->base);
        free(h->now);
        free(h);
        return rc;
    }
    if (v->flags & MPII_PVAR_CONTINUOUS) {
        h->started = 1;
        if (accumulating(v)) memcpy(h->base, h->now, elem_size(v) * (size_t) h->count);
    }
    h->next = handles;
    handles = h;
    *out = (MPI_T_pvar_handle) (void *) h;
    if (count) *count = h->count;
    return MPI_SUCCESS;
}

/* ---- strings the MPI_T way: copy what fits, say how long the whole is ---- */

static void give_string(const char *s, char *buf, int *len)
{
    if (!len) return;
    int need = (int) strlen(s) + 1;
    if (buf && *len > 0) snprintf(buf, (size_t) *len, "%s", s);
    *len = need;
}

/* ---- the provider: what the MPI_T_* wrappers call ---- */

#define LOCKED(expr)                 \
    do {                             \
        mpii_mpit_lib();             \
        pthread_mutex_lock(&lock);   \
        int rc_ = (expr);            \
        pthread_mutex_unlock(&lock); \
        return rc_;                  \
    } while (0)

int mpii_mpit_MPI_T_init_thread(int required, int *provided)
{
    /* a first MPI call that does not pass through mpii_resolve_all: the library reads its
     * variables here too, its QMPI tool list among them */
    mpii_library_tools_settle_first();
    mpii_mpit_lib();
    int rc = CALL(init_thread, required, provided);
    if (rc == MPI_SUCCESS) __atomic_add_fetch(&app_inits, 1, __ATOMIC_RELAXED);
    return rc;
}

int mpii_mpit_MPI_T_finalize(void)
{
    mpii_mpit_lib();
    int rc = CALL(finalize);
    if (rc != MPI_SUCCESS) return rc;
    pthread_mutex_lock(&lock);
    if (app_inits > 0 && --app_inits == 0) /* the library drops its handles now: so do we */
        while (handles) free_handle(handles);
    pthread_mutex_unlock(&lock);
    return rc;
}

static int get_num(int *num)
{
    int rc = sync_pvars();
    if (rc == MPI_SUCCESS && num) *num = map_total(&pmap);
    return rc;
}
int mpii_mpit_MPI_T_pvar_get_num(int *num)
{
    LOCKED(get_num(num));
}

static int get_info(int index, char *name, int *name_len, int *verbosity, int *var_class, MPI_Datatype *datatype,
                    MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *readonly, int *continuous,
                    int *atomic)
{
    int rc = sync_pvars(), at;
    if (rc != MPI_SUCCESS) return rc;
    switch (map_find(&pmap, index, &at)) {
    case 0:
        return CALL(pvar_get_info, at, name, name_len, verbosity, var_class, datatype, enumtype, desc, desc_len, bind,
                    readonly, continuous, atomic);
    case 1: break;
    default: return MPI_T_ERR_INVALID_INDEX;
    }
    const mpii_pvar_t *v = vars[shown[at]];
    give_string(v->name, name, name_len);
    give_string(v->desc, desc, desc_len);
    if (verbosity) *verbosity = v->verbosity ? v->verbosity : MPI_T_VERBOSITY_USER_BASIC;
    if (var_class) *var_class = v->var_class;
    if (datatype)
        *datatype = v->type == MPII_PVAR_CHAR ? MPI_CHAR : v->type == MPII_PVAR_DOUBLE ? MPI_DOUBLE : MPI_UNSIGNED_LONG;
    if (enumtype) *enumtype = MPI_T_ENUM_NULL;
    if (bind) *bind = v->bind ? v->bind : MPI_T_BIND_NO_OBJECT;
    if (readonly) *readonly = !!(v->flags & MPII_PVAR_READONLY);
    if (continuous) *continuous = !!(v->flags & MPII_PVAR_CONTINUOUS);
    if (atomic) *atomic = 0;
    return MPI_SUCCESS;
}
int mpii_mpit_MPI_T_pvar_get_info(int index, char *name, int *name_len, int *verbosity, int *var_class,
                                  MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                                  int *readonly, int *continuous, int *atomic)
{
    LOCKED(get_info(index, name, name_len, verbosity, var_class, datatype, enumtype, desc, desc_len, bind, readonly,
                    continuous, atomic));
}

static int get_index(const char *name, int var_class, int *index)
{
    int rc = sync_pvars(), at;
    if (rc != MPI_SUCCESS) return rc;
    rc = CALL(pvar_get_index, name, var_class, &at);
    if (rc == MPI_SUCCESS) {
        if (index) *index = map_virtual(&pmap, 0, at);
        return rc;
    }
    for (int i = 0; name && i < nshown; i++) {
        const mpii_pvar_t *v = vars[shown[i]];
        if (v->var_class == var_class && strcmp(v->name, name) == 0) {
            if (index) *index = map_virtual(&pmap, 1, i);
            return MPI_SUCCESS;
        }
    }
    return rc == MPII_MPIT_NONE ? rc : MPI_T_ERR_INVALID_NAME;
}
int mpii_mpit_MPI_T_pvar_get_index(const char *name, int var_class, int *index)
{
    LOCKED(get_index(name, var_class, index));
}

int mpii_mpit_MPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    mpii_mpit_lib();
    return CALL(pvar_session_create, session);
}

static int session_free(MPI_T_pvar_session *session)
{
    if (!session) return MPI_T_ERR_INVALID_SESSION;
    for (handle_t *h = handles, *next; h; h = next) {
        next = h->next;
        if (h->session == *session) free_handle(h);
    }
    return CALL(pvar_session_free, session);
}
int mpii_mpit_MPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    LOCKED(session_free(session));
}

static int handle_alloc(MPI_T_pvar_session session, int index, void *obj, MPI_T_pvar_handle *handle, int *count)
{
    int rc = sync_pvars(), at;
    if (rc != MPI_SUCCESS) return rc;
    switch (map_find(&pmap, index, &at)) {
    case 0: return CALL(pvar_handle_alloc, session, at, obj, handle, count);
    case 1: return handle ? alloc_one(session, vars[shown[at]], obj, handle, count) : MPI_T_ERR_INVALID_HANDLE;
    default: return MPI_T_ERR_INVALID_INDEX;
    }
}
int mpii_mpit_MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int index, void *obj, MPI_T_pvar_handle *handle,
                                      int *count)
{
    LOCKED(handle_alloc(session, index, obj, handle, count));
}

static int handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    handle_t *h = handle ? ours(*handle) : NULL;
    if (!h) return CALL(pvar_handle_free, session, handle);
    if (h->session != session) return MPI_T_ERR_INVALID_SESSION;
    free_handle(h);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
int mpii_mpit_MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    LOCKED(handle_free(session, handle));
}

/* start, stop, reset: one of our handles, one of the library's, or all handles of a session
 * (the library's, then ours: those the operation does not apply to are skipped) */
enum { OP_START, OP_STOP, OP_RESET };

static int apply(handle_t *h, int op)
{
    return op == OP_START ? start_one(h) : op == OP_STOP ? stop_one(h) : write_one(h, NULL);
}

static int control(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int op)
{
    if (handle == lib.all_handles && handle != MPI_T_PVAR_HANDLE_NULL) {
        int rc = op == OP_START  ? CALL(pvar_start, session, handle)
                 : op == OP_STOP ? CALL(pvar_stop, session, handle)
                                 : CALL(pvar_reset, session, handle);
        for (handle_t *h = handles; h; h = h->next) {
            if (h->session != session) continue;
            int f = h->v->flags;
            if (op == OP_RESET ? (f & MPII_PVAR_READONLY) : (f & MPII_PVAR_CONTINUOUS)) continue;
            int mine = apply(h, op);
            if (rc == MPI_SUCCESS) rc = mine;
        }
        return rc;
    }
    handle_t *h = ours(handle);
    if (!h) {
        return op == OP_START  ? CALL(pvar_start, session, handle)
               : op == OP_STOP ? CALL(pvar_stop, session, handle)
                               : CALL(pvar_reset, session, handle);
    }
    if (h->session != session) return MPI_T_ERR_INVALID_SESSION;
    return apply(h, op);
}
int mpii_mpit_MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    LOCKED(control(session, handle, OP_START));
}
int mpii_mpit_MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    LOCKED(control(session, handle, OP_STOP));
}
int mpii_mpit_MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    LOCKED(control(session, handle, OP_RESET));
}

static int rw(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *out, const void *in, int reset)
{
    handle_t *h = ours(handle);
    if (!h) {
        if (in) return CALL(pvar_write, session, handle, in);
        return reset ? CALL(pvar_readreset, session, handle, out) : CALL(pvar_read, session, handle, out);
    }
    if (h->session != session) return MPI_T_ERR_INVALID_SESSION;
    if (in) return write_one(h, in);
    if (reset && (h->v->flags & MPII_PVAR_READONLY)) return MPI_T_ERR_PVAR_NO_WRITE;
    int rc = read_one(h, out);
    return rc == MPI_SUCCESS && reset ? write_one(h, NULL) : rc;
}
int mpii_mpit_MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    LOCKED(rw(session, handle, buf, NULL, 0));
}
int mpii_mpit_MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    LOCKED(rw(session, handle, buf, NULL, 1));
}
int mpii_mpit_MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    LOCKED(rw(session, handle, NULL, buf, 0));
}

/* ---- categories: the library's, then "mpii" ---- */

static const char TOOL_CAT_DESC[] = "Performance variables of the mpii tools on the stack (preload/core/mpit.c)";

static int cat_num(int *num)
{
    int rc = sync_categories();
    if (rc == MPI_SUCCESS && num) *num = map_total(&cmap);
    return rc;
}
int mpii_mpit_MPI_T_category_get_num(int *num)
{
    LOCKED(cat_num(num));
}

static int cat_info(int index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars, int *num_pvars,
                    int *num_categories)
{
    int rc = sync_categories(), at;
    if (rc != MPI_SUCCESS) return rc;
    switch (map_find(&cmap, index, &at)) {
    case 0: return CALL(category_get_info, at, name, name_len, desc, desc_len, num_cvars, num_pvars, num_categories);
    case 1: break;
    default: return MPI_T_ERR_INVALID_INDEX;
    }
    give_string("mpii", name, name_len);
    give_string(TOOL_CAT_DESC, desc, desc_len);
    if (num_cvars) *num_cvars = 0;
    if (num_pvars) *num_pvars = nshown;
    if (num_categories) *num_categories = 0;
    return MPI_SUCCESS;
}
int mpii_mpit_MPI_T_category_get_info(int index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars,
                                      int *num_pvars, int *num_categories)
{
    LOCKED(cat_info(index, name, name_len, desc, desc_len, num_cvars, num_pvars, num_categories));
}

static int cat_index(const char *name, int *index)
{
    int rc = sync_categories(), at;
    if (rc != MPI_SUCCESS) return rc;
    rc = CALL(category_get_index, name, &at);
    if (rc == MPI_SUCCESS) {
        if (index) *index = map_virtual(&cmap, 0, at);
        return rc;
    }
    if (name && tool_cat >= 0 && strcmp(name, "mpii") == 0) {
        if (index) *index = tool_cat;
        return MPI_SUCCESS;
    }
    return rc == MPII_MPIT_NONE ? rc : MPI_T_ERR_INVALID_NAME;
}
int mpii_mpit_MPI_T_category_get_index(const char *name, int *index)
{
    LOCKED(cat_index(name, index));
}

enum { MEMBERS_CVARS, MEMBERS_PVARS, MEMBERS_CATEGORIES, MEMBERS_EVENTS };

static int members(int index, int len, int *indices, int what)
{
    int rc = sync_categories(), at;
    if (rc != MPI_SUCCESS) return rc;
    int side = map_find(&cmap, index, &at);
    if (side < 0) return MPI_T_ERR_INVALID_INDEX;
    if (side == 1) { /* "mpii" holds the tools' variables and nothing else */
        for (int i = 0; what == MEMBERS_PVARS && indices && i < len && i < nshown; i++)
            indices[i] = map_virtual(&pmap, 1, i);
        return MPI_SUCCESS;
    }
    switch (what) {
    case MEMBERS_CVARS: return CALL(category_get_cvars, at, len, indices);
    case MEMBERS_EVENTS: return CALL(category_get_events, at, len, indices);
    case MEMBERS_PVARS: rc = CALL(category_get_pvars, at, len, indices); break;
    default: rc = CALL(category_get_categories, at, len, indices); break;
    }
    /* the library's indices, as the application sees them */
    for (int i = 0; rc == MPI_SUCCESS && indices && i < len; i++) {
        int v = map_virtual(what == MEMBERS_PVARS ? &pmap : &cmap, 0, indices[i]);
        if (v >= 0) indices[i] = v;
    }
    return rc;
}
int mpii_mpit_MPI_T_category_get_cvars(int index, int len, int indices[])
{
    LOCKED(members(index, len, indices, MEMBERS_CVARS));
}
int mpii_mpit_MPI_T_category_get_pvars(int index, int len, int indices[])
{
    LOCKED(members(index, len, indices, MEMBERS_PVARS));
}
int mpii_mpit_MPI_T_category_get_categories(int index, int len, int indices[])
{
    LOCKED(members(index, len, indices, MEMBERS_CATEGORIES));
}
int mpii_mpit_MPI_T_category_get_events(int index, int len, int indices[])
{
    LOCKED(members(index, len, indices, MEMBERS_EVENTS));
}

static int cat_num_events(int index, int *num)
{
    int rc = sync_categories(), at;
    if (rc != MPI_SUCCESS) return rc;
    switch (map_find(&cmap, index, &at)) {
    case 0: return CALL(category_get_num_events, at, num);
    case 1:
        if (num) *num = 0;
        return MPI_SUCCESS;
    default: return MPI_T_ERR_INVALID_INDEX;
    }
}
int mpii_mpit_MPI_T_category_get_num_events(int index, int *num)
{
    LOCKED(cat_num_events(index, num));
}

static int cat_changed(int *stamp)
{
    int rc = sync_categories(), s = 0;
    if (rc != MPI_SUCCESS) return rc;
    rc = CALL(category_changed, &s);
    if (rc == MPI_SUCCESS && stamp) *stamp = s + tool_stamp;
    return rc;
}
int mpii_mpit_MPI_T_category_changed(int *stamp)
{
    LOCKED(cat_changed(stamp));
}

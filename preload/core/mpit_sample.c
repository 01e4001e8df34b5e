/* `mpii run --pvar NAME…`: the MPI library's own performance variables, sampled on every rank at
 * MPI_Finalize and whenever a tool asks (monitor: at each MPI_T flush). The CLI checked the
 * names with the library beforehand and exports them as MPII_PVARS="a,b,c". After MPI_Init the
 * core opens its own MPI_T session on the library (not through the provider: the application's
 * view is untouched), binds each variable to MPI_COMM_WORLD or to nothing and starts it; each
 * sample is a text section "pvars" of tool 0 in the profile:
 *   {"at":"<label>","vars":[{"name":"…","values":[…]},…]}                                       */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "mpii_env.h"
#include "mpit.h"
#include "mpit_sample.h"
#include "profile_file.h"

enum { K_INT, K_UNSIGNED, K_LONG, K_ULONG, K_LLONG, K_ULLONG, K_COUNT, K_DOUBLE, K_NONE };

typedef struct {
    char name[256];
    MPI_T_pvar_handle handle;
    int count, kind, started;
} sampled_t;

static sampled_t *vars;
static int nvars;
static MPI_T_pvar_session session = MPI_T_PVAR_SESSION_NULL;
static int initialized;
static MPI_Comm world;

static int kind_of(MPI_Datatype t)
{
    if (t == MPI_INT) return K_INT;
    if (t == MPI_UNSIGNED) return K_UNSIGNED;
    if (t == MPI_LONG) return K_LONG;
    if (t == MPI_UNSIGNED_LONG) return K_ULONG;
    if (t == MPI_LONG_LONG) return K_LLONG;
    if (t == MPI_UNSIGNED_LONG_LONG) return K_ULLONG;
    if (t == MPI_COUNT) return K_COUNT;
    if (t == MPI_DOUBLE) return K_DOUBLE;
    return K_NONE;
}

static size_t kind_size(int k)
{
    switch (k) {
    case K_INT:
    case K_UNSIGNED: return sizeof(int);
    case K_LONG:
    case K_ULONG: return sizeof(long);
    case K_COUNT: return sizeof(MPI_Count);
    case K_DOUBLE: return sizeof(double);
    default: return sizeof(long long);
    }
}

/* Only rank 0 complains: every rank would say the same. */
#define COMPLAIN(...)                                \
    do {                                             \
        if (mpii_rank <= 0) mpii_error(__VA_ARGS__); \
    } while (0)

static void add(const mpii_mpit_lib_t *lib, const char *name)
{
    MPI_Datatype type;
    int bind, cont;
    int i = mpii_mpit_lib_pvar(name, &type, &bind, &cont);
    if (i < 0) {
        COMPLAIN("--pvar %s: not offered in this run after MPI_Init (the library drops the variables of "
                 "components it does not use): skipped",
                 name);
        return;
    }
    int kind = kind_of(type);
    if (kind == K_NONE) {
        COMPLAIN("--pvar %s: not a number (mpii samples integer and double variables): skipped", name);
        return;
    }
    void *obj = NULL;
    if (bind == MPI_T_BIND_MPI_COMM) {
        obj = &world; /* a pointer to the handle, as the standard (and both MPIs) want it */
    } else if (bind != MPI_T_BIND_NO_OBJECT) {
        COMPLAIN("--pvar %s: bound to an MPI object other than a communicator: skipped", name);
        return;
    }
    sampled_t s = { .kind = kind };
    snprintf(s.name, sizeof s.name, "%s", name);
    if (lib->pvar_handle_alloc(session, i, obj, &s.handle, &s.count) != MPI_SUCCESS) {
        COMPLAIN("--pvar %s: the library refused a handle: skipped", name);
        return;
    }
    if (!cont && lib->pvar_start(session, s.handle) == MPI_SUCCESS) s.started = 1;
    sampled_t *more = realloc(vars, sizeof *vars * (size_t) (nvars + 1));
    if (!more) return;
    vars = more;
    vars[nvars++] = s;
}

void mpii_pvar_sampling_start(void)
{
    const char *list = getenv(MPII_ENV_PVARS);
    if (!list || !*list || initialized) return;
    const mpii_mpit_lib_t *lib = mpii_mpit_lib();
    if (!lib->init_thread || !lib->pvar_get_info || !lib->pvar_session_create || !lib->pvar_handle_alloc ||
        !lib->pvar_read) {
        COMPLAIN("--pvar: the MPI library has no MPI_T interface: nothing is sampled");
        return;
    }
    int provided;
    if (lib->init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        COMPLAIN("--pvar: MPI_T_init_thread failed: nothing is sampled");
        return;
    }
    initialized = 1;
    world = MPI_COMM_WORLD;
    if (lib->pvar_session_create(&session) != MPI_SUCCESS) {
        COMPLAIN("--pvar: MPI_T_pvar_session_create failed: nothing is sampled");
        return;
    }
    char *names = strdup(list);
    for (char *save = NULL, *tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) add(lib, tok);
    free(names);
}

void mpii_pvar_sample(const char *at)
{
    if (!nvars) return;
    const mpii_mpit_lib_t *lib = mpii_mpit_lib();
    size_t cap = 256, used = 0;
    char *json = malloc(cap);
    if (!json) return;
#define PUT(...)                                                         \
    do {                                                                 \
        int need_ = snprintf(NULL, 0, __VA_ARGS__);                      \
        if (used + (size_t) need_ + 1 > cap) {                           \
            while (used + (size_t) need_ + 1 > cap) cap *= 2;            \
            char *more_ = realloc(json, cap);                            \
            if (!more_) {                                                \
                free(json);                                              \
                return;                                                  \
            }                                                            \
            json = more_;                                                \
        }                                                                \
        used += (size_t) snprintf(json + used, cap - used, __VA_ARGS__); \
    } while (0)
    char *label = malloc(6 * strlen(at ? at : "") + 3);
    if (!label) {
        free(json);
        return;
    }
    mpii_json_string(label, 6 * strlen(at ? at : "") + 3, at ? at : "");
    PUT("{\"at\":%s,\"vars\":[", label);
    free(label);
    for (int i = 0; i < nvars; i++) {
        sampled_t *s = &vars[i];
        int n = s->count > 0 ? s->count : 1;
        void *buf = calloc((size_t) n, kind_size(s->kind));
        if (!buf) continue;
        int rc = lib->pvar_read(session, s->handle, buf);
        PUT("%s{\"name\":\"%s\",", i ? "," : "", s->name);
        if (rc != MPI_SUCCESS) PUT("\"error\":%d}", rc);
        else {
            PUT("\"values\":[");
            for (int k = 0; k < n; k++) {
                const char *sep = k ? "," : "";
                switch (s->kind) {
                case K_INT: PUT("%s%d", sep, ((int *) buf)[k]); break;
                case K_UNSIGNED: PUT("%s%u", sep, ((unsigned *) buf)[k]); break;
                case K_LONG: PUT("%s%ld", sep, ((long *) buf)[k]); break;
                case K_ULONG: PUT("%s%lu", sep, ((unsigned long *) buf)[k]); break;
                case K_LLONG: PUT("%s%lld", sep, ((long long *) buf)[k]); break;
                case K_COUNT: PUT("%s%lld", sep, (long long) ((MPI_Count *) buf)[k]); break;
                case K_DOUBLE: PUT("%s%.17g", sep, ((double *) buf)[k]); break;
                default: PUT("%s%llu", sep, ((unsigned long long *) buf)[k]); break;
                }
            }
            PUT("]}");
        }
        free(buf);
    }
    PUT("]}");
#undef PUT
    mpii_profile_text(0, "pvars", json);
    free(json);
}

void mpii_pvar_sampling_end(void)
{
    if (!initialized) return;
    const mpii_mpit_lib_t *lib = mpii_mpit_lib();
    for (int i = 0; i < nvars; i++) {
        if (vars[i].started) lib->pvar_stop(session, vars[i].handle);
        lib->pvar_handle_free(session, &vars[i].handle);
    }
    free(vars);
    vars = NULL;
    nvars = 0;
    if (session != MPI_T_PVAR_SESSION_NULL) lib->pvar_session_free(&session);
    lib->finalize();
    initialized = 0;
}

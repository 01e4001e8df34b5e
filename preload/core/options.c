/* Per-instance tool options: the CLI exports MPII_OPT_<n>="key=value;key=value" for the n-th tool
 * of TOOLS, which is tool id n unless the library's tool list went on top (dispatch.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "log.h"
#include "mpii_env.h"
#include "mpii_tool.h" /* mpii_tool_option */
#include "options.h"

static int listed_shift;

void mpii_options_shift(int listed)
{
    listed_shift = listed;
}

/* The value of `key` in this instance's MPII_OPT_<id>: a pointer into the environment and its
 * length, or NULL. */
static const char *find(int tool_id, const char *key, size_t *len)
{
    int n = tool_id - listed_shift;
    if (n < 1) return NULL; /* a tool of the library's list: it has no options of mpii's */
    char var[32];
    snprintf(var, sizeof var, MPII_ENV_OPT_PREFIX "%d", n);
    const char *opts = getenv(var);
    size_t klen = strlen(key);
    for (const char *p = opts; p && *p;) {
        const char *end = strchr(p, ';');
        size_t l = end ? (size_t) (end - p) : strlen(p);
        if (l > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
            *len = l - klen - 1;
            return p + klen + 1;
        }
        p = end ? end + 1 : p + l;
    }
    return NULL;
}

const char *mpii_tool_option(int tool_id, const char *key)
{
    static __thread char value[256];
    size_t len;
    const char *v = find(tool_id, key, &len);
    if (!v) return NULL;
    snprintf(value, sizeof value, "%.*s", (int) len, v);
    return value;
}

static double clamp(double x, const mpii_option_spec_t *s)
{
    return x < s->min ? s->min : x > s->max ? s->max : x;
}

/* the same for whole numbers, exact beyond 2^53 */
static long long clamp_int(long long x, const mpii_option_spec_t *s)
{
    if ((double) x < s->min) return (long long) s->min;
    if ((double) x > s->max) return (long long) s->max;
    return x;
}

/* 1 when `text` is a whole value of the option's type (stored into `field`), else 0. */
static int parse(const mpii_option_spec_t *s, const char *text, void *field)
{
    char *end;
    errno = 0;
    switch (s->type) {
    case MPII_OPTION_INT: {
        long long x = strtoll(text, &end, 10);
        if (end == text || *end || errno) return 0;
        *(long long *) field = clamp_int(x, s);
        return 1;
    }
    case MPII_OPTION_NUMBER: {
        double x = strtod(text, &end);
        if (end == text || *end || errno || !isfinite(x)) return 0;
        *(double *) field = clamp(x, s);
        return 1;
    }
    case MPII_OPTION_BOOL: {
        static const char *const yes[] = { "true", "yes", "on", "1" }, *const no[] = { "false", "no", "off", "0" };
        for (int i = 0; i < 4; i++) {
            if (!strcasecmp(text, yes[i])) return *(int *) field = 1, 1;
            if (!strcasecmp(text, no[i])) return *(int *) field = 0, 1;
        }
        return 0;
    }
    case MPII_OPTION_STRING: {
        char *copy = strdup(text);
        if (!copy) return 0;
        *(const char **) field = copy;
        return 1;
    }
    case MPII_OPTION_ENUM:
        for (int i = 0; s->values[i]; i++) {
            if (!strcmp(text, s->values[i])) return *(int *) field = i, 1;
        }
        return 0;
    }
    return 0;
}

void mpii_options_read(int tool_id, const char *tool, const mpii_option_spec_t *spec, size_t n, void *out)
{
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *v = find(tool_id, spec[i].key, &len);
        if (!v) continue;
        char text[4096];
        snprintf(text, sizeof text, "%.*s", (int) len, v);
        if (!parse(&spec[i], text, (char *) out + spec[i].offset)) {
            mpii_error("%s: option %s=%s is not a valid value; the default is used (mpii tools lists the options)",
                       tool, spec[i].key, text);
        }
    }
}

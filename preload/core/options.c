/* Per-instance tool options: the CLI exports MPII_OPT_<tool id>="key=value;key=value". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpii_tool.h"

const char *mpii_tool_option(int tool_id, const char *key)
{
    static __thread char value[256];
    char var[32];
    snprintf(var, sizeof var, "MPII_OPT_%d", tool_id);
    const char *opts = getenv(var);
    size_t klen = strlen(key);
    for (const char *p = opts; p && *p;) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t) (end - p) : strlen(p);
        if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
            snprintf(value, sizeof value, "%.*s", (int) (len - klen - 1), p + klen + 1);
            return value;
        }
        p = end ? end + 1 : p + len;
    }
    return NULL;
}

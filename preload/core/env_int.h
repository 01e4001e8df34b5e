/* How the shim reads an integer variable of the environment (INJ_IGNORE, INJ_DEBUG, the
 * launchers' rank): as strtol base 10 reads it, converted to int, the value read whole; unset,
 * empty or anything else is the fallback. preload/spec/environment.yaml states it, and
 * src/run/env-int.ts is the CLI's copy: test/environment.unit.test.ts runs both on the inputs of
 * preload/spec/env-int.cases (this header through test/programs/env_int.c). */
#ifndef MPII_ENV_INT_H
#define MPII_ENV_INT_H
#include <stdlib.h>

static inline int mpii_env_int_of(const char *v, int fallback)
{
    if (!v || !*v) return fallback;
    char *end;
    long x = strtol(v, &end, 10);
    return *end ? fallback : (int) x;
}

static inline int mpii_env_int(const char *name, int fallback)
{
    return mpii_env_int_of(getenv(name), fallback);
}
#endif

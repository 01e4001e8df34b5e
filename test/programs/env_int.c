/* The shim's reading of an int variable (preload/core/env_int.h) on the command line's values,
 * for test/environment.unit.test.ts: `env_int FALLBACK ARG…` prints one line per ARG, the int
 * `=VALUE` reads as, or the fallback for `unset`. The test compares it with
 * preload/spec/env-int.cases and with the CLI's src/run/env-int.ts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "env_int.h"

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    int fallback = atoi(argv[1]);
    for (int i = 2; i < argc; i++)
        printf("%d\n", mpii_env_int_of(strcmp(argv[i], "unset") == 0 ? NULL : argv[i] + 1, fallback));
    return 0;
}

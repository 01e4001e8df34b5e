/* The shim linked into programs by the MPI compiler wrappers (`mpii install`), launched with a
 * plain mpirun: no `mpii run` set TOOLS or MPII_OUT, so the installed defaults file next to the
 * library provides them, and rank 0 names the output directory after MPI_Init. Also the guard
 * against double injection: a program linked with the shim AND run under `mpii run` (which
 * preloads another copy) must go through the tools once. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mpii_gen.h"
#include "mpii_objects.h"
#include "log.h"
#include "mpii_env.h"
#include "profile_file.h"
#include "site.h"
#include "site_path.h"

/* every copy of the shim exports this; the first one in the search order runs the tools. The
 * comparison uses the local name: a reference to the exported one would bind to the first copy. */
static const char marker[] = "mpii shim";
extern const char mpii_shim_marker[] __attribute__((alias("marker"), visibility("default")));

int mpii_shadowed(void)
{
    static int known = -1;
    if (known < 0) {
        void *first = dlsym(RTLD_DEFAULT, "mpii_shim_marker");
        known = first != NULL && first != (const void *) marker;
    }
    return known;
}

static char out_base[PATH_MAX];
static int site_mode; /* the defaults file supplied the stack: name an output directory ourselves */

/* `mpii-defaults` next to this library (or $MPII_DEFAULTS): KEY=VALUE lines, applied only for keys
 * the environment does not set, so TOOLS=… or INJ_IGNORE=1 on the command line still win. */
void mpii_site_defaults(void)
{
    if (getenv(MPII_ENV_OUT)) return; /* launched by mpii run (or told where to write) */
    /* TOOLS=… mpirun ./app: that stack, without the defaults' options */
    int user_tools = getenv(MPII_ENV_TOOLS) != NULL;
    char path[PATH_MAX];
    const char *file = getenv(MPII_ENV_DEFAULTS);
    if (!file && mpii_site_defaults_path[0]) file = mpii_site_defaults_path;
    if (!file) {
        Dl_info info;
        if (!dladdr((void *) mpii_site_defaults, &info) || !info.dli_fname) return;
        const char *slash = strrchr(info.dli_fname, '/');
        if (!slash) return;
        snprintf(path, sizeof path, "%.*s/mpii-defaults", (int) (slash - info.dli_fname), info.dli_fname);
        file = path;
    }
    FILE *f = fopen(file, "r");
    if (!f) return;
    char line[4096];
    snprintf(out_base, sizeof out_base, "mpii-out");
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *eq = strchr(line, '=');
        if (line[0] == '#' || !eq) continue;
        *eq = 0;
        if (strcmp(line, MPII_ENV_OUT_BASE) == 0) snprintf(out_base, sizeof out_base, "%s", eq + 1);
        else if (!(user_tools && strncmp(line, MPII_ENV_OPT_PREFIX, sizeof MPII_ENV_OPT_PREFIX - 1) == 0))
            setenv(line, eq + 1, 0);
    }
    fclose(f);
    site_mode = getenv(MPII_ENV_TOOLS) != NULL;
}

/* After MPI_Init: rank 0 picks <base>/<program>-<time>-<pid> and every rank writes its live
 * profile there (the same layout as `mpii run --out`). */
int mpii_site_mode(void)
{
    return site_mode;
}

void mpii_site_out_dir(int enabled)
{
    if (!enabled) return; /* rank 0's site mode decides, so the broadcast below is collective */
    char dir[PATH_MAX] = "";
    if (mpii_rank == 0) {
        char stamp[32];
        time_t t = time(NULL);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&t));
        char cwd[PATH_MAX] = ".";
        if (out_base[0] != '/' && !getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, ".");
        snprintf(dir, sizeof dir, "%s%s%s/%s-%s-%d", out_base[0] == '/' ? "" : cwd, out_base[0] == '/' ? "" : "/",
                 out_base, program_invocation_short_name, stamp, (int) getpid());
    }
    MPII_PMPI(MPI_Bcast, MPI_BCAST_T)(dir, (int) sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    mpii_profile_attach_dir(dir);
    if (mpii_rank == 0) {
        char msg[PATH_MAX + 64];
        int n = snprintf(msg, sizeof msg, "mpii: profile in %s (mpii report DIR)\n", dir);
        ssize_t w = write(2, msg, (size_t) n);
        (void) w;
    }
}

/* The rank, logging and errors, and the tools' decision clock (log.h). Kept out of init.c so that
 * every module can log without depending on the module that starts the stack. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "log.h"
#include "mpii_env.h" /* MPII_ENV_CLOCK */
#include "util.h"     /* mpii_now_ns */

int mpii_active;
int mpii_debug_rank = -1;
int mpii_rank = -1, mpii_size = -1;
uint64_t (*mpii_python_site)(uint64_t return_address);
__thread int mpii_init_thread;

int mpii_debug_here(void)
{
    return mpii_debug_rank == -2 || (mpii_debug_rank >= 0 && mpii_debug_rank == mpii_rank);
}

static void vprint(const char *fmt, va_list ap)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "MPII %d: ", mpii_rank);
    vsnprintf(line + n, sizeof line - (size_t) n, fmt, ap);
    size_t len = strlen(line);
    if (len < sizeof line - 1) line[len++] = '\n';
    /* one write per line so ranks do not interleave mid-line */
    ssize_t w = write(2, line, len);
    (void) w;
}

void mpii_log(const char *fmt, ...)
{
    if (!mpii_debug_here()) return;
    va_list ap;
    va_start(ap, fmt);
    vprint(fmt, ap);
    va_end(ap);
}

void mpii_debug(const char *fmt, ...) __attribute__((alias("mpii_log")));

void mpii_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint(fmt, ap);
    va_end(ap);
}

int mpii_world_rank(void)
{
    return mpii_rank;
}

void mpii_missing(const char *name)
{
    mpii_error("%s is not provided by the MPI library below the shim (is the program an MPI program, "
               "and was the shim built for the same MPI?)",
               name);
    abort();
}

static uint64_t frozen_ns(void)
{
    return 1000000000u;
}

uint64_t (*mpii_decision_clock(void))(void)
{
    const char *clock = getenv(MPII_ENV_CLOCK);
    return clock && !strcmp(clock, "frozen") ? frozen_ns : mpii_now_ns;
}

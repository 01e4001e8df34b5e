/* Start and end of the stack: INJ_IGNORE / INJ_DEBUG, the consensus after MPI_Init, the hooks
 * the generated MPI_Init / MPI_Finalize / MPI_Abort wrappers call. Nothing here runs in a
 * process that never calls MPI_Init (mpirun, orted, hydra proxies, shells). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpii_gen.h"
#include "mpii_objects.h"
#include "dispatch.h"
#include "env_int.h"
#include "init.h"
#include "library_tools.h"
#include "log.h"
#include "mpii_env.h"
#include "mpit_sample.h"
#include "profile_file.h"
#include "site.h"

static int ignore_flag;
static int stack_built;

/* The launcher tells each process its rank before MPI_Init; use it for early messages. */
static int launcher_rank(void)
{
    static const char *vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", NULL };
    for (int i = 0; vars[i]; i++) {
        int r = mpii_env_int(vars[i], -1);
        if (r >= 0) return r;
    }
    return -1;
}

/* A Python rank: load the call-site helper mpii run built for this interpreter (MPII_PYSITE). Only
 * where the interpreter's API is in the process: a C rank of the same job ignores the variable. */
static void python_sites(void)
{
    const char *helper = getenv(MPII_ENV_PYSITE);
    if (!helper || !*helper) return;
    int (*initialized)(void) = (int (*)(void)) dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    if (!initialized || !initialized()) return;
    void *h = dlopen(helper, RTLD_NOW | RTLD_LOCAL);
    void *fn = h ? dlsym(h, "mpii_pysite") : NULL;
    if (!fn) {
        mpii_error("Python call sites are off: cannot load %s (%s); sites show mpi4py's C frames", helper,
                   h ? "no mpii_pysite in it" : dlerror());
        return;
    }
    const char *kind = dlsym(h, "mpii_pysite_kind");
    mpii_log("Python call sites from %s (%s)", helper, kind ? kind : "?");
    mpii_python_site = (uint64_t(*)(uint64_t)) fn;
}

static void start_stack(void)
{
    python_sites();
    mpii_profile_begin(getenv(MPII_ENV_OUT));
    const char *tools = getenv(MPII_ENV_TOOLS);
    const char *listed_var = NULL;
    const char *listed = mpii_library_tools_list(&listed_var);
    if (mpii_build_stack(tools, listed, listed_var) != 0) {
        mpii_error(
            "fix the tool stack (" MPII_ENV_TOOLS "=%s%s%s%s%s) or set " MPII_ENV_INJ_IGNORE "=1 to run without tools",
            tools ? tools : "", listed ? ", " : "", listed ? listed_var : "", listed ? "=" : "", listed ? listed : "");
        exit(2);
    }
    stack_built = 1;
    mpii_active = 1;
}

/* Before the real MPI_Init: build the stack so the tools' MPI_Init wrappers run. The local
 * INJ_IGNORE decides for now; rank 0's value is applied right after the real init. */
void mpii_before_init(void)
{
    static int done;
    if (done) return;
    done = 1;
    if (mpii_shadowed()) return; /* another copy of the shim, earlier in the search order, runs the tools */
    mpii_resolve_all();
    mpii_rank = launcher_rank();
    mpii_debug_rank = mpii_env_int(MPII_ENV_INJ_DEBUG, MPII_ENV_INJ_DEBUG_DEFAULT);
    ignore_flag = mpii_env_int(MPII_ENV_INJ_IGNORE, MPII_ENV_INJ_IGNORE_DEFAULT) != 0;
    mpii_site_defaults(); /* linked in by the MPI wrappers and run by plain mpirun: installed defaults */
    mpii_library_tools_log();
    if (!ignore_flag) start_stack();
}

/* A job started by MPI_Comm_spawn (it has a parent): the name of its profile's directory under
 * the run's, chosen by its rank 0 and the same on all its ranks (all are in MPI_Init now). NULL
 * for the job mpii run started. */
static const char *spawned_job_dir(void)
{
    static char name[96];
    MPI_Comm parent = MPI_COMM_NULL;
    MPII_PMPI(MPI_Comm_get_parent, MPI_COMM_GET_PARENT_T)(&parent);
    if (parent == MPI_COMM_NULL) return NULL;
    if (mpii_rank == 0) {
        char host[64] = "";
        gethostname(host, sizeof host - 1);
        snprintf(name, sizeof name, "spawned-%s-%d", host, (int) getpid());
    }
    MPII_PMPI(MPI_Bcast, MPI_BCAST_T)(name, (int) sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
    return name;
}

/* The library's tool list went to this rank's stack or to the library by this rank's INJ_IGNORE,
 * before the library's init: rank 0's value cannot move it now. Running them in neither place on
 * some ranks, or in both kinds of places in one job, would be wrong: stop the job, say why. */
static void listed_owner_agrees(int ignore_decided)
{
    enum mpii_listed_owner owner = mpii_library_tools_owner();
    if (owner == MPII_LISTED_NONE || (owner == MPII_LISTED_LIBRARY) == (ignore_decided != 0)) return;
    mpii_error(MPII_ENV_INJ_IGNORE
               " differs between rank 0 and rank %d, whose QMPI tool list already went to %s: set " MPII_ENV_INJ_IGNORE
               " the same on every rank",
               mpii_rank, owner == MPII_LISTED_LIBRARY ? "the MPI library" : "mpii's stack");
    MPII_PMPI(MPI_Abort, MPI_ABORT_T)(MPI_COMM_WORLD, 2);
}

/* The original design's banner, on every rank that has debug output on. */
static void banner(const char *what)
{
    if (!mpii_debug_here()) return;
    char line[128];
    int n = snprintf(line, sizeof line, "MPII Init (debug %d, ignore %d) rank %d%s\n", mpii_debug_rank, ignore_flag,
                     mpii_rank, what);
    ssize_t w = write(2, line, (size_t) n);
    (void) w;
}

void mpii_after_init(int rc, int session)
{
    static int done;
    if (rc != MPI_SUCCESS || done || mpii_shadowed()) return;
    done = 1;
    mpii_init_thread = 1;
    if (session) {
        /* MPI-4 sessions have no MPI_COMM_WORLD: no consensus, no gathered profile; per-rank
         * files keep what the tools record. */
        mpii_profile_started(NULL);
        banner(" session");
        return;
    }
    MPII_PMPI(MPI_Comm_rank, MPI_COMM_RANK_T)(MPI_COMM_WORLD, &mpii_rank);
    MPII_PMPI(MPI_Comm_size, MPI_COMM_SIZE_T)(MPI_COMM_WORLD, &mpii_size);
    /* Rank 0's INJ_IGNORE and INJ_DEBUG win, so every rank behaves the same way. */
    int decided[3] = { ignore_flag, mpii_debug_rank, mpii_site_mode() };
    MPII_PMPI(MPI_Bcast, MPI_BCAST_T)(decided, 3, MPI_INT, 0, MPI_COMM_WORLD);
    mpii_debug_rank = decided[1];
    listed_owner_agrees(decided[0]);
    if (decided[0] && stack_built) {
        mpii_disable_stack();
        mpii_active = 0;
    } else if (!decided[0] && !stack_built) {
        start_stack(); /* this rank had INJ_IGNORE set, rank 0 did not: tools start after init */
    }
    ignore_flag = decided[0];
    if (mpii_active) mpii_profile_started(spawned_job_dir());
    mpii_site_out_dir(decided[2] && !decided[0]); /* collective: every rank or none */
    if (mpii_active) mpii_pvar_sampling_start();  /* mpii run --pvar */
    banner("");
}

void mpii_before_finalize(void)
{
    if (!mpii_active) return;
    mpii_pvar_sample("finalize");
    mpii_pvar_sampling_end();
    mpii_log("finalize: writing the profile");
    mpii_profile_finish();
}

void mpii_after_finalize(void)
{
    if (!mpii_active) return;
    mpii_disable_stack();
    mpii_active = 0;
}

void mpii_on_abort(void)
{
    if (mpii_active) mpii_profile_mark_aborted();
}

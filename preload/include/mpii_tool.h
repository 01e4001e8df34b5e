/* mpii's additions to the MPICH QMPI API, for tools that want the core's services.
 * A tool written only against QMPI needs none of this; these let a tool hand results to the
 * run's profile (which survives crashes) and read its options from the mpii configuration. */
#ifndef MPII_TOOL_H
#define MPII_TOOL_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Zeroed counters that live in this rank's profile file from the moment they are asked for:
 * whatever the tool counts there is kept even when the job is killed. `labels` names the
 * elements, one per line (may be NULL). Call from the tool's init function or later. */
uint64_t *mpii_profile_counters(int tool_id, const char *section, size_t n, const char *labels);

/* A text (JSON) block for the profile, typically written from the tool's MPI_Finalize wrapper. */
int mpii_profile_text(int tool_id, const char *section, const char *text);

/* A moment on this rank's timeline (the report draws them against the time since MPI_Init): the
 * core keeps the first MPII_EVENTS_KEPT events per rank in the profile with their time
 * (CLOCK_MONOTONIC), `value` and up to 39 bytes of `name` (NULL: none), and counts the ones
 * after. No allocation, no lock (safe from any thread); a clock read and a few stores, meant for
 * rare moments (MPI_Pcontrol, an MPI_T phase), not per MPI call. Kinds 1-15 are mpii's (below);
 * a tool's own start at 16. */
enum {
    MPII_EVENT_PCONTROL = 1,    /* MPI_Pcontrol(value) (the profile tool) */
    MPII_EVENT_PHASE_START = 2, /* an MPI_T monitoring phase starts: a flush handle was started */
    MPII_EVENT_PHASE_END = 3,   /* it ends: the handle was stopped; value 1 when it wrote `name`.<rank>.prof */
    MPII_EVENT_USER = 16
};
#define MPII_EVENTS_KEPT 256
void mpii_profile_event(int tool_id, unsigned kind, int64_t value, const char *name);

/* The value of option `key` given to this tool instance in the mpii configuration, or NULL. */
const char *mpii_tool_option(int tool_id, const char *key);

/* Debug output that follows INJ_DEBUG, prefixed "MPII <rank>". */
void mpii_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* MPI_COMM_WORLD rank (the launcher's rank before MPI_Init, -1 if unknown). */
int mpii_world_rank(void);


/* ---- MPI_T performance variables (preload/core/mpit.c) ----
 * The shim answers the application's MPI_T calls itself: the MPI library's performance
 * variables keep their indices, and the variables tools publish here follow them, in the
 * category "mpii". Any MPI_T client in the program (its own code, a tool) sees both. Register
 * from the tool's init function or later (a variable registered late gets the next free index;
 * indices never change). Names should start with "mpii_<tool>_". */

/* element type of a variable's value */
enum { MPII_PVAR_U64, MPII_PVAR_DOUBLE, MPII_PVAR_CHAR };

#define MPII_PVAR_READONLY 1   /* cannot be written or reset */
#define MPII_PVAR_CONTINUOUS 2 /* always active: handles cannot be started or stopped */
#define MPII_PVAR_OWN_STATE \
    4                              /* the tool keeps the variable's state (notify + read give the
                                    * value); otherwise the core keeps each handle's own count:
                                    * for COUNTER, AGGREGATE and TIMER classes a handle shows what
                                    * accrued while it was started since its last reset or write */
#define MPII_PVAR_UNLESS_LIBRARY 8 /* hidden when the MPI library has a variable of this name */

/* events a variable's notify function gets */
enum { MPII_PVAR_BIND, MPII_PVAR_UNBIND, MPII_PVAR_START, MPII_PVAR_STOP, MPII_PVAR_RESET };

typedef struct mpii_pvar {
    const char *name;
    const char *desc;
    int var_class; /* MPI_T_PVAR_CLASS_* of this MPI */
    int type;      /* MPII_PVAR_U64 (MPI_UNSIGNED_LONG), _DOUBLE (MPI_DOUBLE), _CHAR (MPI_CHAR) */
    int bind;      /* MPI_T_BIND_NO_OBJECT (or 0) or MPI_T_BIND_MPI_COMM */
    int verbosity; /* MPI_T_VERBOSITY_*; 0: user basic */
    int flags;     /* MPII_PVAR_* */
    /* `obj` is a `const MPI_Comm *` for communicator-bound variables, else NULL */
    int (*count)(const struct mpii_pvar *v, const void *obj); /* elements; NULL: 1; < 0: cannot bind */
    int (*read)(const struct mpii_pvar *v, const void *obj, void *buf, int count);        /* current value */
    int (*write)(const struct mpii_pvar *v, const void *obj, const void *buf, int count); /* optional */
    int (*notify)(const struct mpii_pvar *v, const void *obj, int event); /* optional; MPI_T error or 0 */
    void *data;                                                           /* for the callbacks */
} mpii_pvar_t;

/* Publish one variable (copied; the strings too). 0, or -1 when `var` is unusable. */
int mpii_pvar_register(const mpii_pvar_t *var);

/* Publish n counters as variables of class COUNTER: variable i is `<prefix><label i>` (labels one
 * per line as for mpii_profile_counters, lower-cased, other characters turned into '_'), its
 * description `<desc_prefix><label i>`, its value values[i]. Returns how many were published. */
int mpii_pvar_counters(const char *prefix, const char *desc_prefix, const uint64_t *values, size_t n,
                       const char *labels);

/* Sample the MPI library's variables named with `mpii run --pvar` now, into the profile, under
 * the label `at` (the core does it at MPI_Finalize; monitor at each MPI_T flush). */
void mpii_pvar_sample(const char *at);

#ifdef __cplusplus
}
#endif
#endif

/* profile: the layout of the tool's data in the rank's profile (read by preload/tools/profile/report/data.ts).
 *   section "clock"    PF_CLOCK_FIELDS values (labels PF_CLOCK_LABELS): the timer, the
 *                      application's start and end, a calibration pair, Pcontrol state;
 *   section "sites"    a hash table of call sites, one row per (MPI function, calling address[es]):
 *                      the function id + 1 (0 = empty row), `depth` addresses, then PF_NFIELDS
 *                      statistics; the labels name every field of a row, so the reader knows the
 *                      row length and the depth;
 *   section "overflow" one row of PF_NFIELDS per function id: calls that found the table full;
 *   text "function"    "<id> <name>" of each MPI function with a row, written with its first row;
 *   text "module"      one per loaded object that holds a call site: "<start> <end> <bias> <path>"
 *                      (hex addresses of its code, load bias), written when its first site is
 *                      seen, so even a crashed job's addresses can be turned into file:line.
 * Times are in ticks of the timer (TSC cycles, or nanoseconds of CLOCK_MONOTONIC). With option
 * sample=N > 1 a site's first PF_ALWAYS_TIMED calls are timed, then one in N on average: the
 * reader adds the first calls' ticks (PF_TICKS_FIRST) to the later timed calls' ticks scaled by
 * later calls / later timed calls (a first call that sets up a connection is not multiplied). */
#ifndef MPII_PROFILE_H
#define MPII_PROFILE_H

enum {
    PF_COUNT,     /* calls */
    PF_TICKS,     /* time inside the call, summed */
    PF_TMIN,      /* shortest call (UINT64_MAX until the first one) */
    PF_TMAX,      /* longest call */
    PF_SENT,      /* bytes handed to MPI to send */
    PF_RECV,      /* bytes of the receive buffers MPI filled (posted sizes) */
    PF_SMIN,      /* smallest sent + received bytes of one call (UINT64_MAX: none) */
    PF_SMAX,      /* largest */
    PF_TIMED,     /* calls that were timed: PF_TICKS, PF_TMIN and PF_TMAX are theirs */
    PF_GAP,       /* calls until the next timed one (the tool's countdown; on the fast path the
                   * latest site of each function counts down in the tool's memory instead) */
    PF_TICKS_FIRST, /* the part of PF_TICKS of the site's first PF_ALWAYS_TIMED calls */
    PF_NFIELDS
};
#define PF_FIELD_LABELS "count\nticks\nticks_min\nticks_max\nbytes_sent\nbytes_recv\nsize_min\nsize_max\ntimed\ngap\nticks_first"

enum {
    PF_TIMER,       /* 1 = TSC, 2 = CLOCK_MONOTONIC nanoseconds */
    PF_T0_TICKS,    /* MPI_Init returned */
    PF_T0_NS,
    PF_CAL_TICKS,   /* a millisecond later: the tick rate of a run that never finishes */
    PF_CAL_NS,
    PF_END_TICKS,   /* MPI_Finalize entered (0 while running) */
    PF_END_NS,
    PF_LAST_TICKS,  /* the end of the latest timed MPI call: the end of a crashed run */
    PF_ON_TICKS,    /* time with recording on, closed intervals */
    PF_ON_SINCE,    /* start of the open interval, 0 while recording is off */
    PF_PCONTROL,    /* MPI_Pcontrol calls */
    PF_DEPTH,       /* call-site stack depth */
    PF_CAPACITY,    /* rows of the sites table */
    PF_CLOCK_FIELDS
};
#define PF_CLOCK_LABELS \
    "timer\nt0_ticks\nt0_ns\ncal_ticks\ncal_ns\nend_ticks\nend_ns\nlast_ticks\non_ticks\non_since\npcontrol\ndepth\ncapacity"

#define PF_MAX_DEPTH MPII_PROFILE_DEPTH_MAX /* option depth's max (tool.yaml) */
#define PF_ALWAYS_TIMED 64
#endif

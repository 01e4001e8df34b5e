/* Generated from preload/tools/profile/blocks.yaml by `npm run gen` (src/gen/profile-emit.ts): do not edit; change the YAML and run it (docs/profile-file.md). */

#ifndef MPII_PROFILE_BLOCKS_H
#define MPII_PROFILE_BLOCKS_H

#define PF_MAX_DEPTH 8 /* deepest call-site stack (option depth) */
#define PF_ALWAYS_TIMED 64 /* a site's first calls, all timed (option sample: the later ones one in N) */
#define PF_DENSE_TIMED 1024 /* a site's later calls timed one in N until this many were; from then one in PF_SPARSE_FACTOR x N */
#define PF_SPARSE_FACTOR 16 /* how much rarer a hot site's timed calls become past its PF_DENSE_TIMED later timed ones */
#define PF_RESUME_CALLS 65536 /* calls of MPI_Init's thread alone, after another thread's, that bring the fast path back */

/* block "clock" (counters): the timer, the application's start and end, a calibration pair, Pcontrol state */
enum {
    PF_TIMER = 0, /* 1 = TSC, 2 = CLOCK_MONOTONIC nanoseconds */
    PF_T0_TICKS = 1, /* MPI_Init returned */
    PF_T0_NS = 2,
    PF_CAL_TICKS = 3, /* a millisecond later: the tick rate of a run that never finishes */
    PF_CAL_NS = 4,
    PF_END_TICKS = 5, /* MPI_Finalize entered (0 while running) */
    PF_END_NS = 6,
    PF_LAST_TICKS = 7, /* the end of the latest timed MPI call: the end of a crashed run */
    PF_ON_TICKS = 8, /* time with recording on, closed intervals */
    PF_ON_SINCE = 9, /* start of the open interval, 0 while recording is off */
    PF_PCONTROL = 10, /* MPI_Pcontrol calls */
    PF_DEPTH = 11, /* call-site stack depth */
    PF_CAPACITY = 12, /* rows of the sites table */
    PF_JOINS = 13, /* times a thread other than MPI_Init's called MPI while the fast path was on: the general path, locked, from then */
    PF_RESUMES = 14, /* times MPI_Init's thread made PF_RESUME_CALLS calls with no other thread's between them: back to the fast path */
    PF_CLOCK_FIELDS = 15
};
#define PF_CLOCK_LABELS \
    "timer\n" \
    "t0_ticks\n" \
    "t0_ns\n" \
    "cal_ticks\n" \
    "cal_ns\n" \
    "end_ticks\n" \
    "end_ns\n" \
    "last_ticks\n" \
    "on_ticks\n" \
    "on_since\n" \
    "pcontrol\n" \
    "depth\n" \
    "capacity\n" \
    "joins\n" \
    "resumes"

/* block "overflow" (counters): one row of statistics per MPI function id: calls that found the sites table full. The same statistics end each row of "sites". With option sample=N > 1 a site's first PF_ALWAYS_TIMED calls are timed, then one in N on average, and past its PF_DENSE_TIMED later timed calls one in PF_SPARSE_FACTOR x N: the reader adds the first calls' ticks (ticks_first) to each stretch's timed ticks scaled by that stretch's calls / its timed calls (the dense stretch ends at dense_calls with dense_ticks; the sparse one is the rest) */
enum {
    PF_COUNT = 0, /* calls */
    PF_TICKS = 1, /* time inside the call, summed */
    PF_TMIN = 2, /* shortest call (UINT64_MAX until the first one) */
    PF_TMAX = 3, /* longest call */
    PF_SENT = 4, /* bytes handed to MPI to send */
    PF_RECV = 5, /* bytes of the receive buffers MPI filled (posted sizes) */
    PF_SMIN = 6, /* smallest sent + received bytes of one call (UINT64_MAX: none) */
    PF_SMAX = 7, /* largest */
    PF_TIMED = 8, /* calls that were timed: ticks, ticks_min and ticks_max are theirs */
    PF_GAP = 9, /* calls until the next timed one (the tool's countdown) */
    PF_TICKS_FIRST = 10, /* the part of ticks of the site's first PF_ALWAYS_TIMED calls */
    PF_DENSE_CALLS = 11, /* the site's calls when its PF_DENSE_TIMED-th later call was timed (0 until then): the end of the stretch timed one in N */
    PF_DENSE_TICKS = 12, /* the ticks of that stretch's timed calls (ticks_first not included) */
    PF_NFIELDS = 13
};
#define PF_FIELD_LABELS \
    "count\n" \
    "ticks\n" \
    "ticks_min\n" \
    "ticks_max\n" \
    "bytes_sent\n" \
    "bytes_recv\n" \
    "size_min\n" \
    "size_max\n" \
    "timed\n" \
    "gap\n" \
    "ticks_first\n" \
    "dense_calls\n" \
    "dense_ticks"

#endif

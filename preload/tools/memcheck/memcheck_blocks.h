/* Generated from preload/tools/memcheck/blocks.yaml by `npm run gen` (src/gen/profile-emit.ts): do not edit; change the YAML and run it (docs/profile-file.md). */

#ifndef MPII_MEMCHECK_BLOCKS_H
#define MPII_MEMCHECK_BLOCKS_H

#define MC_MAX_FINDINGS 256 /* rows of the findings table */
#define MC_FRAMES 16 /* return addresses kept per finding */

/* block "findings" (counters): MC_MAX_FINDINGS rows, filled in order (a row with count 0 ends them), one per (kind, call site, instruction); addresses are raw: "objects" maps them to files and load biases */
enum {
    F_KIND = 0, /* index into the labels of "by kind" */
    F_COUNT = 1, /* occurrences */
    F_SITE = 2, /* return address of the MPI call that owns the buffer (0: unknown) */
    F_PC = 3, /* the faulting instruction (0: no access, e.g. an overrun found at the call) */
    F_ADDR = 4, /* the address touched */
    F_BASE = 5, /* the buffer's start */
    F_LEN = 6, /* the buffer's bytes */
    F_BYTES = 7, /* bytes concerned (never read, past the end) */
    F_ACCESS = 8, /* 1 write, 0 read, -1 unknown */
    F_NFRAMES = 9, /* frames stored */
    F_FN = 10, /* the MPI function, NUL-terminated */
    F_FRAMES = 14, /* return addresses, innermost first */
    MC_FIELDS = 30
};

/* block "by kind" (counters): occurrences per kind of finding */
enum {
    MC_WRITE_PENDING_SEND = 0, /* E5: write to the buffer of a pending send / persistent send */
    MC_READ_PENDING_SEND = 1, /* E6 (strict): read of a pending send buffer */
    MC_WRITE_PENDING_RECV = 2, /* E5: write to a pending receive buffer */
    MC_READ_PENDING_RECV = 3, /* read of a pending receive buffer (its contents are undefined) */
    MC_WRITE_RMA_ORIGIN = 4, /* E8: write to a Put/Accumulate origin before the synchronisation */
    MC_READ_RMA_ORIGIN = 5, /* E8 (strict): read of it */
    MC_ACCESS_RMA_RESULT = 6, /* E9: access to a Get / Get_accumulate result buffer before it */
    MC_SEND_OVERRUN = 7, /* E1: the send extent runs past the end of its allocation */
    MC_RECV_OVERRUN = 8, /* E2: the receive extent does */
    MC_WRITE_BEFORE_READ = 9, /* E7: received data overwritten before it was read (bytes overwritten) */
    MC_UNREAD = 10, /* E10: received data never read (bytes) */
    MC_FREE_PENDING = 11, /* free()/realloc() of memory MPI still owns */
    MC_SYSCALL_PENDING = 12, /* a system call (read, write, …) on memory MPI still owns */
    MC_UNREAD_OVERWRITTEN = 13, /* E10: received data the library overwrote with a later message before the program read it (bytes) */
    MC_RECV_PENDING = 14, /* a receive into the buffer of a pending operation (a send's, another receive's, a one-sided origin or result) */
    MC_KINDS = 15
};
#define MC_KIND_LABELS \
    "write to a pending send buffer\n" \
    "read of a pending send buffer (strict)\n" \
    "write to a pending receive buffer\n" \
    "read of a pending receive buffer\n" \
    "write to a pending RMA origin buffer\n" \
    "read of a pending RMA origin buffer (strict)\n" \
    "access to a pending RMA result buffer\n" \
    "send buffer overrun\n" \
    "receive buffer overrun\n" \
    "write before read of received data\n" \
    "received data never read\n" \
    "free of memory MPI still owns\n" \
    "system call on memory MPI still owns\n" \
    "received data never read, overwritten by a later receive\n" \
    "receive into memory MPI still owns"
/* the class of each field of "by kind", in order: error, hint */
enum { MC_CLASS_ERROR = 0, MC_CLASS_HINT = 1 };
#define MC_KIND_CLASSES { MC_CLASS_ERROR, MC_CLASS_ERROR, MC_CLASS_ERROR, MC_CLASS_ERROR, MC_CLASS_ERROR, MC_CLASS_ERROR, MC_CLASS_ERROR, MC_CLASS_ERROR, MC_CLASS_ERROR, MC_CLASS_HINT, MC_CLASS_HINT, MC_CLASS_ERROR, MC_CLASS_ERROR, MC_CLASS_HINT, MC_CLASS_ERROR }

/* block "stats" (counters): what memcheck did */
enum {
    MS_CHECKED = 0,
    MS_UNCHECKED_HEAP = 1,
    MS_UNCHECKED_TYPE = 2,
    MS_UNCHECKED_GUARD = 3,
    MS_GUARDS = 4,
    MS_FAULTS = 5,
    MS_STEPS = 6,
    MS_LIFTS = 7,
    MS_TRACKED = 8,
    MS_TRACK_SKIPPED = 9,
    MS_UNREAD_BYTES = 10,
    MS_FINDINGS = 11,
    MS_FREED_ACTIVE = 12,
    MS_TABLE_FULL = 13,
    MS_PENDING_SKIPPED = 14,
    MS_READABLE_FOR_SENDS = 15,
    MS_UNWATCHED_SEND_PAGES = 16,
    MS_SENDS_FOLLOWED = 17,
    MS_LIBRARY_FAULTS = 18,
    MS_LIBRARY_THREAD = 19,
    MS_GIVEN_UP_LIFTS = 20,
    MS_COUNT = 21
};
#define MC_STAT_LABELS \
    "buffers checked\n" \
    "unchecked: not on the page-exclusive heap\n" \
    "unchecked: unknown datatype extent\n" \
    "unchecked: page protection refused\n" \
    "guards set\n" \
    "faults\n" \
    "steps over shared pages\n" \
    "lifts around MPI calls\n" \
    "receives tracked after completion\n" \
    "receives not tracked (sampling)\n" \
    "bytes received and never read\n" \
    "findings\n" \
    "requests freed while active\n" \
    "requests untracked: table full\n" \
    "pending operations not checked (sampling)\n" \
    "receive guards read-only (page shared with a pending send)\n" \
    "receives not watched (pages shared with a pending send)\n" \
    "large sends followed unguarded (not sampled)\n" \
    "the library's accesses to watched memory (in MPI calls, or its own code outside them)\n" \
    "the library's accesses on its own threads (judged at the next MPI call)\n" \
    "RMA guards given up (held across 64 MPI calls in one epoch)"

#endif

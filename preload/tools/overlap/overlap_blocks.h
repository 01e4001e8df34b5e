/* Generated from preload/tools/overlap/blocks.yaml by `npm run gen` (src/gen/profile-emit.ts): do not edit; change the YAML and run it (docs/profile-file.md). */

#ifndef MPII_OVERLAP_BLOCKS_H
#define MPII_OVERLAP_BLOCKS_H

/* block "stats" (counters): what was converted, what passed through and why, what made background requests wait, and how long */
enum {
    ST_SENDS = 0,
    ST_RECVS = 1,
    ST_SENDRECVS = 2,
    ST_BYTES_SENT = 3,
    ST_BYTES_RECEIVED = 4,
    ST_PASS_BUFFER = 5,
    ST_PASS_WILDCARD = 6,
    ST_PASS_LARGE = 7,
    ST_PASS_ADAPTIVE = 8,
    ST_PASS_EXPLORE = 9,
    ST_PASS_GUARD = 10,
    ST_FAULTS = 11,
    ST_WAIT_FAULT = 12,
    ST_WAIT_OVERLAP = 13,
    ST_WAIT_STATUS = 14,
    ST_WAIT_ACCESS = 15,
    ST_WAIT_MPI = 16,
    ST_WAIT_CHAIN = 17,
    ST_WAIT_FREE = 18,
    ST_WAIT_FINALIZE = 19,
    ST_WAIT_FULL = 20,
    ST_WAIT_NS = 21,
    ST_CHAIN_RECORDS = 22,
    ST_CHAIN_ENDS = 23,
    ST_CHAIN_PROBES = 24,
    ST_SITES = 25,
    ST_SITES_OFF = 26,
    ST_DECISIONS = 27,
    ST_SITES_UNHIDDEN = 28,
    ST_CHAIN_ENDS_SKIPPED = 29,
    ST_CHECKED = 30,
    ST_SITES_RECHECKED = 31,
    ST_COUNT = 32
};
#define OV_STAT_LABELS \
    "sends converted\n" \
    "receives converted\n" \
    "sendrecvs converted\n" \
    "bytes sent\n" \
    "bytes received\n" \
    "passed: buffer not on the page-exclusive heap\n" \
    "passed: wildcard receive\n" \
    "passed: larger than max-bytes\n" \
    "passed: adaptive, site decided plain\n" \
    "passed: adaptive, plain turn while exploring\n" \
    "passed: page protection refused\n" \
    "faults\n" \
    "waits: fault\n" \
    "waits: element overlap\n" \
    "waits: status read\n" \
    "waits: system call\n" \
    "waits: other MPI call\n" \
    "waits: chain end\n" \
    "waits: free/realloc\n" \
    "waits: finalize\n" \
    "waits: no free slot\n" \
    "wait time ns\n" \
    "chain records\n" \
    "chain ends learned\n" \
    "chain probes\n" \
    "call sites\n" \
    "call sites decided plain\n" \
    "adaptive decisions\n" \
    "call sites given up: nothing to hide behind\n" \
    "chain ends not waited at: computation follows\n" \
    "calls checked\n" \
    "call sites in doubt explored again once the others had decided"

#endif

/* overlap's modes and statistics, without MPI (adaptive.c and its unit test include only this). */
#ifndef MPII_OVERLAP_STATS_H
#define MPII_OVERLAP_STATS_H
#include <stdint.h>

enum { OV_PAGING, OV_CHAINING, OV_ADAPTIVE };

/* Statistics, in the rank's profile (section "stats"); OV_STAT_LABELS names them in order. */
enum {
    ST_SENDS, ST_RECVS, ST_SENDRECVS, ST_BYTES_SENT, ST_BYTES_RECEIVED,
    ST_PASS_BUFFER, ST_PASS_WILDCARD, ST_PASS_LARGE, ST_PASS_ADAPTIVE, ST_PASS_GUARD,
    ST_FAULTS, ST_WAIT_FAULT, ST_WAIT_OVERLAP, ST_WAIT_STATUS, ST_WAIT_ACCESS, ST_WAIT_MPI,
    ST_WAIT_CHAIN, ST_WAIT_FREE, ST_WAIT_FINALIZE, ST_WAIT_FULL, ST_WAIT_NS,
    ST_CHAIN_RECORDS, ST_CHAIN_ENDS, ST_CHAIN_PROBES, ST_SITES, ST_SITES_OFF, ST_DECISIONS,
    ST_SITES_UNHIDDEN, ST_CHAIN_ENDS_SKIPPED,
    ST_COUNT
};
#define OV_STAT_LABELS                                                                              \
    "sends converted\nreceives converted\nsendrecvs converted\nbytes sent\nbytes received\n"       \
    "passed: buffer not on the page-exclusive heap\npassed: wildcard receive\npassed: larger than max-bytes\n" \
    "passed: switched off at the call site\npassed: page protection refused\n"                    \
    "faults\nwaits: fault\nwaits: element overlap\nwaits: status read\nwaits: system call\n"      \
    "waits: other MPI call\nwaits: chain end\nwaits: free/realloc\nwaits: finalize\nwaits: no free slot\n" \
    "wait time ns\nchain records\nchain ends learned\nchain probes\ncall sites\ncall sites switched off\n" \
    "adaptive decisions\ncall sites given up: nothing to hide behind\nchain ends not waited at: computation follows\n"

extern uint64_t *ov_stats;
extern int ov_mode;

#endif

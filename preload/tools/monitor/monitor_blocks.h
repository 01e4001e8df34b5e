/* Generated from preload/tools/monitor/blocks.yaml by `npm run gen` (src/gen/profile-emit.ts): do not edit; change the YAML and run it (docs/profile-file.md). */

#ifndef MPII_MONITOR_BLOCKS_H
#define MPII_MONITOR_BLOCKS_H

/* block "peers" (counters): one row per MPI_COMM_WORLD rank of the peer, in the rank's profile file from the start (sparse: a peer never talked to costs no memory) */
enum {
    MON_PML_COUNT = 0, /* user point-to-point, sender side (E lines) */
    MON_PML_BYTES = 1,
    MON_OSC_S_COUNT = 2, /* one-sided, data written to the peer (S lines) */
    MON_OSC_S_BYTES = 3,
    MON_OSC_R_COUNT = 4, /* one-sided, data read from the peer (R lines) */
    MON_OSC_R_BYTES = 5,
    MON_COLL_COUNT = 6, /* collectives, per peer (C lines) */
    MON_COLL_BYTES = 7,
    MON_HIST = 8, /* point-to-point message sizes: bin 0 empty messages, bin k sizes in [2^(k-1), 2^k) */
    MON_HIST_BINS = 66,
    MON_ROW = 74
};
#define MON_ROW_LABELS \
    "pml_count\n" \
    "pml_bytes\n" \
    "osc_sent_count\n" \
    "osc_sent_bytes\n" \
    "osc_recv_count\n" \
    "osc_recv_bytes\n" \
    "coll_count\n" \
    "coll_bytes\n" \
    "histogram"

/* block "comm" (counters): one per communicator: its collective traffic by pattern (O2A, A2O, A2A), and what of it is counted here rather than per peer */
enum {
    MON_O2A_BYTES = 0,
    MON_O2A_COUNT = 1,
    MON_A2O_BYTES = 2,
    MON_A2O_COUNT = 3,
    MON_A2A_BYTES = 4,
    MON_A2A_COUNT = 5,
    MON_EACH_COUNT = 6, /* collectives counted here rather than per peer (a communicator of more members than the option coll-peers): the messages this process sent to each other member, the same for every one */
    MON_EACH_BYTES = 7, /* and the bytes sent to each other member */
    MON_HIGHER_COUNT = 8, /* the same for scans: messages to each member of a higher rank in the communicator */
    MON_HIGHER_BYTES = 9,
    MON_APART_COUNT = 10, /* collectives on such a communicator whose bytes differ by peer (v and w variants, reduce_scatter): messages in no peer's row */
    MON_APART_BYTES = 11,
    MON_COMM_FIELDS = 12
};

#endif

/* Generated from preload/spec/profile-file.yaml by `npm run gen` (src/gen/profile-emit.ts): do not edit; change the YAML and run it (docs/profile-file.md). */

#ifndef MPII_PROFILE_FORMAT_H
#define MPII_PROFILE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define MPII_FORMAT_VERSION 3 /* written; readers take 1 to 3 */
#define MPII_IMAGE_MAGIC "MPIIRNK1"
#define MPII_PROFILE_MAGIC "MPIIPROF"

/* the node file, <out>/node-<host>.live: node_header in a page of MPII_NODE_HEADER_BYTES, then a slot per process */
#define MPII_NODE_MAGIC "MPIINODE"
#define MPII_NODE_VERSION 1 /* written; readers take 1 to 1 */
#define MPII_NODE_HEADER_BYTES 65536
#define MPII_NODE_SLOT_BYTES ((uint64_t) 67108864)
#define MPII_NODE_CLOSED ((uint64_t) 1 << 63) /* node_header.live: the file is being removed */

/* image_header.state */
enum { MPII_STATE_RUNNING = 0, MPII_STATE_FINALIZED = 1, MPII_STATE_ABORTED = 2 };

/* record.kind */
enum {
    MPII_REC_COUNTERS = 1, /* count u64 values */
    MPII_REC_TEXT = 2, /* count bytes of text */
    MPII_REC_TOOL = 3, /* none: the record names tool `tool_id` (name) and where it came from (labels) */
    MPII_REC_SPARSE = 4, /* sparse_head, then nnz × sparse_entry; count is the dense length (only in profile.mpii) */
};

/* node_header: <out>/node-<host>.live starts with it; slot i (an image, or zeros: released or never written) at header_bytes + i × slot_bytes */
typedef struct {
    char magic[8];
    uint32_t version; /* node_file.version */
    uint32_t header_bytes; /* where slot 0 starts */
    uint64_t slot_bytes; /* bytes of each slot */
    uint64_t claimed; /* slots handed out (atomic fetch-add); one past the file's end was never written */
    uint64_t live; /* slots not released yet; bit closed_bit: the file is being removed, claim none in it */
} mpii_node_header_t;
_Static_assert(offsetof(mpii_node_header_t, magic) == 0, "node_header.magic is at byte 0 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_node_header_t, version) == 8, "node_header.version is at byte 8 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_node_header_t, header_bytes) == 12, "node_header.header_bytes is at byte 12 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_node_header_t, slot_bytes) == 16, "node_header.slot_bytes is at byte 16 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_node_header_t, claimed) == 24, "node_header.claimed is at byte 24 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_node_header_t, live) == 32, "node_header.live is at byte 32 (preload/spec/profile-file.yaml)");
_Static_assert(sizeof(mpii_node_header_t) == 40, "node_header is 40 bytes (preload/spec/profile-file.yaml)");

/* profile_header: profile.mpii starts with it, followed by nranks images, each padded to 8 bytes */
typedef struct {
    char magic[8];
    uint32_t version;
    uint32_t nranks;
} mpii_profile_header_t;
_Static_assert(offsetof(mpii_profile_header_t, magic) == 0, "profile_header.magic is at byte 0 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_profile_header_t, version) == 8, "profile_header.version is at byte 8 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_profile_header_t, nranks) == 12, "profile_header.nranks is at byte 12 (preload/spec/profile-file.yaml)");
_Static_assert(sizeof(mpii_profile_header_t) == 16, "profile_header is 16 bytes (preload/spec/profile-file.yaml)");

/* image_header: a rank's image starts with it, followed by records up to `used` bytes */
typedef struct {
    char magic[8];
    uint32_t version;
    uint32_t state; /* states */
    int32_t rank; /* MPI_COMM_WORLD rank (the launcher's before MPI_Init) */
    int32_t size; /* ranks in the job, -1 before MPI_Init */
    int32_t pid;
    int32_t ntools; /* highest tool id */
    uint64_t used; /* bytes of the image holding whole records: a crash never leaves half of one */
    uint64_t capacity;
    double t_start; /* wall clock at the shim's start (seconds since 1970) */
    double t_end; /* at MPI_Finalize or the crash; 0 while running */
    char host[64];
    char flavor[16]; /* openmpi or mpich */
} mpii_image_header_t;
_Static_assert(offsetof(mpii_image_header_t, magic) == 0, "image_header.magic is at byte 0 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_image_header_t, version) == 8, "image_header.version is at byte 8 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_image_header_t, state) == 12, "image_header.state is at byte 12 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_image_header_t, rank) == 16, "image_header.rank is at byte 16 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_image_header_t, size) == 20, "image_header.size is at byte 20 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_image_header_t, pid) == 24, "image_header.pid is at byte 24 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_image_header_t, ntools) == 28, "image_header.ntools is at byte 28 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_image_header_t, used) == 32, "image_header.used is at byte 32 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_image_header_t, capacity) == 40, "image_header.capacity is at byte 40 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_image_header_t, t_start) == 48, "image_header.t_start is at byte 48 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_image_header_t, t_end) == 56, "image_header.t_end is at byte 56 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_image_header_t, host) == 64, "image_header.host is at byte 64 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_image_header_t, flavor) == 128, "image_header.flavor is at byte 128 (preload/spec/profile-file.yaml)");
_Static_assert(sizeof(mpii_image_header_t) == 144, "image_header is 144 bytes (preload/spec/profile-file.yaml)");

/* record: a record: this header, then its name, its labels and the payload of its kind, each padded to 8 bytes */
typedef struct {
    uint32_t kind; /* record_kinds */
    uint32_t tool_id; /* 0: the core, else the tool's place in the stack (1 = outermost) */
    uint64_t count;
    uint32_t name_len;
    uint32_t labels_len;
} mpii_record_t;
_Static_assert(offsetof(mpii_record_t, kind) == 0, "record.kind is at byte 0 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_record_t, tool_id) == 4, "record.tool_id is at byte 4 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_record_t, count) == 8, "record.count is at byte 8 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_record_t, name_len) == 16, "record.name_len is at byte 16 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_record_t, labels_len) == 20, "record.labels_len is at byte 20 (preload/spec/profile-file.yaml)");
_Static_assert(sizeof(mpii_record_t) == 24, "record is 24 bytes (preload/spec/profile-file.yaml)");

/* sparse_head */
typedef struct {
    uint64_t nnz; /* entries stored */
} mpii_sparse_head_t;
_Static_assert(offsetof(mpii_sparse_head_t, nnz) == 0, "sparse_head.nnz is at byte 0 (preload/spec/profile-file.yaml)");
_Static_assert(sizeof(mpii_sparse_head_t) == 8, "sparse_head is 8 bytes (preload/spec/profile-file.yaml)");

/* sparse_entry */
typedef struct {
    uint64_t index;
    uint64_t value;
} mpii_sparse_entry_t;
_Static_assert(offsetof(mpii_sparse_entry_t, index) == 0, "sparse_entry.index is at byte 0 (preload/spec/profile-file.yaml)");
_Static_assert(offsetof(mpii_sparse_entry_t, value) == 8, "sparse_entry.value is at byte 8 (preload/spec/profile-file.yaml)");
_Static_assert(sizeof(mpii_sparse_entry_t) == 16, "sparse_entry is 16 bytes (preload/spec/profile-file.yaml)");


/* block "events" (counters): the rank's timeline (mpii_profile_event): the header, then `capacity` entries; an entry whose kind_tool is 0 was reserved but never written (the rank died in between) */
enum {
    EV_H_WORDS = 0, /* words per entry (EV_WORDS) */
    EV_H_CAPACITY = 1, /* entries kept (MPII_EVENTS_KEPT) */
    EV_H_SEEN = 2, /* events seen: the ones past capacity were dropped */
    EV_H_INIT_NS = 3, /* CLOCK_MONOTONIC ns when MPI_Init returned */
    EV_H_INIT_REAL = 4, /* CLOCK_REALTIME then (the bits of a double) */
    EV_H_END_NS = 5, /* CLOCK_MONOTONIC ns of MPI_Finalize or the crash */
    EV_RESERVED = 6,
    EV_HEAD = 8
};
enum {
    EV_NS = 0, /* CLOCK_MONOTONIC ns */
    EV_KIND_TOOL = 1, /* kind | tool << 32, stored last (0: not written) */
    EV_VALUE = 2,
    EV_NAME = 3, /* NUL-terminated */
    EV_NAME_BYTES = 40,
    EV_WORDS = 8
};

#endif

// Generated from preload/spec/profile-file.yaml, preload/tools/memcheck/blocks.yaml, preload/tools/monitor/blocks.yaml, preload/tools/overlap/blocks.yaml, preload/tools/profile/blocks.yaml, preload/tools/trace-count/blocks.yaml by `npm run gen` (src/gen/profile-emit.ts): do not edit; change the YAML and run it (docs/profile-file.md).

/** The format version written; a reader takes OLDEST_VERSION to FORMAT_VERSION. */
export const FORMAT_VERSION = 3;
export const OLDEST_VERSION = 1;
export const FORMAT_HISTORY = [
  {"version":1,"since":"a4301b0","change":"the first format (records of kinds counters, text and tool)"},
  {
    "version": 2,
    "since": "458d3dc",
    "change": "sparse counter records (kind 4) in profile.mpii, written by the gathering rank"
  },
  {
    "version": 3,
    "since": "decc345",
    "change": "monitor: collectives on communicators past coll-peers counted per communicator (comm fields each, higher, apart), not per peer; member lists as ranges, or @<hash> of the list the lowest member wrote"
  }
] as const;
export const IMAGE_MAGIC = "MPIIRNK1";
export const PROFILE_MAGIC = "MPIIPROF";
/** The node file, <out>/node-<host>.live: node_header in a page of headerBytes, then a slot of slotBytes per process. */
export const NODE_FILE = {
  "magic": "MPIINODE",
  "version": 1,
  "oldest": 1,
  "headerBytes": 65536,
  "slotBytes": 67108864,
  "closedBit": 63,
  "history": [
    {
      "version": 1,
      "since": "42f6666",
      "change": "the first node file: a header page, then a slot of 64 MiB per process"
    }
  ]
} as const;
/** image_header.state */
export const STATES = {"running":0,"finalized":1,"aborted":2} as const;
/** record.kind */
export const RECORD_KIND = {"counters":1,"text":2,"tool":3,"sparse":4} as const;

/** The structs: byte offsets as the C compiler lays them out (checked there by _Static_assert). */
export const STRUCTS = {
  "node_header": {
    "size": 40,
    "fields": [
      {"name":"magic","type":"char","offset":0,"size":8},
      {"name":"version","type":"u32","offset":8,"size":4},
      {"name":"header_bytes","type":"u32","offset":12,"size":4},
      {"name":"slot_bytes","type":"u64","offset":16,"size":8},
      {"name":"claimed","type":"u64","offset":24,"size":8},
      {"name":"live","type":"u64","offset":32,"size":8}
    ],
    "tail": []
  },
  "profile_header": {
    "size": 16,
    "fields": [
      {"name":"magic","type":"char","offset":0,"size":8},
      {"name":"version","type":"u32","offset":8,"size":4},
      {"name":"nranks","type":"u32","offset":12,"size":4}
    ],
    "tail": []
  },
  "image_header": {
    "size": 144,
    "fields": [
      {"name":"magic","type":"char","offset":0,"size":8},
      {"name":"version","type":"u32","offset":8,"size":4},
      {"name":"state","type":"u32","offset":12,"size":4},
      {"name":"rank","type":"i32","offset":16,"size":4},
      {"name":"size","type":"i32","offset":20,"size":4},
      {"name":"pid","type":"i32","offset":24,"size":4},
      {"name":"ntools","type":"i32","offset":28,"size":4},
      {"name":"used","type":"u64","offset":32,"size":8},
      {"name":"capacity","type":"u64","offset":40,"size":8},
      {"name":"t_start","type":"f64","offset":48,"size":8},
      {"name":"t_end","type":"f64","offset":56,"size":8},
      {"name":"host","type":"char","offset":64,"size":64},
      {"name":"flavor","type":"char","offset":128,"size":16}
    ],
    "tail": []
  },
  "record": {
    "size": 24,
    "fields": [
      {"name":"kind","type":"u32","offset":0,"size":4},
      {"name":"tool_id","type":"u32","offset":4,"size":4},
      {"name":"count","type":"u64","offset":8,"size":8},
      {"name":"name_len","type":"u32","offset":16,"size":4},
      {"name":"labels_len","type":"u32","offset":20,"size":4}
    ],
    "tail": [{"name":"name","length":"name_len"},{"name":"labels","length":"labels_len"}]
  },
  "sparse_head": {"size":8,"fields":[{"name":"nnz","type":"u64","offset":0,"size":8}],"tail":[]},
  "sparse_entry": {
    "size": 16,
    "fields": [{"name":"index","type":"u64","offset":0,"size":8},{"name":"value","type":"u64","offset":8,"size":8}],
    "tail": []
  }
} as const;

/** node_header: <out>/node-<host>.live starts with it; slot i (an image, or zeros: released or never written) at header_bytes + i × slot_bytes */
export interface NodeHeader {
  magic: string;
  version: number; // node_file.version
  header_bytes: number; // where slot 0 starts
  slot_bytes: number; // bytes of each slot
  claimed: number; // slots handed out (atomic fetch-add); one past the file's end was never written
  live: number; // slots not released yet; bit closed_bit: the file is being removed, claim none in it
}

/** profile_header: profile.mpii starts with it, followed by nranks images, each padded to 8 bytes */
export interface ProfileHeader {
  magic: string;
  version: number;
  nranks: number;
}

/** image_header: a rank's image starts with it, followed by records up to `used` bytes */
export interface ImageHeader {
  magic: string;
  version: number;
  state: number; // states
  rank: number; // MPI_COMM_WORLD rank (the launcher's before MPI_Init)
  size: number; // ranks in the job, -1 before MPI_Init
  pid: number;
  ntools: number; // highest tool id
  used: number; // bytes of the image holding whole records: a crash never leaves half of one
  capacity: number;
  t_start: number; // wall clock at the shim's start (seconds since 1970)
  t_end: number; // at MPI_Finalize or the crash; 0 while running
  host: string;
  flavor: string; // openmpi or mpich
}

/** record: a record: this header, then its name, its labels and the payload of its kind, each padded to 8 bytes */
export interface RecordHeader {
  kind: number; // record_kinds
  tool_id: number; // 0: the core, else the tool's place in the stack (1 = outermost)
  count: number;
  name_len: number;
  labels_len: number;
  name: string; // the block's name (UTF-8), padded to 8 bytes
  labels: string; // labels, one per line (UTF-8), padded to 8 bytes
  /** bytes from the struct's start to what follows the tail */
  end: number;
}

/** sparse_head */
export interface SparseHead {
  nnz: number; // entries stored
}

/** sparse_entry */
export interface SparseEntry {
  index: number;
  value: number;
}

/** Padded to 8 bytes, as every part of a record is (not `& ~7`: 32-bit in JavaScript, and a corrupt length can be anything). */
export const pad8 = (n: number) => Math.ceil(n / 8) * 8;
const cstr = (b: Buffer, at: number, n: number) => { const s = b.toString('latin1', at, at + n); const z = s.indexOf('\0'); return z < 0 ? s : s.slice(0, z); };

export function readNodeHeader(b: Buffer, at = 0): NodeHeader {
  return {
    magic: cstr(b, at + 0, 8),
    version: b.readUInt32LE(at + 8),
    header_bytes: b.readUInt32LE(at + 12),
    slot_bytes: Number(b.readBigUInt64LE(at + 16)),
    claimed: Number(b.readBigUInt64LE(at + 24)),
    live: Number(b.readBigUInt64LE(at + 32)),
  };
}
export function writeNodeHeader(b: Buffer, at: number, v: { magic?: string; version?: number; header_bytes?: number; slot_bytes?: number | bigint; claimed?: number | bigint; live?: number | bigint }): void {
  if (v.magic !== undefined) b.write(v.magic, at + 0, 8, 'latin1');
  if (v.version !== undefined) b.writeUInt32LE(v.version, at + 8);
  if (v.header_bytes !== undefined) b.writeUInt32LE(v.header_bytes, at + 12);
  if (v.slot_bytes !== undefined) b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v.slot_bytes)), at + 16);
  if (v.claimed !== undefined) b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v.claimed)), at + 24);
  if (v.live !== undefined) b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v.live)), at + 32);
}

export function readProfileHeader(b: Buffer, at = 0): ProfileHeader {
  return {
    magic: cstr(b, at + 0, 8),
    version: b.readUInt32LE(at + 8),
    nranks: b.readUInt32LE(at + 12),
  };
}
export function writeProfileHeader(b: Buffer, at: number, v: { magic?: string; version?: number; nranks?: number }): void {
  if (v.magic !== undefined) b.write(v.magic, at + 0, 8, 'latin1');
  if (v.version !== undefined) b.writeUInt32LE(v.version, at + 8);
  if (v.nranks !== undefined) b.writeUInt32LE(v.nranks, at + 12);
}

export function readImageHeader(b: Buffer, at = 0): ImageHeader {
  return {
    magic: cstr(b, at + 0, 8),
    version: b.readUInt32LE(at + 8),
    state: b.readUInt32LE(at + 12),
    rank: b.readInt32LE(at + 16),
    size: b.readInt32LE(at + 20),
    pid: b.readInt32LE(at + 24),
    ntools: b.readInt32LE(at + 28),
    used: Number(b.readBigUInt64LE(at + 32)),
    capacity: Number(b.readBigUInt64LE(at + 40)),
    t_start: b.readDoubleLE(at + 48),
    t_end: b.readDoubleLE(at + 56),
    host: cstr(b, at + 64, 64),
    flavor: cstr(b, at + 128, 16),
  };
}
export function writeImageHeader(b: Buffer, at: number, v: { magic?: string; version?: number; state?: number; rank?: number; size?: number; pid?: number; ntools?: number; used?: number | bigint; capacity?: number | bigint; t_start?: number; t_end?: number; host?: string; flavor?: string }): void {
  if (v.magic !== undefined) b.write(v.magic, at + 0, 8, 'latin1');
  if (v.version !== undefined) b.writeUInt32LE(v.version, at + 8);
  if (v.state !== undefined) b.writeUInt32LE(v.state, at + 12);
  if (v.rank !== undefined) b.writeInt32LE(v.rank, at + 16);
  if (v.size !== undefined) b.writeInt32LE(v.size, at + 20);
  if (v.pid !== undefined) b.writeInt32LE(v.pid, at + 24);
  if (v.ntools !== undefined) b.writeInt32LE(v.ntools, at + 28);
  if (v.used !== undefined) b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v.used)), at + 32);
  if (v.capacity !== undefined) b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v.capacity)), at + 40);
  if (v.t_start !== undefined) b.writeDoubleLE(v.t_start, at + 48);
  if (v.t_end !== undefined) b.writeDoubleLE(v.t_end, at + 56);
  if (v.host !== undefined) b.write(v.host, at + 64, 64, 'latin1');
  if (v.flavor !== undefined) b.write(v.flavor, at + 128, 16, 'latin1');
}

export function readRecordHeader(b: Buffer, at: number, limit = b.length): RecordHeader {
  const kind = b.readUInt32LE(at + 0);
  const tool_id = b.readUInt32LE(at + 4);
  const count = Number(b.readBigUInt64LE(at + 8));
  const name_len = b.readUInt32LE(at + 16);
  const labels_len = b.readUInt32LE(at + 20);
  let p = at + 24;
  const name = b.toString('utf8', Math.min(p, limit), Math.min(p + name_len, limit));
  p += pad8(name_len);
  const labels = b.toString('utf8', Math.min(p, limit), Math.min(p + labels_len, limit));
  p += pad8(labels_len);
  return { kind, tool_id, count, name_len, labels_len, name, labels, end: p - at };
}
export function writeRecordHeader(b: Buffer, at: number, v: { kind?: number; tool_id?: number; count?: number | bigint; name_len?: number; labels_len?: number }): void {
  if (v.kind !== undefined) b.writeUInt32LE(v.kind, at + 0);
  if (v.tool_id !== undefined) b.writeUInt32LE(v.tool_id, at + 4);
  if (v.count !== undefined) b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v.count)), at + 8);
  if (v.name_len !== undefined) b.writeUInt32LE(v.name_len, at + 16);
  if (v.labels_len !== undefined) b.writeUInt32LE(v.labels_len, at + 20);
}

export function readSparseHead(b: Buffer, at = 0): SparseHead {
  return {
    nnz: Number(b.readBigUInt64LE(at + 0)),
  };
}
export function writeSparseHead(b: Buffer, at: number, v: { nnz?: number | bigint }): void {
  if (v.nnz !== undefined) b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v.nnz)), at + 0);
}

export function readSparseEntry(b: Buffer, at = 0): SparseEntry {
  return {
    index: Number(b.readBigUInt64LE(at + 0)),
    value: Number(b.readBigUInt64LE(at + 8)),
  };
}
export function writeSparseEntry(b: Buffer, at: number, v: { index?: number | bigint; value?: number | bigint }): void {
  if (v.index !== undefined) b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v.index)), at + 0);
  if (v.value !== undefined) b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v.value)), at + 8);
}

/** Constants the tools declare beside their blocks. */
export const CONSTANTS = {
  "MC_MAX_FINDINGS": 256,
  "MC_FRAMES": 16,
  "PF_MAX_DEPTH": 8,
  "PF_ALWAYS_TIMED": 64,
  "PF_DENSE_TIMED": 1024,
  "PF_SPARSE_FACTOR": 16,
  "PF_RESUME_CALLS": 65536
} as const;

/** Every tool's blocks (core = tool 0): counters blocks with their field indices (`index`),
 *  fields of several words (`words`), the row length (`size`) and their labels. */
export const BLOCKS = {
  "core": {
    "events": {
      "kind": "counters",
      "header": {
        "size": 8,
        "index": {"entry_words":0,"capacity":1,"seen":2,"init_ns":3,"init_real":4,"end_ns":5,"reserved":6},
        "words": {"reserved":2}
      },
      "row": {"size":8,"index":{"ns":0,"kind_tool":1,"value":2,"name":3},"words":{"name":5}},
      "labels": "free"
    },
    "pvars": {"kind":"text","format":"json","labels":"none"},
    "pysite": {"kind":"text","labels":"none"},
    "report-options": {"kind":"text","format":"json","labels":"none"}
  },
  "memcheck": {
    "findings": {
      "kind": "counters",
      "row": {
        "size": 30,
        "index": {
          "kind": 0,
          "count": 1,
          "site": 2,
          "pc": 3,
          "addr": 4,
          "base": 5,
          "len": 6,
          "bytes": 7,
          "access": 8,
          "nframes": 9,
          "fn": 10,
          "frames": 14
        },
        "words": {"fn":4,"frames":16}
      },
      "labels": "none"
    },
    "by kind": {
      "kind": "counters",
      "row": {
        "size": 15,
        "index": {
          "write to a pending send buffer": 0,
          "read of a pending send buffer (strict)": 1,
          "write to a pending receive buffer": 2,
          "read of a pending receive buffer": 3,
          "write to a pending RMA origin buffer": 4,
          "read of a pending RMA origin buffer (strict)": 5,
          "access to a pending RMA result buffer": 6,
          "send buffer overrun": 7,
          "receive buffer overrun": 8,
          "write before read of received data": 9,
          "received data never read": 10,
          "free of memory MPI still owns": 11,
          "system call on memory MPI still owns": 12,
          "received data never read, overwritten by a later receive": 13,
          "receive into memory MPI still owns": 14
        },
        "words": {}
      },
      "labels": [
        "write to a pending send buffer",
        "read of a pending send buffer (strict)",
        "write to a pending receive buffer",
        "read of a pending receive buffer",
        "write to a pending RMA origin buffer",
        "read of a pending RMA origin buffer (strict)",
        "access to a pending RMA result buffer",
        "send buffer overrun",
        "receive buffer overrun",
        "write before read of received data",
        "received data never read",
        "free of memory MPI still owns",
        "system call on memory MPI still owns",
        "received data never read, overwritten by a later receive",
        "receive into memory MPI still owns"
      ],
      "classes": [
        "error",
        "error",
        "error",
        "error",
        "error",
        "error",
        "error",
        "error",
        "error",
        "hint",
        "hint",
        "error",
        "error",
        "hint",
        "error"
      ]
    },
    "stats": {
      "kind": "counters",
      "row": {
        "size": 21,
        "index": {
          "buffers checked": 0,
          "unchecked: not on the page-exclusive heap": 1,
          "unchecked: unknown datatype extent": 2,
          "unchecked: page protection refused": 3,
          "guards set": 4,
          "faults": 5,
          "steps over shared pages": 6,
          "lifts around MPI calls": 7,
          "receives tracked after completion": 8,
          "receives not tracked (sampling)": 9,
          "bytes received and never read": 10,
          "findings": 11,
          "requests freed while active": 12,
          "requests untracked: table full": 13,
          "pending operations not checked (sampling)": 14,
          "receive guards read-only (page shared with a pending send)": 15,
          "receives not watched (pages shared with a pending send)": 16,
          "large sends followed unguarded (not sampled)": 17,
          "the library's accesses to watched memory (in MPI calls, or its own code outside them)": 18,
          "the library's accesses on its own threads (judged at the next MPI call)": 19,
          "RMA guards given up (held across 64 MPI calls in one epoch)": 20
        },
        "words": {}
      },
      "labels": [
        "buffers checked",
        "unchecked: not on the page-exclusive heap",
        "unchecked: unknown datatype extent",
        "unchecked: page protection refused",
        "guards set",
        "faults",
        "steps over shared pages",
        "lifts around MPI calls",
        "receives tracked after completion",
        "receives not tracked (sampling)",
        "bytes received and never read",
        "findings",
        "requests freed while active",
        "requests untracked: table full",
        "pending operations not checked (sampling)",
        "receive guards read-only (page shared with a pending send)",
        "receives not watched (pages shared with a pending send)",
        "large sends followed unguarded (not sampled)",
        "the library's accesses to watched memory (in MPI calls, or its own code outside them)",
        "the library's accesses on its own threads (judged at the next MPI call)",
        "RMA guards given up (held across 64 MPI calls in one epoch)"
      ]
    },
    "layout": {"kind":"text","format":"json","labels":"none"},
    "engine": {"kind":"text","labels":"none"},
    "disabled": {"kind":"text","labels":"none"},
    "objects": {"kind":"text","labels":"none"}
  },
  "monitor": {
    "peers": {
      "kind": "counters",
      "row": {
        "size": 74,
        "index": {
          "pml_count": 0,
          "pml_bytes": 1,
          "osc_sent_count": 2,
          "osc_sent_bytes": 3,
          "osc_recv_count": 4,
          "osc_recv_bytes": 5,
          "coll_count": 6,
          "coll_bytes": 7,
          "histogram": 8
        },
        "words": {"histogram":66}
      },
      "labels": [
        "pml_count",
        "pml_bytes",
        "osc_sent_count",
        "osc_sent_bytes",
        "osc_recv_count",
        "osc_recv_bytes",
        "coll_count",
        "coll_bytes",
        "histogram"
      ]
    },
    "comm": {
      "kind": "counters",
      "row": {
        "size": 12,
        "index": {
          "o2a_bytes": 0,
          "o2a_count": 1,
          "a2o_bytes": 2,
          "a2o_count": 3,
          "a2a_bytes": 4,
          "a2a_count": 5,
          "each_count": 6,
          "each_bytes": 7,
          "higher_count": 8,
          "higher_bytes": 9,
          "apart_count": 10,
          "apart_bytes": 11
        },
        "words": {}
      },
      "labels": "free"
    },
    "memory": {"kind":"text","format":"json","labels":"none"},
    "comm-names": {"kind":"text","format":"json","labels":"none"},
    "mpit": {"kind":"text","format":"json","labels":"none"}
  },
  "overlap": {
    "stats": {
      "kind": "counters",
      "row": {
        "size": 32,
        "index": {
          "sends converted": 0,
          "receives converted": 1,
          "sendrecvs converted": 2,
          "bytes sent": 3,
          "bytes received": 4,
          "passed: buffer not on the page-exclusive heap": 5,
          "passed: wildcard receive": 6,
          "passed: larger than max-bytes": 7,
          "passed: adaptive, site decided plain": 8,
          "passed: adaptive, plain turn while exploring": 9,
          "passed: page protection refused": 10,
          "faults": 11,
          "waits: fault": 12,
          "waits: element overlap": 13,
          "waits: status read": 14,
          "waits: system call": 15,
          "waits: other MPI call": 16,
          "waits: chain end": 17,
          "waits: free/realloc": 18,
          "waits: finalize": 19,
          "waits: no free slot": 20,
          "wait time ns": 21,
          "chain records": 22,
          "chain ends learned": 23,
          "chain probes": 24,
          "call sites": 25,
          "call sites decided plain": 26,
          "adaptive decisions": 27,
          "call sites given up: nothing to hide behind": 28,
          "chain ends not waited at: computation follows": 29,
          "calls checked": 30,
          "call sites in doubt explored again once the others had decided": 31
        },
        "words": {}
      },
      "labels": [
        "sends converted",
        "receives converted",
        "sendrecvs converted",
        "bytes sent",
        "bytes received",
        "passed: buffer not on the page-exclusive heap",
        "passed: wildcard receive",
        "passed: larger than max-bytes",
        "passed: adaptive, site decided plain",
        "passed: adaptive, plain turn while exploring",
        "passed: page protection refused",
        "faults",
        "waits: fault",
        "waits: element overlap",
        "waits: status read",
        "waits: system call",
        "waits: other MPI call",
        "waits: chain end",
        "waits: free/realloc",
        "waits: finalize",
        "waits: no free slot",
        "wait time ns",
        "chain records",
        "chain ends learned",
        "chain probes",
        "call sites",
        "call sites decided plain",
        "adaptive decisions",
        "call sites given up: nothing to hide behind",
        "chain ends not waited at: computation follows",
        "calls checked",
        "call sites in doubt explored again once the others had decided"
      ]
    },
    "disabled": {"kind":"text","labels":"none"},
    "site": {"kind":"text","labels":"none"}
  },
  "profile": {
    "clock": {
      "kind": "counters",
      "row": {
        "size": 15,
        "index": {
          "timer": 0,
          "t0_ticks": 1,
          "t0_ns": 2,
          "cal_ticks": 3,
          "cal_ns": 4,
          "end_ticks": 5,
          "end_ns": 6,
          "last_ticks": 7,
          "on_ticks": 8,
          "on_since": 9,
          "pcontrol": 10,
          "depth": 11,
          "capacity": 12,
          "joins": 13,
          "resumes": 14
        },
        "words": {}
      },
      "labels": [
        "timer",
        "t0_ticks",
        "t0_ns",
        "cal_ticks",
        "cal_ns",
        "end_ticks",
        "end_ns",
        "last_ticks",
        "on_ticks",
        "on_since",
        "pcontrol",
        "depth",
        "capacity",
        "joins",
        "resumes"
      ]
    },
    "overflow": {
      "kind": "counters",
      "row": {
        "size": 13,
        "index": {
          "count": 0,
          "ticks": 1,
          "ticks_min": 2,
          "ticks_max": 3,
          "bytes_sent": 4,
          "bytes_recv": 5,
          "size_min": 6,
          "size_max": 7,
          "timed": 8,
          "gap": 9,
          "ticks_first": 10,
          "dense_calls": 11,
          "dense_ticks": 12
        },
        "words": {}
      },
      "labels": [
        "count",
        "ticks",
        "ticks_min",
        "ticks_max",
        "bytes_sent",
        "bytes_recv",
        "size_min",
        "size_max",
        "timed",
        "gap",
        "ticks_first",
        "dense_calls",
        "dense_ticks"
      ]
    },
    "sites": {"kind":"counters","labels":"free"},
    "function": {"kind":"text","labels":"none"},
    "module": {"kind":"text","labels":"none"}
  },
  "trace-count": {"calls":{"kind":"counters","labels":"free"}}
} as const;

// The profile file's structs, read and written as the contract declares them: the functions are
// generated from preload/spec/profile-file.yaml into format.gen.ts (plain Buffer reads at the
// declared offsets; docs/profile-file.md says why not a parsing library). The counters' values
// are not read here: they stay in the file's buffer (read.ts), since a big job's tables hold
// millions of entries.
import {
  readImageHeader,
  readNodeHeader,
  readProfileHeader,
  readRecordHeader,
  readSparseHead,
  STRUCTS,
  type ImageHeader,
  type NodeHeader,
  type ProfileHeader,
  type RecordHeader,
  type SparseHead,
} from './format.gen.js';

export { pad8, STRUCTS, writeImageHeader, writeNodeHeader, writeProfileHeader, writeRecordHeader } from './format.gen.js';

export const NODE_HEADER_SIZE = STRUCTS.node_header.size;
export const PROFILE_HEADER_SIZE = STRUCTS.profile_header.size;
export const IMAGE_HEADER_SIZE = STRUCTS.image_header.size;
export const RECORD_HEADER_SIZE = STRUCTS.record.size;
export const SPARSE_HEAD_SIZE = STRUCTS.sparse_head.size;
export const SPARSE_ENTRY_SIZE = STRUCTS.sparse_entry.size;

/** A node file's header at the start of `buf` (at least NODE_HEADER_SIZE bytes). */
export const nodeHeader = (buf: Buffer): NodeHeader => readNodeHeader(buf, 0);
/** The gathered file's header at the start of `buf` (at least PROFILE_HEADER_SIZE bytes). */
export const profileHeader = (buf: Buffer): ProfileHeader => readProfileHeader(buf, 0);
/** A rank image's header at the start of `buf` (at least IMAGE_HEADER_SIZE bytes). */
export const imageHeader = (buf: Buffer): ImageHeader => readImageHeader(buf, 0);
/** The record at `at`, its name and labels; `end` is where its payload starts (relative to `at`).
 *  The name and labels are cut at `limit`: a payload start past it means a corrupt record. */
export const recordHeader = (buf: Buffer, at: number, limit: number): RecordHeader => readRecordHeader(buf, at, limit);
export const sparseHead = (buf: Buffer, at: number): SparseHead => readSparseHead(buf, at);

// The profile file's structs, parsed as the contract declares them (src/profile/format.gen.ts,
// made from preload/spec/profile-file.yaml). binary-parser compiles each declaration into one
// parsing function; the counters' values are not parsed here: they stay in the file's buffer
// (read.ts), since a big job's tables hold millions of entries.
import { Parser } from 'binary-parser';
import { STRUCTS, type ImageHeader, type ProfileHeader, type RecordHeader, type SparseHead } from './format.gen.js';

type Decl = (typeof STRUCTS)[keyof typeof STRUCTS];

export const pad8 = (n: number) => Math.ceil(n / 8) * 8; // not `& ~7`: 32-bit in JavaScript, and a corrupt length can be anything

const cstr = (s: string) => s.replace(/\0.*$/s, ''); // C text: up to the first NUL
const num = (v: bigint) => Number(v); // the file's u64 sizes and counts: exact below 2^53

function parserOf(d: Decl): Parser {
  let p = new Parser();
  for (const f of d.fields) {
    switch (f.type) {
      case 'u32': p = p.uint32le(f.name); break;
      case 'i32': p = p.int32le(f.name); break;
      case 'u64': p = p.uint64le(f.name, { formatter: num }); break;
      case 'f64': p = p.doublele(f.name); break;
      case 'char': p = p.string(f.name, { length: f.size, encoding: 'latin1', formatter: cstr }); break;
    }
  }
  for (const t of d.tail) {
    // the name and the labels: UTF-8 of the length a field gives, padded to 8 bytes
    const len = t.length;
    p = p.string(t.name, { length: len, encoding: 'utf8' })
      .seek(function (this: Record<string, number>) { return pad8(this[len]) - this[len]; });
  }
  return p.saveOffset('end');
}

const parsers = {
  profile: parserOf(STRUCTS.profile_header),
  image: parserOf(STRUCTS.image_header),
  record: parserOf(STRUCTS.record),
  sparse: parserOf(STRUCTS.sparse_head),
};

export const PROFILE_HEADER_SIZE = STRUCTS.profile_header.size;
export const IMAGE_HEADER_SIZE = STRUCTS.image_header.size;
export const RECORD_HEADER_SIZE = STRUCTS.record.size;
export const SPARSE_HEAD_SIZE = STRUCTS.sparse_head.size;
export const SPARSE_ENTRY_SIZE = STRUCTS.sparse_entry.size;

/** The gathered file's header at the start of `buf` (at least PROFILE_HEADER_SIZE bytes). */
export const profileHeader = (buf: Buffer): ProfileHeader => parsers.profile.parse(buf) as ProfileHeader;
/** A rank image's header at the start of `buf` (at least IMAGE_HEADER_SIZE bytes). */
export const imageHeader = (buf: Buffer): ImageHeader => parsers.image.parse(buf) as ImageHeader;
/** The record at `at`, its name and labels; `end` is where its payload starts (relative to `at`).
 *  The name and labels are cut at `limit`: a payload start past it means a corrupt record. */
export const recordHeader = (buf: Buffer, at: number, limit: number): RecordHeader =>
  parsers.record.parse(buf.subarray(at, limit)) as RecordHeader;
export const sparseHead = (buf: Buffer, at: number): SparseHead => parsers.sparse.parse(buf.subarray(at)) as SparseHead;

type Values = Record<string, number | bigint | string>;

/** Writes `values` as struct `decl` at `at` (what the shim writes; used by the synthetic jobs of
 *  the tests and benchmarks, src/profile/synthetic.ts). Missing fields stay zero. */
export function writeStruct(buf: Buffer, at: number, decl: Decl, values: Values): void {
  for (const f of decl.fields) {
    const v = values[f.name];
    if (v === undefined) continue;
    const o = at + f.offset;
    switch (f.type) {
      case 'u32': buf.writeUInt32LE(Number(v), o); break;
      case 'i32': buf.writeInt32LE(Number(v), o); break;
      case 'u64': buf.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v)), o); break;
      case 'f64': buf.writeDoubleLE(Number(v), o); break;
      case 'char': buf.write(String(v), o, f.size, 'latin1'); break; // NUL-padded (the buffer is zeroed); the magic fills its 8
    }
  }
}
export { STRUCTS };

// The files a job keeps its images in while it runs, read back: the node files
// (<out>/node-<host>.live: a header page, then a slot of one image per process of that host;
// preload/core/node_file.c) and the one-image files of mpii before them (rank-<r>.live,
// pid-<host>-<pid>.live). A crashed run's report reads them (read.ts); the layout is the contract
// in preload/spec/profile-file.yaml (docs/profile-file.md).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { MpiiError } from '../errors.js';
import { NODE_FILE } from './format.gen.js';
import { IMAGE_HEADER_SIZE, imageHeader, NODE_HEADER_SIZE, nodeHeader } from './layout.js';

/** An image read from a .live file; `where` names it in messages (the file, and a node file's slot). */
export interface LiveImage {
  where: string;
  buf: Buffer;
}

/** A node file's name: node-<host>.live (node-<host>-<pid>.live when a process had to take one of its own). */
export const isNodeFile = (name: string) => name.startsWith('node-') && name.endsWith('.live');

const MAGIC_BYTES = 8;
const zeros = (b: Buffer) => b.every((x) => x === 0);

/** The image at `at`, read to the bytes its header says are used (at most `avail`), or its header
 *  only; short when fewer bytes than a header are there (the image check then says so). A process
 *  still running may add records between the reads: the image is read again, to its new length. */
function imageAt(fd: number, at: number, avail: number, headerOnly: boolean): Buffer {
  const head = Buffer.alloc(IMAGE_HEADER_SIZE);
  const got = readSync(fd, head, 0, Math.max(0, Math.min(IMAGE_HEADER_SIZE, avail)), at);
  if (got < IMAGE_HEADER_SIZE || headerOnly) return head.subarray(0, got);
  let buf = head;
  for (let tries = 0; tries < 3; tries++) {
    const used = Math.min(imageHeader(buf).used, avail);
    if (used <= buf.length && tries > 0) break;
    buf = Buffer.alloc(Math.max(used, IMAGE_HEADER_SIZE));
    readSync(fd, buf, 0, buf.length, at);
  }
  return buf;
}

/** The node file's header: where its slots are and how many were claimed; null while it has none
 *  (a process died between making the file and writing the header). */
function nodeHeadOf(fd: number, path: string): { headerBytes: number; slotBytes: number; claimed: number } | null {
  const buf = Buffer.alloc(NODE_HEADER_SIZE);
  const got = readSync(fd, buf, 0, buf.length, 0);
  if (got < NODE_HEADER_SIZE || zeros(buf.subarray(0, MAGIC_BYTES))) return null;
  const h = nodeHeader(buf);
  if (h.magic !== NODE_FILE.magic) throw new MpiiError(`${path} is not an mpii node file (bad magic)`, 'point mpii report at a directory written by mpii run');
  if (h.version > NODE_FILE.version) {
    throw new MpiiError(`${path} was written by a newer mpii (node file format ${h.version}, this one reads ${NODE_FILE.version})`, 'upgrade mpii to read it');
  }
  if (h.version < NODE_FILE.oldest) {
    throw new MpiiError(
      `${path} is in node file format ${h.version}, older than this mpii reads (${NODE_FILE.oldest} to ${NODE_FILE.version})`,
      're-run the job',
    );
  }
  if (h.header_bytes < NODE_HEADER_SIZE || h.slot_bytes < IMAGE_HEADER_SIZE) {
    throw new MpiiError(`${path} has a corrupt header (slots of ${h.slot_bytes} bytes from byte ${h.header_bytes})`, 're-run the job');
  }
  return { headerBytes: h.header_bytes, slotBytes: h.slot_bytes, claimed: h.claimed };
}

/** The images in the .live file at `path`, each read to the bytes its header says are used
 *  (`headerOnly`: its header only). A node file gives every claimed slot that holds an image:
 *  a slot released, or claimed by a process that died before writing its image's magic, is zeros
 *  there and skipped, and one past the file's end was claimed by a process that died before
 *  growing the file. A file of mpii before node files is one image. */
export function liveImages(path: string, headerOnly = false): LiveImage[] {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []; // its last process removed it since the directory was listed
    throw e;
  }
  try {
    const size = fstatSync(fd).size;
    if (!isNodeFile(basename(path))) return [{ where: path, buf: imageAt(fd, 0, size, headerOnly) }];
    const head = nodeHeadOf(fd, path);
    if (!head) return [];
    const images: LiveImage[] = [];
    const magic = Buffer.alloc(MAGIC_BYTES);
    for (let i = 0; i < head.claimed; i++) {
      const at = head.headerBytes + i * head.slotBytes;
      if (at >= size) break; // claimed, never written: the slots after it are past the end too
      if (readSync(fd, magic, 0, MAGIC_BYTES, at) === MAGIC_BYTES && zeros(magic)) continue;
      const buf = imageAt(fd, at, Math.min(head.slotBytes, size - at), headerOnly);
      if (zeros(buf.subarray(0, MAGIC_BYTES))) continue; // released while it was read (a spawned job's process moved on)
      images.push({ where: `${path} (slot ${i})`, buf });
    }
    return images;
  } finally {
    closeSync(fd);
  }
}

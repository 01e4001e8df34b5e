// Is a tool library loadable into a rank on this machine? Read on the CLI side before launch, so a
// text file, an object file, a program or a library of another architecture is one line from mpii
// run instead of a dlopen failure inside every rank.
import fs from 'node:fs';
import { basename } from 'node:path';
import { MpiiError } from './errors.js';

const MACHINES: Record<number, string> = {
  3: 'i386',
  8: 'MIPS',
  20: 'PowerPC',
  21: 'PowerPC64',
  22: 'S/390',
  40: 'ARM',
  62: 'x86-64',
  183: 'AArch64',
  243: 'RISC-V',
  258: 'LoongArch',
};
const machineName = (m: number) => MACHINES[m] ?? `machine ${m}`;

/** The ELF identity (class, byte order, machine) of a file's first 20 bytes, or why it has none. */
function elfIdentity(head: Buffer): { cls: number; data: number; type: number; machine: number } | string {
  if (head.length < 20 || head.toString('latin1', 0, 4) !== '\x7fELF') return 'is not a shared object (no ELF header)';
  const data = head[5];
  if (data !== 1 && data !== 2) return 'is not a shared object (a damaged ELF header)';
  const u16 = (at: number) => (data === 1 ? head.readUInt16LE(at) : head.readUInt16BE(at));
  return { cls: head[4], data, type: u16(16), machine: u16(18) };
}

let selfIdentity: ReturnType<typeof elfIdentity> | undefined;

/** A PIE program is ET_DYN like a library; its dynamic section says DF_1_PIE (glibc's dlopen
 * refuses it). Reads the program headers and the dynamic section only; any doubt is "no". */
function isPie(file: string, cls: number, data: number): boolean {
  try {
    const buf = fs.readFileSync(file);
    const le = data === 1;
    const is64 = cls === 2;
    const u16 = (at: number) => (le ? buf.readUInt16LE(at) : buf.readUInt16BE(at));
    const u32 = (at: number) => (le ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
    const word = (at: number) => (is64 ? Number(le ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at)) : u32(at));
    const phoff = word(is64 ? 32 : 28);
    const phentsize = u16(is64 ? 54 : 42);
    const phnum = u16(is64 ? 56 : 44);
    for (let i = 0; i < phnum; i++) {
      const ph = phoff + i * phentsize;
      if (ph + phentsize > buf.length || u32(ph) !== 2) continue; // PT_DYNAMIC
      const off = word(is64 ? ph + 8 : ph + 4);
      const size = word(is64 ? ph + 32 : ph + 16);
      const ent = is64 ? 16 : 8;
      for (let d = off; d + ent <= Math.min(off + size, buf.length); d += ent) {
        const tag = word(d);
        if (tag === 0) break;
        if (tag === 0x6ffffffb) return (word(d + ent / 2) & 0x08000000) !== 0; // DT_FLAGS_1 & DF_1_PIE
      }
    }
  } catch {
    /* a header that points outside the file: leave it to the loader */
  }
  return false;
}

/** Why `file` cannot be loaded into a rank on this machine (checked against node's own ELF
 * header: same class, byte order and machine, and a shared object), or undefined. */
export function sharedObjectProblem(file: string): string | undefined {
  const read = (f: string) => {
    const fd = fs.openSync(f, 'r');
    try {
      const b = Buffer.alloc(20);
      return b.subarray(0, fs.readSync(fd, b, 0, 20, 0));
    } finally {
      fs.closeSync(fd);
    }
  };
  let head: Buffer;
  try {
    head = read(file);
  } catch (e) {
    return `cannot be read (${(e as NodeJS.ErrnoException).code ?? e})`;
  }
  const it = elfIdentity(head);
  if (typeof it === 'string') return it;
  if (it.type !== 3) return `is not a shared object (an ELF ${it.type === 1 ? 'object file (.o)' : it.type === 2 ? 'executable' : `file of type ${it.type}`})`;
  if (isPie(file, it.cls, it.data)) return 'is not a shared object (a position-independent executable: dlopen refuses it)';
  try {
    selfIdentity ??= elfIdentity(read(process.execPath));
  } catch {
    return undefined; // no reference to compare with: the ranks will say
  }
  const me = selfIdentity;
  if (typeof me === 'string') return undefined;
  const bits = (c: number) => (c === 1 ? '32-bit' : c === 2 ? '64-bit' : `class-${c}`);
  if (it.cls !== me.cls || it.machine !== me.machine || it.data !== me.data) {
    return `is a ${bits(it.cls)} ${machineName(it.machine)} library, this machine runs ${bits(me.cls)} ${machineName(me.machine)}`;
  }
  return undefined;
}

/** Every external tool of the stack must be a shared object this machine's ranks can load. */
export function checkToolLibraries(tools: { name: string; kind: string; path?: string }[]): void {
  for (const t of tools) {
    if (t.kind !== 'external' || !t.path) continue;
    const problem = sharedObjectProblem(t.path);
    if (problem) {
      throw new MpiiError(
        `tool library '${t.path}'${t.name !== basename(t.path) ? ` (tool '${t.name}')` : ''} ${problem}`,
        'build the tool as a shared library for this machine: mpicc -shared -fPIC -o libtool.so tool.c',
      );
    }
  }
}

// Separate debug information: the file a distribution's -dbgsym package (or `objcopy
// --only-keep-debug`) holds for a stripped program or library, found the way gdb finds it: by the
// object's build-id under each debug directory (<dir>/.build-id/ab/cdef….debug, where Debian's
// packages put them), then by its .gnu_debuglink name next to the object, in the object's .debug/
// folder and under <dir> followed by the object's folder, the link's CRC checked (a stale debug
// file would name the wrong lines). binutils' readelf reads the notes and the link; addr2line and
// nm then read the debug file itself, which numbers code as the object does.
// Debug directories: $MPII_DEBUG_DIR (colon-separated), searched before /usr/lib/debug (which
// binutils searches anyway, so it cannot be left out).
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { ENV } from '../environment.gen.js';

export const DEFAULT_DEBUG_DIR = '/usr/lib/debug';

export function debugDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const set = env[ENV.MPII_DEBUG_DIR]?.split(':').filter(Boolean) ?? [];
  return [...new Set([...set, DEFAULT_DEBUG_DIR])];
}

export interface DebugLinks {
  buildId?: string;
  link?: { name: string; crc: number };
}

/** The build-id and .gnu_debuglink of an ELF file (readelf), {} when it has neither or is no ELF. */
export function debugLinks(path: string): DebugLinks {
  const r = spawnSync('readelf', ['-h', '-n', '-x', '.gnu_debuglink', '-W', path], { encoding: 'utf8', timeout: 60_000, maxBuffer: 1 << 26 });
  if (r.error || typeof r.stdout !== 'string') return {};
  const out: DebugLinks = {};
  const id = /Build ID: ([0-9a-f]+)/.exec(r.stdout);
  if (id && id[1].length > 2) out.buildId = id[1];
  const dump = r.stdout.split("Hex dump of section '.gnu_debuglink':")[1];
  if (dump) {
    // "  0x00000000 742e6465 62756700 51a22b34          t.debug.Q.+4": 4 words of hex, then the text
    const hex = dump
      .split('\n')
      .map((l) => /^\s+0x[0-9a-f]+ (.{1,35})/i.exec(l)?.[1] ?? '')
      .join('')
      .replace(/[^0-9a-f]/gi, '');
    const bytes = Buffer.from(hex, 'hex');
    const end = bytes.indexOf(0);
    const at = (end + 4) & ~3; // the CRC follows the name's NUL, aligned to 4
    if (end > 0 && at + 4 <= bytes.length) {
      const little = !/Data:.*big endian/.test(r.stdout);
      out.link = { name: bytes.toString('utf8', 0, end), crc: little ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at) };
    }
  }
  return out;
}

function fileCrc(path: string): number {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    let crc = 0;
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) crc = crc32(buf.subarray(0, n), crc);
    return crc;
  } finally {
    closeSync(fd);
  }
}

const isFile = (p: string) => existsSync(p) && statSync(p).isFile();

/** The separate debug file of `path`, or undefined (none installed, or the object carries its own). */
export function findDebugFile(path: string, dirs = debugDirs()): string | undefined {
  const { buildId, link } = debugLinks(path);
  if (buildId) {
    for (const d of dirs) {
      const f = join(d, '.build-id', buildId.slice(0, 2), `${buildId.slice(2)}.debug`);
      if (isFile(f)) return f;
    }
  }
  if (!link) return undefined;
  let real = path;
  try {
    real = realpathSync(path);
  } catch {
    /* gone: the candidates next to the recorded path are all there is */
  }
  const folders = [...new Set([dirname(path), dirname(real)])];
  const candidates = folders.flatMap((dir) => [join(dir, link.name), join(dir, '.debug', link.name), ...dirs.map((d) => join(d, dir, link.name))]);
  for (const f of candidates) {
    if (f === path || f === real || !isFile(f)) continue;
    try {
      if (fileCrc(f) === link.crc) return f;
    } catch {
      /* unreadable: try the next */
    }
  }
  return undefined;
}

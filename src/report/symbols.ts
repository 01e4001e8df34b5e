// Raw code addresses from a rank (call sites, faulting instructions, backtraces) to
// function and file:line, with the rank's load map ("lo hi bias path" lines written by the
// shim) and binutils' addr2line, one batch per object file.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';

export interface LoadedObject { lo: bigint; hi: bigint; bias: bigint; path: string }

export interface CodeLocation {
  /** object+0xoffset: always available */
  raw: string;
  fn?: string;
  /** file:line when the object has debug information */
  line?: string;
}

export function parseObjects(text: string): LoadedObject[] {
  const out: LoadedObject[] = [];
  for (const l of text.split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+) (.+)$/.exec(l.trim());
    if (m) out.push({ lo: BigInt(`0x${m[1]}`), hi: BigInt(`0x${m[2]}`), bias: BigInt(`0x${m[3]}`), path: m[4] });
  }
  return out;
}

/** One resolver per load map; remembers what addr2line said. */
export class Symbolizer {
  private cache = new Map<string, CodeLocation>();

  constructor(private objects: LoadedObject[]) {}

  private objectOf(addr: bigint): LoadedObject | undefined {
    return this.objects.find((o) => addr >= o.lo && addr < o.hi);
  }

  /**
   * Resolve many addresses at once. `returnAddress` marks addresses that are where a call returns
   * to (backtrace frames, call sites): the call instruction is the byte before.
   */
  resolve(addrs: { addr: bigint; returnAddress: boolean }[]): Map<string, CodeLocation> {
    const key = (a: { addr: bigint; returnAddress: boolean }) => `${a.addr.toString(16)}${a.returnAddress ? 'r' : ''}`;
    const todo = new Map<string, { file: string; offset: bigint; keys: string[] }[]>();
    for (const a of addrs) {
      const k = key(a);
      if (this.cache.has(k)) continue;
      const o = this.objectOf(a.addr);
      if (!o) {
        this.cache.set(k, { raw: `0x${a.addr.toString(16)}` });
        continue;
      }
      const offset = a.addr - o.bias;
      this.cache.set(k, { raw: `${basename(o.path)}+0x${offset.toString(16)}` });
      const lookup = a.returnAddress && offset > 0n ? offset - 1n : offset;
      const list = todo.get(o.path) ?? [];
      list.push({ file: o.path, offset: lookup, keys: [k] });
      todo.set(o.path, list);
    }
    for (const [path, list] of todo) {
      if (!existsSync(path)) continue;
      const r = spawnSync('addr2line', ['-f', '-C', '-e', path, ...list.map((x) => `0x${x.offset.toString(16)}`)],
        { encoding: 'utf8', timeout: 20000 });
      if (r.status !== 0 || !r.stdout) continue;
      const lines = r.stdout.split('\n');
      list.forEach((x, i) => {
        const fn = lines[2 * i];
        const where = lines[2 * i + 1];
        const loc = this.cache.get(x.keys[0])!;
        if (fn && fn !== '??') loc.fn = fn;
        if (where && !where.startsWith('??')) loc.line = `${basename(where.split(':')[0])}:${where.split(':')[1]?.split(' ')[0]}`;
      });
    }
    return new Map(addrs.map((a) => [key(a), this.cache.get(key(a))!]));
  }

  one(addr: bigint, returnAddress: boolean): CodeLocation {
    return [...this.resolve([{ addr, returnAddress }]).values()][0];
  }
}

/** "main at e5.c:22" / "e5+0x1234" */
export function describe(loc: CodeLocation | undefined): string {
  if (!loc) return '?';
  if (loc.line && loc.fn) return `${loc.fn} at ${loc.line}`;
  if (loc.fn) return `${loc.fn} (${loc.raw})`;
  return loc.raw;
}

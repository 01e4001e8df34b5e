// Code addresses recorded in the ranks, turned into function and file:line with the binaries'
// debug information (addr2line from binutils, one run per object file for all its addresses).
// A rank describes each object that holds a recorded address as "<start> <end> <bias> <path>"
// (hex: the object's code, its load bias); an address's place in the file is `address - bias`,
// the same in every rank whatever the address-space randomisation did.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import type { PythonSite } from './python-sites.js';

export interface Module { lo: number; hi: number; bias: number; path: string }

/** Modules from "<start> <end> <bias> <path>" lines (malformed lines are skipped). */
export function parseModules(lines: string[]): Module[] {
  const out: Module[] = [];
  for (const line of lines) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+) (.+)$/i.exec(line.trim());
    if (!m) continue;
    out.push({ lo: Number.parseInt(m[1], 16), hi: Number.parseInt(m[2], 16), bias: Number.parseInt(m[3], 16), path: m[4] });
  }
  return out.sort((a, b) => a.lo - b.lo);
}

/** Where an address is: its object and the offset there (the address as the object's ELF file
 *  numbers it); `path` is '' when no recorded object holds it. In a Python rank the address may
 *  be a Python call site's key instead (python-sites.ts): then `python` says which line. */
export interface Place { path: string; offset: number; python?: PythonSite }

export function placeOf(modules: Module[], addr: number, python?: Map<number, PythonSite>): Place {
  const py = python?.get(addr);
  if (py) return { path: '', offset: addr, python: py };
  for (const m of modules) if (addr >= m.lo && addr < m.hi) return { path: m.path, offset: addr - m.bias };
  return { path: '', offset: addr };
}

/** Equal for the same code in every rank (keys of Python sites differ between ranks, lines not). */
export const placeKey = (p: Place) => (p.python ? `py|${p.python.file}:${p.python.line}|${p.python.func}` : `${p.path}@${p.offset.toString(16)}`);

export interface Location {
  /** function name (demangled), '' when unknown */
  func: string;
  /** source file and line, '' / 0 when the object has no debug information */
  file: string;
  line: number;
  /** object file and offset, for display when there is nothing better */
  path: string;
  offset: number;
  /** a Python line: `file`, `line` and `func` are Python's; `cframe` is the C frame that called MPI */
  python?: { cframe: string };
}

/** "app.c:42 main", "main (libfoo.so+0x1a2b)" or "libfoo.so+0x1a2b"; a Python line "solver.py:42 (exchange)". */
export function describe(l: Location): string {
  if (l.python) return `${basename(l.file)}:${l.line} (${l.func})`;
  const where = `${basename(l.path) || '?'}+0x${l.offset.toString(16)}`;
  if (l.file) return `${basename(l.file)}:${l.line}${l.func ? ` ${l.func}` : ''}`;
  return l.func ? `${l.func} (${where})` : where;
}

/**
 * Resolves places in batches: add() everything, then resolve() runs addr2line once per object.
 * `returnAddress`: the places are return addresses (the instruction after a call), so the call
 * itself is looked up one byte earlier, as debuggers do.
 */
export class Symbolizer {
  private wanted = new Map<string, Set<number>>();
  private found = new Map<string, Location>();
  /** why some places have no file:line (addr2line missing, object gone), for the report */
  problems: string[] = [];

  constructor(private returnAddress = true) {}

  add(p: Place): void {
    if (!p.path) return; // also Python lines: nothing for addr2line
    let set = this.wanted.get(p.path);
    if (!set) this.wanted.set(p.path, (set = new Set()));
    set.add(p.offset);
  }

  resolve(): void {
    for (const [path, set] of this.wanted) {
      const offsets = [...set].filter((o) => !this.found.has(placeKey({ path, offset: o })));
      if (!offsets.length) continue;
      if (!existsSync(path)) {
        this.problems.push(`${path} is not here (a different machine, or rebuilt)`);
        continue;
      }
      const look = offsets.map((o) => (this.returnAddress && o > 0 ? o - 1 : o));
      const r = spawnSync('addr2line', ['-f', '-C', '-e', path], {
        input: look.map((o) => `0x${o.toString(16)}`).join('\n') + '\n', encoding: 'utf8', timeout: 60_000, maxBuffer: 1 << 28,
      });
      if (r.error || r.status !== 0) {
        this.problems.push(r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'addr2line not found (apt-get install -y binutils)' : `addr2line failed on ${path}`);
        continue;
      }
      const lines = r.stdout.split('\n');
      offsets.forEach((o, k) => {
        const func = lines[2 * k] ?? '??';
        const m = /^(.*):(\d+)/.exec((lines[2 * k + 1] ?? '').replace(/ \(discriminator \d+\)$/, ''));
        const file = m && m[1] !== '??' ? m[1] : '';
        this.found.set(placeKey({ path, offset: o }), {
          func: func === '??' ? '' : func, file, line: file && m ? Number(m[2]) : 0, path, offset: o,
        });
      });
    }
  }

  get(p: Place): Location {
    if (p.python) {
      const { file, line, func, cframe } = p.python;
      return { func, file, line, path: file, offset: 0, python: { cframe } };
    }
    return this.found.get(placeKey(p)) ?? { func: '', file: '', line: 0, path: p.path, offset: p.offset };
  }
}

// Code addresses recorded in the ranks, turned into function and file:line with the binaries'
// debug information (addr2line from binutils, one run per object file for all its addresses),
// read from the object or from its separate debug file (debug-files.ts: a -dbgsym package's, by
// build-id or .gnu_debuglink). Where there is no line information a function names an address
// only when the address lies inside it (elf-symbols.ts); otherwise the place is object+0xoffset.
// A rank describes each object that holds a recorded address as "<start> <end> <bias> <path>"
// (hex: the object's code, its load bias); an address's place in the file is `address - bias`,
// the same in every rank whatever the address-space randomisation did.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { debugDirs, findDebugFile } from './debug-files.js';
import { SymbolTable } from './elf-symbols.js';
import type { PythonSite } from './python-sites.js';

export interface Module {
  lo: number;
  hi: number;
  bias: number;
  path: string;
}

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
export interface Place {
  path: string;
  offset: number;
  python?: PythonSite;
}

export function placeOf(modules: Module[], addr: number, python?: Map<number, PythonSite>): Place {
  const py = python?.get(addr);
  if (py) return { path: '', offset: addr, python: py };
  for (const m of modules) if (addr >= m.lo && addr < m.hi) return { path: m.path, offset: addr - m.bias };
  return { path: '', offset: addr };
}

/** Equal for the same code in every rank (keys of Python sites differ between ranks, lines not). */
export const placeKey = (p: Place) => (p.python ? `py|${p.python.file}:${p.python.line}|${p.python.func}` : `${p.path}@${p.offset.toString(16)}`);

/** Per object file: where its line information is (the object, or its separate debug file) and
 * its sized symbols (read on first need); remembered for the life of the process. */
const debugInfo = new Map<string, { file: string; symbols: () => SymbolTable }>();
function debugOf(path: string): { file: string; symbols: () => SymbolTable } {
  const dirs = debugDirs();
  const key = `${dirs.join(':')}|${path}`;
  let d = debugInfo.get(key);
  if (!d) {
    const file = findDebugFile(path, dirs) ?? path;
    let table: SymbolTable | undefined;
    // a debug file keeps the .symtab the object lost; an object whose debug file has none: its own
    const symbols = () => (table ??= readSymbols(file, path));
    debugInfo.set(key, (d = { file, symbols }));
  }
  return d;
}
function readSymbols(file: string, path: string): SymbolTable {
  const t = SymbolTable.read(file);
  return t.size || file === path ? t : SymbolTable.read(path);
}

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
  /** why some places have no file:line (addr2line missing, object gone, no debug information), for the report */
  problems: string[] = [];
  private noDebug = new Set<string>();

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
      const { file: source, symbols } = debugOf(path);
      const r = spawnSync('addr2line', ['-f', '-C', '-e', source], {
        input: look.map((o) => `0x${o.toString(16)}`).join('\n') + '\n',
        encoding: 'utf8',
        timeout: 60_000,
        maxBuffer: 1 << 28,
      });
      if (r.error || r.status !== 0) {
        this.problems.push(
          r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT'
            ? 'addr2line not found (apt-get install -y binutils)'
            : `addr2line failed on ${source}`,
        );
        continue;
      }
      const lines = r.stdout.split('\n');
      let anyLine = false;
      offsets.forEach((o, k) => {
        const m = /^(.*):(\d+)/.exec((lines[2 * k + 1] ?? '').replace(/ \(discriminator \d+\)$/, ''));
        const file = m && m[1] !== '??' ? m[1] : '';
        // with line information addr2line's function is the debug information's; without, it is
        // the nearest symbol below, however far: only a symbol containing the address names it
        let func = file ? (lines[2 * k] ?? '??') : '??';
        if (func === '??') func = symbols().at(look[k]) ?? '';
        anyLine ||= !!file;
        this.found.set(placeKey({ path, offset: o }), { func, file, line: file && m ? Number(m[2]) : 0, path, offset: o });
      });
      if (!anyLine) this.noDebug.add(basename(path));
    }
    if (this.noDebug.size) {
      this.problems.push(
        `no debug information for ${[...this.noDebug].join(', ')}: install the -dbgsym package, or set MPII_DEBUG_DIR to the folder holding the .build-id/ debug files (docs/report.md)`,
      );
      this.noDebug.clear();
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

// Which function holds a code address when there is no debug information: the ELF symbol whose
// extent [value, value + size) contains it, from the symbol table with sizes (binutils' nm -S:
// .symtab, else .dynsym, the only one a stripped object keeps). An address past the end of the
// nearest symbol below it belongs to no symbol the file names (a static function of a stripped
// program, code without a symbol): the caller labels it object+0xoffset rather than borrow the
// neighbour's name, which is what addr2line and dladdr do (the nearest symbol below, any distance).
import { spawnSync } from 'node:child_process';

interface Sym {
  lo: number;
  hi: number;
  name: string;
}

export class SymbolTable {
  /** sorted by start; `reach[i]`: the largest end among symbols 0..i (overlapping aliases) */
  private reach: number[] = [];

  constructor(private syms: Sym[]) {
    syms.sort((a, b) => a.lo - b.lo || b.hi - a.hi);
    let r = 0;
    for (const s of syms) this.reach.push((r = Math.max(r, s.hi)));
  }

  get size(): number {
    return this.syms.length;
  }

  /** `nm -S` on the file: its .symtab, else its .dynsym; functions only (text, weak, ifunc). */
  static read(path: string): SymbolTable {
    const list = (dynamic: boolean) => {
      const r = spawnSync('nm', [...(dynamic ? ['-D'] : []), '-S', '--defined-only', '-C', path], { encoding: 'utf8', timeout: 60_000, maxBuffer: 1 << 28 });
      if (r.error || r.status !== 0 || typeof r.stdout !== 'string') return [];
      const out: Sym[] = [];
      for (const line of r.stdout.split('\n')) {
        const m = /^([0-9a-f]+) ([0-9a-f]+) [TtWwi] (.+)$/.exec(line);
        if (!m) continue; // no size (assembly without .size), or not code
        const lo = Number.parseInt(m[1], 16);
        const size = Number.parseInt(m[2], 16);
        if (size > 0) out.push({ lo, hi: lo + size, name: m[3] });
      }
      return out;
    };
    const stat = list(false);
    return new SymbolTable(stat.length ? stat : list(true));
  }

  /** The name of the function containing `offset` (the file's own numbering), or undefined. */
  at(offset: number): string | undefined {
    let lo = 0;
    let hi = this.syms.length - 1;
    let last = -1; // the last symbol starting at or below offset
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.syms[mid].lo <= offset) {
        last = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    for (let i = last; i >= 0 && this.reach[i] > offset; i--) if (this.syms[i].hi > offset) return this.syms[i].name;
    return undefined;
  }
}

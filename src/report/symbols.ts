// Raw code addresses from a rank (call sites, faulting instructions, backtraces) to function and
// file:line, for memcheck's findings: the rank's load map ("lo hi bias path" lines written by the
// shim) and the batch resolver of addr2line.ts, which the profile's call sites use too.
import { basename } from 'node:path';
import { parseModules, placeOf, Symbolizer as Batch, type Module, type Place } from './addr2line.js';
import type { PythonSite } from './python-sites.js';

export interface CodeLocation {
  /** object+0xoffset: always available */
  raw: string;
  fn?: string;
  /** file:line when the object has debug information, or the Python line */
  line?: string;
  /** a Python line: `fn` is the Python function */
  python?: true;
}

export function parseObjects(text: string): Module[] {
  return parseModules(text.split('\n'));
}

type Wanted = { addr: bigint; returnAddress: boolean };

/** One resolver per load map; remembers what addr2line said. */
export class Symbolizer {
  /** return addresses (backtrace frames, call sites: the call is the byte before) and exact ones */
  private calls = new Batch(true);
  private exact = new Batch(false);

  constructor(
    private objects: Module[],
    private python?: Map<number, PythonSite>,
  ) {}

  /** Resolve many addresses at once (one addr2line run per object file). */
  resolve(addrs: Wanted[]): Map<string, CodeLocation> {
    const key = (a: Wanted) => `${a.addr.toString(16)}${a.returnAddress ? 'r' : ''}`;
    const places = addrs.map((a) => ({ a, p: placeOf(this.objects, Number(a.addr), this.python) }));
    for (const { a, p } of places) (a.returnAddress ? this.calls : this.exact).add(p);
    this.calls.resolve();
    this.exact.resolve();
    return new Map(places.map(({ a, p }) => [key(a), this.location(a, p)]));
  }

  one(addr: bigint, returnAddress: boolean): CodeLocation {
    return [...this.resolve([{ addr, returnAddress }]).values()][0];
  }

  private location(a: Wanted, p: Place): CodeLocation {
    if (p.python)
      return { raw: p.python.cframe || `0x${a.addr.toString(16)}`, fn: p.python.func, line: `${basename(p.python.file)}:${p.python.line}`, python: true };
    if (!p.path) return { raw: `0x${a.addr.toString(16)}` };
    const l = (a.returnAddress ? this.calls : this.exact).get(p);
    const loc: CodeLocation = { raw: `${basename(p.path)}+0x${p.offset.toString(16)}` };
    if (l.func) loc.fn = l.func;
    if (l.file) loc.line = `${basename(l.file)}:${l.line}`;
    return loc;
  }
}

/** "main at e5.c:22" / "e5+0x1234" */
export function describe(loc: CodeLocation | undefined): string {
  if (!loc) return '?';
  if (loc.python) return `${loc.line} (${loc.fn})`;
  if (loc.line && loc.fn) return `${loc.fn} at ${loc.line}`;
  if (loc.fn) return `${loc.fn} (${loc.raw})`;
  return loc.raw;
}

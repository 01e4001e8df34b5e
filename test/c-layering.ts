// The C core's layering, checked from the sources (docs/architecture-c-core.md): the module graph
// of preload/**/*.{c,h} and the generated files must be acyclic, the core must include nothing of
// a tool, and every #include must be at the top of its file. Pure functions over a map of files, so
// a test can feed a made-up tree and see each rule fire.
import { dirname, join, posix } from 'node:path';

/** path (relative to the repository, '/'-separated) → text */
export type Tree = Map<string, string>;

export interface Layering {
  /** module → the modules it depends on, and why (the include line or the declaration) */
  edges: Map<string, Map<string, string>>;
  /** each cycle as a list of modules, the first repeated at the end, with the reason of each step */
  cycles: string[][];
  /** other broken rules, one line each */
  problems: string[];
}

export interface Options {
  /** where `#include "x"` is looked up after the including file's folder (the shim's -I order) */
  includeDirs: string[];
  /** headers that declare an interface implemented elsewhere: no declaration edges (the public API) */
  facades: string[];
  /** files that belong to another file's module (generated headers and the .c that defines them) */
  sameModule: [RegExp, string][];
  /** files exempt from "a .c declares another module's function" (built apart from the shim) */
  separate: RegExp;
  /** the core's folder: it may include nothing under `toolsDir` */
  coreDir: string;
  toolsDir: string;
}

export const SHIM_OPTIONS: Options = {
  includeDirs: ['gen', 'preload/core', 'preload/include'],
  // The public API for tools (what an external tool gets), and the generated MPI layer (mpi.h's
  // types, function ids and the table of the library's functions, from the wrappers' generator)
  facades: ['preload/include/mpii_tool.h', 'gen/mpii_gen.h', 'gen/mpii_objects.h', 'gen/qmpi.h'],
  // the generated registration (mpii_tools.c) defines the table builtin_tools.h declares and each
  // tool's typed options (mpii_options_<tool>.h): one module. It names the tools' init functions
  // itself, so the core reaches the tools only through this table, at link time.
  sameModule: [[/^(gen\/mpii_options_\w+|preload\/core\/builtin_tools)\.h$/, 'gen/mpii_tools']],
  // the Python call-site helper is a library of its own, built for one interpreter
  separate: /^preload\/python\//,
  coreDir: 'preload/core',
  toolsDir: 'preload/tools',
};

/** x.c and x.h in one folder are one module. */
export const moduleOf = (file: string, o?: Options): string => o?.sameModule.find(([re]) => re.test(file))?.[1] ?? file.replace(/\.[ch]$/, '');

/** The text without comments and string/char literals (kept as "" / ''), lines preserved. */
export function stripComments(src: string): string {
  let out = '';
  for (let i = 0; i < src.length;) {
    const c = src[i];
    if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      const body = src.slice(i, end < 0 ? src.length : end + 2);
      out += body.replace(/[^\n]/g, ' ');
      i += body.length;
    } else if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
      out += c + c;
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

interface Include {
  name: string;
  line: number;
}

/** The `#include "..."` lines (<...> are the system's and the MPI's). */
export function includesOf(src: string): Include[] {
  const out: Include[] = [];
  src.split('\n').forEach((l, i) => {
    const m = /^\s*#\s*include\s*"([^"]+)"/.exec(l);
    if (m) out.push({ name: m[1], line: i + 1 });
  });
  return out;
}

/** The first line (1-based) that is code: not blank, not a comment, not a preprocessor line. */
export function firstCodeLine(src: string): number {
  const lines = stripComments(src).split('\n');
  let continued = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].trim();
    const directive: boolean = continued || l.startsWith('#');
    continued = directive && l.endsWith('\\');
    if (!directive && l !== '') return i + 1;
  }
  return lines.length + 1;
}

/** Top-level statements of C text without comments and preprocessor lines: declarations end
 *  with `;`, definitions of functions with their body (given as `{}`). */
function topLevel(src: string): { text: string; body: boolean }[] {
  let continued = false; // inside a directive continued with a backslash (a macro's body)
  const code = stripComments(src)
    .split('\n')
    .filter((l) => {
      const directive = continued || l.trim().startsWith('#');
      continued = directive && l.trimEnd().endsWith('\\');
      return !directive;
    })
    .join('\n');
  const out: { text: string; body: boolean }[] = [];
  let cur = '';
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === '{') {
      // a function body when the statement so far ends with `)` (maybe `__attribute__((…))`) and
      // has no `=` (an initializer's braces belong to the statement)
      const head = stripAttributes(cur).trim();
      let depth = 1,
        j = i + 1;
      for (; j < code.length && depth; j++) depth += code[j] === '{' ? 1 : code[j] === '}' ? -1 : 0;
      if (head.endsWith(')') && !head.includes('=')) {
        out.push({ text: head, body: true });
        cur = '';
      } else {
        cur += ' {} ';
      }
      i = j - 1;
    } else if (c === ';') {
      if (cur.trim()) out.push({ text: cur.replace(/\s+/g, ' ').trim(), body: false });
      cur = '';
    } else {
      cur += c;
    }
  }
  return out;
}

/** The names a top-level statement declares or defines (functions, variables); none for types. */
function namesOf(stmt: string): string[] {
  const s = stripAttributes(stmt).replace(/\s+/g, ' ').trim();
  if (/^(typedef|static)\b/.test(s) || /^(struct|union|enum)\b[^(=]*(\{\}|$)/.test(s) || s === '') return [];
  if (/^extern\s*""/.test(s)) return []; // extern "C" (the literal was blanked)
  // a pointer to a function: its `(*name)` is the statement's first parenthesis (a function's
  // parameter that is one, `void f(void (*cb)(int))`, is not)
  const fp = /^[^(]*\(\s*\*\s*(?:const\s+)?(\w+)\s*\)/.exec(s);
  if (fp) return [fp[1]];
  const fn = /(\w+)\s*\(/.exec(s);
  if (fn) return [fn[1]];
  // variables: `T a, b[N] = {...}`: each declarator's name
  const parts = s.replace(/=[^,]*/g, '').split(',');
  return parts.map((p) => /(\w+)\s*(\[[^\]]*\]\s*)*$/.exec(p.trim())?.[1]).filter((n): n is string => !!n);
}

/** Without `__attribute__((…))` (balanced parentheses). */
function stripAttributes(s: string): string {
  let out = s;
  for (let i = out.indexOf('__attribute__'); i >= 0; i = out.indexOf('__attribute__')) {
    let j = out.indexOf('(', i);
    if (j < 0) break;
    for (let depth = 0; j < out.length; j++) {
      depth += out[j] === '(' ? 1 : out[j] === ')' ? -1 : 0;
      if (depth === 0) break;
    }
    out = `${out.slice(0, i)} ${out.slice(j + 1)}`;
  }
  return out;
}

// not names of functions or variables: keywords (a macro's body seen at the top level) and macros
const NOT_NAMES = /^(if|else|for|while|do|switch|return|sizeof|case|goto|[A-Z][A-Z0-9_]*)$/;

/** What a file declares without defining (a prototype, `extern T x`) and what it defines. */
export function symbolsOf(src: string): { declared: string[]; defined: string[] } {
  const declared: string[] = [];
  const defined: string[] = [];
  for (const st of topLevel(src)) {
    const names = namesOf(st.text).filter((n) => !NOT_NAMES.test(n));
    const definition =
      st.body || /\balias\s*\(/.test(st.text) || (!/^extern\b/.test(st.text) && !/\w\s*\(/.test(st.text.replace(/\(\s*\*\s*\w+\s*\)\s*\(.*$/, '')));
    (definition ? defined : declared).push(...names);
  }
  return { declared, defined };
}

/** Resolve `#include "name"` from `file` as the compiler does (the file's folder, then -I). */
function resolveInclude(tree: Tree, file: string, name: string, o: Options): string | undefined {
  for (const dir of [dirname(file), ...o.includeDirs]) {
    const p = posix.normalize(join(dir, name));
    if (tree.has(p)) return p;
  }
  return undefined;
}

/** Tarjan's strongly connected components of size > 1 (or a self-loop). */
function components(edges: Map<string, Map<string, string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>(),
    low = new Map<string, number>(),
    stack: string[] = [],
    on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

/** One cycle through `start` inside its component (breadth-first: the shortest way back). */
function cycleThrough(edges: Map<string, Map<string, string>>, comp: Set<string>, start: string): string[] {
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!comp.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let x = v; x !== start; x = prev.get(x)!) path.splice(1, 0, x);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

/** Every rule over a tree of C files (paths ending in .c or .h; others are ignored). */
export function checkLayering(tree: Tree, options: Partial<Options> = {}): Layering {
  const o: Options = { ...SHIM_OPTIONS, ...options };
  const edges = new Map<string, Map<string, string>>();
  const problems: string[] = [];
  const files = [...tree.keys()].filter((f) => /\.[ch]$/.test(f)).sort();
  const addEdge = (from: string, to: string, why: string) => {
    if (from === to) return;
    if (!edges.has(from)) edges.set(from, new Map());
    if (!edges.get(from)!.has(to)) edges.get(from)!.set(to, why);
  };
  // who defines each name (a name defined by several modules, as the static archive's variants
  // are, counts for each)
  const definers = new Map<string, Set<string>>();
  for (const f of files) {
    if (!edges.has(moduleOf(f, o))) edges.set(moduleOf(f, o), new Map());
    if (!f.endsWith('.c')) continue;
    for (const n of symbolsOf(tree.get(f)!).defined) {
      if (!definers.has(n)) definers.set(n, new Set());
      definers.get(n)!.add(moduleOf(f, o));
    }
  }
  for (const f of files) {
    const src = tree.get(f)!;
    const top = firstCodeLine(src);
    for (const inc of includesOf(src)) {
      const target = resolveInclude(tree, f, inc.name, o);
      if (inc.line > top) problems.push(`${f}:${inc.line}: #include "${inc.name}" after the first code (line ${top}): includes go at the top of a file`);
      if (!target) continue; // a system or MPI header
      if (f.startsWith(`${o.coreDir}/`) && target.startsWith(`${o.toolsDir}/`)) {
        problems.push(`${f}:${inc.line}: the core includes a tool's file (${target})`);
      }
      addEdge(moduleOf(f, o), moduleOf(target, o), `${f}:${inc.line} includes "${inc.name}"`);
    }
    // A header that declares what another module's .c defines stands for that module: whoever
    // includes it depends on it. (The public API header is an interface: exempt.)
    if (f.endsWith('.h') && !o.facades.includes(f)) {
      for (const n of symbolsOf(src).declared) {
        for (const m of definers.get(n) ?? []) addEdge(moduleOf(f, o), m, `${f} declares ${n}, defined in ${m}.c`);
      }
    }
    // A .c file that declares another module's function itself hides the dependency from the
    // includes: it belongs in that module's header. (Generated files are exempt.)
    if (f.endsWith('.c') && !f.startsWith('gen/') && !o.separate.test(f)) {
      for (const n of symbolsOf(src).declared) {
        for (const m of definers.get(n) ?? []) {
          if (m !== moduleOf(f, o)) problems.push(`${f}: declares ${n} (defined in ${m}.c) itself: include ${m}.h instead`);
        }
      }
    }
  }
  const cycles = components(edges).map((comp) => {
    const path = cycleThrough(edges, new Set(comp), comp[0]);
    const steps = path.slice(0, -1).map((v, i) => `${v} -> ${path[i + 1]} (${edges.get(v)!.get(path[i + 1])})`);
    return [`${comp.join(' <-> ')}`, ...steps];
  });
  return { edges, cycles, problems };
}

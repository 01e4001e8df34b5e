// Reads the C function prototypes out of a preprocessed mpi.h.
// We parse the compiler's `-E -P` output rather than the header text so that macros such as
// OMPI_DECLSPEC or MPICH_API_PUBLIC are already expanded: what is left is plain C declarations.

export interface CParam {
  /** the declaration as written, e.g. `const void *buf` or `int ranges[][3]` */
  decl: string;
  /** the parameter name (`buf`), or a synthesized `a<i>` when the header leaves it unnamed */
  name: string;
  /** the type with the name removed (`const void *`), arrays kept as pointers for typedefs */
  type: string;
}

export interface CFunction {
  name: string;
  ret: string;
  params: CParam[];
  variadic: boolean;
}

/** Remove `__attribute__((...))`, `__asm__(...)` and `extern` so only the prototype is left. */
function stripDecorations(s: string): string {
  let out = s;
  for (const kw of ['__attribute__', '__asm__', '__asm', '__declspec']) {
    let i: number;
    while ((i = out.indexOf(kw)) >= 0) {
      let j = i + kw.length;
      while (j < out.length && out[j] !== '(') j++;
      let depth = 0;
      let k = j;
      for (; k < out.length; k++) {
        if (out[k] === '(') depth++;
        else if (out[k] === ')' && --depth === 0) break;
      }
      out = out.slice(0, i) + out.slice(k + 1);
    }
  }
  return out
    .replace(/\bextern\b/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Split top-level statements on `;`, skipping bodies in braces (structs, enums). */
function topLevelStatements(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '{') depth++;
    if (ch === '}') depth--;
    if (ch === ';' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  return out;
}

function splitParams(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(' || ch === '[') depth++;
    if (ch === ')' || ch === ']') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

const TYPE_WORDS = new Set([
  'const',
  'volatile',
  'unsigned',
  'signed',
  'int',
  'char',
  'long',
  'short',
  'double',
  'float',
  'void',
  'struct',
  'enum',
  'restrict',
  '__restrict',
]);

function parseParam(decl: string, index: number): CParam {
  const d = decl.replace(/\s+/g, ' ').trim();
  const arrays = /((?:\[[^\]]*\]\s*)*)$/.exec(d)![1];
  const base = d.slice(0, d.length - arrays.length).trim();
  const last = /([A-Za-z_]\w*)$/.exec(base);
  const qualifiers = new Set(['const', 'volatile', 'restrict', '__restrict']);
  if (last && !TYPE_WORDS.has(last[1])) {
    const before = base
      .slice(0, last.index)
      .split(/[\s*]+/)
      .filter((w) => w && !qualifiers.has(w));
    if (before.length > 0) {
      const typeBase = base.slice(0, last.index).trim();
      // `int ranges[][3]` is really `int (*)[3]`; `int a[]` is `int *`
      const dims = arrays.replace(/\s+/g, '').match(/\[[^\]]*\]/g) ?? [];
      const type = dims.length === 0 ? typeBase : dims.length === 1 ? `${typeBase} *` : `${typeBase} (*)${dims.slice(1).join('')}`;
      return { decl: d, name: last[1], type };
    }
  }
  const name = `a${index}`;
  const dims = arrays.replace(/\s+/g, '');
  return dims ? { decl: `${base} ${name}${dims}`, name, type: `${base} *` } : { decl: `${d} ${name}`, name, type: d };
}

/** All functions named `prefix*` declared in the preprocessed header text. */
export function parseFunctions(preprocessed: string, prefixes: string[]): CFunction[] {
  const found = new Map<string, CFunction>();
  for (const raw of topLevelStatements(preprocessed)) {
    if (raw.includes('typedef')) continue;
    const s = stripDecorations(raw);
    const m = /^([A-Za-z_][\w\s*]*?)\s*\b([A-Za-z_]\w*)\s*\((.*)\)$/s.exec(s);
    if (!m) continue;
    const [, ret, name, paramText] = m;
    if (!prefixes.some((p) => name.startsWith(p))) continue;
    let parts = splitParams(paramText);
    let variadic = false;
    if (parts.length === 1 && parts[0] === 'void') parts = [];
    if (parts.length && parts[parts.length - 1] === '...') {
      variadic = true;
      parts = parts.slice(0, -1);
    }
    found.set(name, { name, ret: ret.trim(), params: parts.map(parseParam), variadic });
  }
  return [...found.values()];
}

/** Names of the enum constants of `enum <name> { ... }` in declaration order. */
export function parseEnum(preprocessed: string, enumName: string): string[] {
  const m = new RegExp(`enum\\s+${enumName}\\s*\\{([^}]*)\\}`).exec(preprocessed);
  if (!m) return [];
  return m[1]
    .split(',')
    .map((e) => e.replace(/=.*/s, '').trim())
    .filter(Boolean);
}

/** Open MPI's predefined handles are global objects (`ompi_mpi_comm_world`); list them. */
export function parseExternObjects(preprocessed: string, prefix: string): string[] {
  const names = new Set<string>();
  for (const raw of topLevelStatements(preprocessed)) {
    const s = stripDecorations(raw);
    if (!/^extern\b|\bstruct\b/.test(raw.replace(/__attribute__\(\(.*?\)\)/g, '').trim())) continue;
    if (s.includes('(')) continue;
    const m = new RegExp(`\\b(${prefix}\\w*)\\s*(\\[[^\\]]*\\])?$`).exec(s);
    if (m && /\bextern\b/.test(raw)) names.add(m[1]);
  }
  return [...names].sort();
}

/** Names of the function-like macros in the compiler's `-E -dM` output (`#define MPI_Comm_c2f(comm) …`). */
export function parseFunctionMacros(defines: string): Set<string> {
  return new Set([...defines.matchAll(/^#define\s+([A-Za-z_]\w*)\(/gm)].map((m) => m[1]));
}

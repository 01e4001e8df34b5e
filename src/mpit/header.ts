// The MPI_T constants of an installed mpi.h, read from its text: the values of the MPI_T enums
// (class, binding, verbosity, scope — Open MPI counts from 0, MPICH from arbitrary offsets), the
// error codes, and the predefined datatypes (MPICH: integer handles; Open MPI: the address of a
// global object in libmpi, named here and resolved by the FFI side).

export interface HeaderConstants {
  /** enum constant and #define values that are plain numbers, by name */
  values: Map<string, number>;
  /** datatype name -> MPICH handle value, or Open MPI's global object symbol */
  datatypes: Map<string, number | string>;
}

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ');
}

/** Evaluates `a`, `0x1f`, `NAME`, `NAME + 1`, `A - B` against the names known so far. */
function evaluate(expr: string, known: Map<string, number>): number | undefined {
  const tokens = expr
    .replace(/[()]/g, ' ')
    .trim()
    .split(/\s*([+-])\s*/)
    .filter((t) => t !== '');
  let total = 0;
  let sign = 1;
  for (const t of tokens) {
    if (t === '+') sign = 1;
    else if (t === '-') sign = -1;
    else {
      const v = /^(0x[0-9a-f]+|\d+)[uUlL]*$/i.test(t) ? Number.parseInt(t, /^0x/i.test(t) ? 16 : 10) : known.get(t);
      if (v === undefined) return undefined;
      total += sign * v;
    }
  }
  return tokens.length ? total : undefined;
}

export function parseHeader(text: string): HeaderConstants {
  const src = stripComments(text);
  const values = new Map<string, number>();
  // #define NAME <number>
  for (const m of src.matchAll(/^[ \t]*#[ \t]*define[ \t]+(MPI\w*)[ \t]+\(?[ \t]*(-?(?:0x[0-9a-fA-F]+|\d+))[ \t]*\)?[ \t]*$/gm)) {
    values.set(m[1], Number.parseInt(m[2], /0x/i.test(m[2]) ? 16 : 10));
  }
  // enum bodies: implicit values count up from the previous one
  for (const m of src.matchAll(/\benum\b[^{;]*\{([^}]*)\}/g)) {
    let next = 0;
    for (const item of m[1].split(',')) {
      const [rawName, rawExpr] = item.split('=');
      const name = rawName.trim();
      if (!/^[A-Za-z_]\w*$/.test(name)) continue;
      const v = rawExpr !== undefined ? evaluate(rawExpr, values) : next;
      if (v === undefined) continue;
      values.set(name, v);
      next = v + 1;
    }
  }
  const datatypes = new Map<string, number | string>();
  const aliases = new Map<string, string>();
  for (const m of src.matchAll(/^[ \t]*#[ \t]*define[ \t]+(MPI_[A-Z0-9_]+)[ \t]+(.+?)[ \t]*$/gm)) {
    const [, name, body] = m;
    const mpich = /^\(\s*\(\s*MPI_Datatype\s*\)\s*(0x[0-9a-fA-F]+)\s*\)$/.exec(body);
    const ompi = /^OMPI_PREDEFINED_GLOBAL\s*\(\s*MPI_Datatype\s*,\s*(\w+)\s*\)$/.exec(body);
    if (mpich) datatypes.set(name, Number.parseInt(mpich[1], 16));
    else if (ompi) datatypes.set(name, ompi[1]);
    else if (/^MPI_[A-Z0-9_]+$/.test(body)) aliases.set(name, body);
  }
  for (const [name, target] of aliases) {
    const v = datatypes.get(target);
    if (v !== undefined && !datatypes.has(name)) datatypes.set(name, v);
  }
  return { values, datatypes };
}

/** The names of an enum family by value: prefix MPI_T_PVAR_CLASS_ -> { 2: 'size', … } (lower case,
 *  prefix removed; MPICH's *_INVALID markers left out). */
export function namesByValue(h: HeaderConstants, prefix: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const [name, v] of h.values) {
    if (!name.startsWith(prefix) || name.endsWith('_INVALID')) continue;
    if (!out.has(v)) out.set(v, name.slice(prefix.length).toLowerCase());
  }
  return out;
}

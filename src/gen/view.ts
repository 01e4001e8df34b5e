// The per-call argument view: `mpii_args_t` (one typed field per role in the spec's `view`) and
// one initializer macro per function, MPII_ARGS_<function>, that fills the fields its parameters
// can fill. Built-in tools then read "the peer" or "the send count" of any call without knowing
// where a function keeps it, and the compiler drops every field a tool does not read.
import type { SpecFunction } from './spec.js';

const fieldName = (role: string) => role.replace(/[^A-Za-z0-9]+/g, '_');
const norm = (t: string) =>
  t
    .replace(/\bconst\b/g, '')
    .replace(/\s+/g, ' ')
    .replace(/ \*/g, '*')
    .trim();
const INTEGERS = new Set(['int', 'MPI_Count', 'MPI_Aint', 'MPI_Offset']);

/** The field a parameter of type `ptype` fills for a role whose field has type `ftype`, or null. */
function fieldFor(role: string, ftype: string, ptype: string): { name: string; type: string } | null {
  const f = norm(ftype);
  const p = norm(ptype);
  const name = fieldName(role);
  if (f === p) return { name, type: ftype };
  if (f === 'MPI_Count' && INTEGERS.has(p)) return { name, type: ftype };
  if (f === 'void*' && p.endsWith('*')) return { name, type: ftype };
  if (f === 'int*' && p === 'MPI_Count*') return { name: `${name}_c`, type: 'const MPI_Count *' };
  return null;
}

/** Every field of mpii_args_t: the spec's view plus `_c` twins of integer-array fields. */
function viewFields(view: Record<string, string>): Array<{ name: string; type: string }> {
  const out: Array<{ name: string; type: string }> = [];
  for (const [role, type] of Object.entries(view)) {
    out.push({ name: fieldName(role), type });
    if (norm(type) === 'int*') out.push({ name: `${fieldName(role)}_c`, type: 'const MPI_Count *' });
  }
  return out;
}

function argsInitializer(f: SpecFunction, view: Record<string, string>): string {
  const inits: string[] = [];
  const seen = new Set<string>();
  f.params.forEach((p, i) => {
    const ftype = view[f.roles[i]];
    if (!ftype) return;
    const field = fieldFor(f.roles[i], ftype, p.type);
    if (!field || seen.has(field.name)) return;
    seen.add(field.name);
    inits.push(`.${field.name} = (${field.type}) ${p.name}`);
  });
  return `{ ${inits.length ? inits.join(', ') : '0'} }`;
}

export function emitView(functions: SpecFunction[], view: Record<string, string>): string[] {
  return [
    '/* The arguments of one call, by role (fields a function has no parameter for stay zero).',
    " * In a wrapper: `mpii_args_t a = MPII_ARGS_MPI_Send;` (uses the wrapper's parameter names). */",
    'typedef struct {',
    ...viewFields(view).map((fl) => `    ${fl.type}${fl.type.endsWith('*') ? '' : ' '}${fl.name};`),
    '} mpii_args_t;',
    ...functions.map((f) => `#define MPII_ARGS_${f.name} ((mpii_args_t) ${argsInitializer(f, view)})`),
  ];
}

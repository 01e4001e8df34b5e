// The spec: roles and kinds the header cannot tell (preload/spec/mpi.yaml), joined to the
// function list parsed from the installed mpi.h.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { CFunction } from './header.js';

export interface SpecFile {
  roles: Record<string, string>;
  functions: Record<string, { kind?: string; roles?: Record<string, string>; note?: string }>;
  skip: string[];
  /** role -> C type of its field in mpii_args_t (the per-call argument view) */
  view: Record<string, string>;
  /** functions that get Fortran entry points (src/gen/fortran.ts) */
  fortran: string[];
}

export interface SpecFunction extends CFunction {
  /** QMPI enum constant, e.g. MPI_SEND_T */
  enumName: string;
  kind: string;
  roles: string[];
}

export function loadSpec(path: string): SpecFile {
  const raw = parse(readFileSync(path, 'utf8')) as Partial<SpecFile>;
  return { roles: raw.roles ?? {}, functions: raw.functions ?? {}, skip: raw.skip ?? [], view: raw.view ?? {}, fortran: raw.fortran ?? [] };
}

/** MPICH's rule: MPI_Comm_rank -> MPI_COMM_RANK_T. */
export function enumNameOf(fn: string): string {
  return `${fn.toUpperCase()}_T`;
}

/** The QMPI names of a function: MPI_Send -> QMPI_Send, MPIX_Foo -> QMPIX_Foo. */
export function qmpiNameOf(fn: string): string {
  return `Q${fn}`;
}

export function baseOfLargeCount(fn: string): string {
  return fn.endsWith('_c') ? fn.slice(0, -2) : fn;
}

export function annotate(fns: CFunction[], spec: SpecFile): SpecFunction[] {
  return fns
    .filter((f) => !spec.skip.includes(f.name))
    .map((f) => {
      const entry = spec.functions[f.name] ?? spec.functions[baseOfLargeCount(f.name)] ?? {};
      const roles = f.params.map((p) => entry.roles?.[p.name] ?? spec.roles[p.name] ?? 'other');
      return { ...f, enumName: enumNameOf(f.name), kind: entry.kind ?? 'local', roles };
    });
}

/** Every role and kind named in the spec, in a stable order, for the generated C enums. */
export function roleNames(spec: SpecFile): string[] {
  const set = new Set<string>(['other', ...Object.values(spec.roles)]);
  for (const f of Object.values(spec.functions)) for (const r of Object.values(f.roles ?? {})) set.add(r);
  return [...set];
}

export function kindNames(spec: SpecFile): string[] {
  const set = new Set<string>(['local']);
  for (const f of Object.values(spec.functions)) if (f.kind) set.add(f.kind);
  return [...set];
}

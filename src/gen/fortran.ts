// Emits the Fortran entry points of the shim (appended to mpii_wrappers.c, next to the
// mpii_top_X helpers they call): for every function in the spec's `fortran` list,
//   mpif.h / `use mpi`   mpi_x_ (+ aliases mpi_x, mpi_x__, MPI_X): every argument by reference,
//                        handles as INTEGER, a trailing ierror
//   `use mpi_f08`        mpi_x_f08_: the same, handles as TYPE(MPI_Comm) (one INTEGER), ierror
//                        OPTIONAL (NULL when absent); functions with a choice buffer are also
//                        mpi_x_f08ts_, the buffer a gfortran array descriptor (MPICH, Open MPI 6)
// Each one converts handles (MPI_X_f2c/c2f through the PMPI pointers; casts where the MPI's
// handles are integers), the Fortran sentinels and 1-based indices, then enters the
// same QMPI stack as MPI_X with the Fortran caller's address. Types it cannot convert stop the
// build with the function's name, so the list in preload/spec/mpi.yaml stays honest.
import type { SpecFunction } from './spec.js';

type Iface = 'f77' | 'f08' | 'f08ts';

const HANDLES = new Set(['MPI_Comm', 'MPI_Datatype', 'MPI_Op', 'MPI_Group', 'MPI_Win', 'MPI_Request', 'MPI_Info', 'MPI_Errhandler', 'MPI_Message', 'MPI_File']);
const WIDE = new Set(['MPI_Aint', 'MPI_Offset', 'MPI_Count']);

const norm = (t: string) =>
  t
    .replace(/\s+/g, ' ')
    .replace(/ \*/g, '*')
    .replace(/ ?\[\]/g, '*')
    .trim();
const base = (t: string) =>
  norm(t)
    .replace(/\bconst\b/g, '')
    .replace(/\*/g, '')
    .trim();
const isPtr = (t: string) => norm(t).endsWith('*');
const isConst = (t: string) => /\bconst\b/.test(t);

interface Conv {
  fdecl: string;
  fname: string;
  pre: string[];
  arg: string;
  post: string[];
}

export interface FortranInput {
  flavor: 'openmpi' | 'mpich';
  functions: SpecFunction[];
  list: string[];
}

function converters(fns: Map<string, SpecFunction>) {
  const call = (fn: string, x: string, fallbackType: string) => {
    const f = fns.get(fn);
    return f ? `((mpii_real_${fn}_t) mpii_pmpi_fn[${f.enumName}])(${x})` : `((${fallbackType}) (${x}))`;
  };
  const stem = (h: string) => (h === 'MPI_Datatype' ? 'MPI_Type' : h);
  return {
    f2c: (h: string, x: string) => call(`${stem(h)}_f2c`, x, h),
    c2f: (h: string, x: string) => call(`${stem(h)}_c2f`, x, 'MPI_Fint'),
    /** true when handles of this type are the Fortran integers themselves (MPICH) */
    same: (h: string) => !fns.has(`${stem(h)}_f2c`),
  };
}

function convert(f: SpecFunction, iface: Iface, k: number, fns: Map<string, SpecFunction>): Conv[] {
  const cv = converters(fns);
  const countParam = f.params.find((p) => p.name === 'count' || p.name === 'incount');
  const count = countParam ? `(int) *f_${countParam.name}` : null;
  const out: Conv[] = [];
  for (const p of f.params) {
    const n = p.name;
    const fn = `f_${n}`;
    const b = base(p.type);
    const array = n.startsWith('array_of_');
    if (f.kind === 'init' && (n === 'argc' || n === 'argv')) {
      out.push({ fdecl: '', fname: '', pre: [], arg: 'NULL', post: [] });
    } else if (n === 'baseptr') {
      // not a choice buffer: where the library stores an address (INTEGER(KIND=MPI_ADDRESS_KIND)
      // in mpif.h, TYPE(C_PTR) in `use mpi` and mpi_f08), passed on as it is
      out.push({ fdecl: `void *${fn}`, fname: fn, pre: [], arg: fn, post: [] });
    } else if (b === 'void' && isPtr(p.type)) {
      if (iface === 'f08ts') {
        out.push({ fdecl: `void *${fn}`, fname: fn, pre: [`int nc_${n} = 0;`, `void *c_${n} = mpii_fdesc(${fn}, ${k}, &nc_${n});`], arg: `c_${n}`, post: [] });
      } else {
        out.push({ fdecl: `void *${fn}`, fname: fn, pre: [], arg: `mpii_fbuf(${fn}, ${k})`, post: [] });
      }
    } else if (b === 'int' && !isPtr(p.type)) {
      out.push({ fdecl: `MPI_Fint *${fn}`, fname: fn, pre: [], arg: `(int) *${fn}`, post: [] });
    } else if (WIDE.has(b)) {
      out.push({ fdecl: `${b} *${fn}`, fname: fn, pre: [], arg: isPtr(p.type) ? fn : `*${fn}`, post: [] });
    } else if (b === 'int') {
      const post =
        n === 'index'
          ? [`if (rc == MPI_SUCCESS && *${fn} >= 0) (*${fn})++; /* Fortran counts from 1 */`]
          : n === 'array_of_indices'
            ? [`if (rc == MPI_SUCCESS) for (int i = 0; i < *f_outcount; i++) ${fn}[i]++;`]
            : [];
      out.push({ fdecl: `MPI_Fint *${fn}`, fname: fn, pre: [], arg: `(int *) ${fn}`, post });
    } else if (HANDLES.has(b) && !isPtr(p.type)) {
      out.push({ fdecl: `MPI_Fint *${fn}`, fname: fn, pre: [], arg: cv.f2c(b, `*${fn}`), post: [] });
    } else if (HANDLES.has(b) && !array) {
      out.push({
        fdecl: `MPI_Fint *${fn}`,
        fname: fn,
        pre: [`${b} c_${n} = ${cv.f2c(b, `*${fn}`)};`],
        arg: `&c_${n}`,
        post: isConst(p.type) ? [] : [`*${fn} = ${cv.c2f(b, `c_${n}`)};`],
      });
    } else if (HANDLES.has(b) && count) {
      if (cv.same(b)) {
        out.push({ fdecl: `MPI_Fint *${fn}`, fname: fn, pre: [], arg: `(${b} *) ${fn}`, post: [] });
      } else {
        out.push({
          fdecl: `MPI_Fint *${fn}`,
          fname: fn,
          pre: [`MPII_F_ARRAY(${b}, c_${n}, ${count});`, `for (int i = 0; i < ${count}; i++) c_${n}[i] = ${cv.f2c(b, `${fn}[i]`)};`],
          arg: `c_${n}`,
          post: [`for (int i = 0; i < ${count}; i++) ${fn}[i] = ${cv.c2f(b, `c_${n}[i]`)};`, `MPII_F_ARRAY_FREE(c_${n});`],
        });
      }
    } else if (b === 'MPI_Status' && !array) {
      // The Fortran status itself, as the MPIs' own bindings pass it (fortran.h asserts the
      // layouts agree), never a copy: a tool that fills a status later (overlap's receives in
      // the background, exact when MPI_GET_COUNT reads it) must find it at the address the
      // program reads. A copy made QE's MPI_GET_COUNT after a short MPI_RECV return the posted
      // count, and pw.x wrote past its arrays.
      const ign = `${fn} == mpii_fsent[${k}].status_ignore`;
      out.push({
        fdecl: `MPI_Fint *${fn}`,
        fname: fn,
        pre: [],
        arg: isConst(p.type) ? `(const MPI_Status *) ${fn}` : `(${ign} ? MPI_STATUS_IGNORE : (MPI_Status *) ${fn})`,
        post: [],
      });
    } else if (b === 'MPI_Status' && count) {
      const ign = `${fn} == mpii_fsent[${k}].statuses_ignore`;
      out.push({ fdecl: `MPI_Fint *${fn}`, fname: fn, pre: [], arg: `(${ign} ? MPI_STATUSES_IGNORE : (MPI_Status *) ${fn})`, post: [] });
    } else {
      throw new Error(`preload/spec/mpi.yaml lists ${f.name} under fortran, but its parameter \`${p.decl}\` has no Fortran conversion`);
    }
  }
  return out;
}

const isBuffer = (p: SpecFunction['params'][number]) => base(p.type) === 'void' && isPtr(p.type) && p.name !== 'baseptr';

/** The f08ts buffers that come with their own count and datatype (buf, count, datatype: point to
 * point, one-sided): a section with gaps is sent as count 1 of a datatype made from its descriptor
 * (mpii_fdesc_type), as the MPIs' own bindings do. Not a collective's: its count is per rank, or
 * the buffer is a reduction's. The others' sections go to the MPI's own binding. */
function describeSections(f: SpecFunction, conv: Conv[]): void {
  if (f.kind.startsWith('coll')) return;
  f.params.forEach((p, j) => {
    const [c, t] = [f.params[j + 1], f.params[j + 2]];
    if (!isBuffer(p) || !c || !t || base(c.type) !== 'int' || isPtr(c.type) || base(t.type) !== 'MPI_Datatype' || isPtr(t.type)) return;
    const n = p.name;
    conv[j + 2].pre.push(
      `int n_${n} = ${conv[j + 1].arg};`,
      `MPI_Datatype t_${n} = ${conv[j + 2].arg};`,
      `if (MPII_UNLIKELY(nc_${n}) && mpii_fdesc_type(f_${n}, &n_${n}, &t_${n}) == 0) nc_${n} = 0;`,
    );
    conv[j + 1].arg = `n_${n}`;
    conv[j + 2].arg = `t_${n}`;
  });
}

function emitOne(f: SpecFunction, iface: Iface, flavor: string, fns: Map<string, SpecFunction>): string {
  const k = iface === 'f77' || flavor === 'openmpi' ? 0 : 1;
  const conv = convert(f, iface, k, fns);
  if (iface === 'f08ts') describeSections(f, conv);
  const lower = f.name.toLowerCase();
  const sym = iface === 'f77' ? `${lower}_` : `${lower}_${iface}_`;
  const fparams = [...conv.filter((c) => c.fdecl).map((c) => c.fdecl), 'MPI_Fint *ierr'];
  const fnames = [...conv.filter((c) => c.fname).map((c) => c.fname), 'ierr'];
  const lines = [`void ${sym}(${fparams.join(', ')})`, '{', '    MPII_F_READY();'];
  for (const c of conv) lines.push(...c.pre.map((l) => `    ${l}`));
  if (iface === 'f08ts') {
    // a section no datatype describes here: the MPI's own binding makes one (MPICH's then calls
    // MPI_X, which the tools see; Open MPI's calls PMPI_X)
    const gaps = f.params.filter(isBuffer).map((p) => `nc_${p.name}`);
    lines.push(
      `    if (MPII_UNLIKELY(${gaps.join(' | ')})) {`,
      `        static void (*lib)(${fparams.join(', ')});`,
      `        if (!lib) *(void **) &lib = mpii_f_next("${sym}");`,
      `        lib(${fnames.join(', ')});`,
      '        return;',
      '    }',
    );
  }
  lines.push(`    int rc = mpii_top_${f.name}(${['__builtin_return_address(0)', ...conv.map((c) => c.arg)].join(', ')});`);
  for (const c of conv) lines.push(...c.post.map((l) => `    ${l}`));
  lines.push('    if (ierr) *ierr = rc;', '}');
  if (iface === 'f77') {
    // Open MPI's `use mpi` names the TYPE(C_PTR) form of the functions that return memory
    // mpi_x_cptr_ (the same arguments by reference)
    const cptr = f.params.some((p) => p.name === 'baseptr') ? [`${lower}_cptr_`, `${lower}_cptr`, `${lower}_cptr__`] : [];
    for (const alias of [lower, `${lower}__`, f.name.toUpperCase(), ...cptr]) {
      lines.push(`void ${alias}(${fparams.join(', ')}) __attribute__((alias("${sym}")));`);
    }
  }
  lines.push('');
  return lines.join('\n');
}

export function emitFortran(inp: FortranInput): string {
  const fns = new Map(inp.functions.map((f) => [f.name, f]));
  const out = [
    '',
    '/* ---- Fortran entry points (src/gen/fortran.ts): converted, then the same stack as MPI_X ---- */',
    '#ifndef MPII_STATIC /* the compile-time (mpii.h) mode is for C programs */',
    '',
  ];
  for (const name of inp.list) {
    const f = fns.get(name);
    if (!f) continue; // this MPI has no such function
    if (f.ret !== 'int' || f.variadic) throw new Error(`preload/spec/mpi.yaml lists ${name} under fortran, but it does not return int`);
    const hasBuffer = f.params.some(isBuffer);
    out.push(emitOne(f, 'f77', inp.flavor, fns));
    // MPICH's mpi_f08 passes choice buffers as descriptors (mpi_x_f08ts_); Open MPI's does from
    // 6.0 on, where Open MPI 4.1 and 5.0 call mpi_x_f08_ with the address: the shim defines both,
    // and the name the installed library calls is the one that runs
    if (inp.flavor === 'openmpi' || !hasBuffer) out.push(emitOne(f, 'f08', inp.flavor, fns));
    if (hasBuffer) out.push(emitOne(f, 'f08ts', inp.flavor, fns));
  }
  out.push('#endif /* MPII_STATIC */', '');
  return out.join('\n');
}

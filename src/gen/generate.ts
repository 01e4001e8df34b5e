// Turns (installed mpi.h + preload/spec/mpi.yaml) into the generated C sources of the shim.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnum, parseExternObjects, parseFunctionMacros, parseFunctions, type CFunction } from './header.js';
import { annotate, kindNames, loadSpec, roleNames, type SpecFunction } from './spec.js';
import { emitFortran } from './fortran.js';
import { emitGenHeader, emitQmpiHeader, emitStaticHeader, emitStaticResolve, emitObjectsHeader, emitWrappers, type EmitInput } from './emit.js';

export interface GenerateInput {
  /** `abi`: the MPI-5 standard ABI's header, for every MPI that implements it */
  flavor: 'openmpi' | 'mpich' | 'abi';
  /** output of `<mpicc> -E -P` on a file holding `#include <mpi.h>` */
  preprocessed: string;
  specPath: string;
  mpiVersion: string;
  /** symbols the MPI library exports: a declared function it lacks gets no wrapper */
  exported?: Set<string>;
  /** symbols a static library of this MPI defines (empty: none installed) */
  staticDefined?: Set<string>;
  /** output of `<mpicc> -E -dM` on the same file: the macros mpi.h defines */
  defines?: string;
}

export interface GenerateResult {
  files: Record<string, string>;
  functions: SpecFunction[];
}

export function generate(inp: GenerateInput): GenerateResult {
  const spec = loadSpec(inp.specPath);
  const declared = parseFunctions(inp.preprocessed, ['MPI_', 'MPIX_']);
  const qmpiEnum = parseEnum(inp.preprocessed, 'QMPI_Functions_enum').filter((e) => e !== 'MPI_LAST_FUNC_T');
  const headerHasQmpi = qmpiEnum.length > 0;
  // the id parameter of QMPI_Register_function and QMPI_Get_function as this mpi.h declares it:
  // MPICH 4.0 `enum QMPI_Functions_enum`, MPICH 4.1 and later `int`; the shim defines both
  // functions, and a definition must agree with the library's declaration to compile
  const registerDecl = parseFunctions(inp.preprocessed, ['QMPI_Register_function']).find((f) => f.name === 'QMPI_Register_function');
  const qmpiIdType = headerHasQmpi && registerDecl?.params[1] ? registerDecl.params[1].type : 'enum QMPI_Functions_enum';
  // a function mpi.h also defines as a function-like macro (MPICH 4.1+: MPI_Comm_c2f and the other
  // handle conversions, declared before the macro) is never called by a program compiled against
  // it, and a wrapper of that name would not compile: the macro expands the definition's name
  const macros = parseFunctionMacros(inp.defines ?? '');
  const keep = (f: CFunction) => (!inp.exported || inp.exported.has(f.name)) && f.name.startsWith('MPI') && !macros.has(f.name);

  let ordered: CFunction[];
  const declaredByHeader = new Set<string>();
  const extraIds: string[] = [];
  if (headerHasQmpi) {
    // MPICH: its enum fixes the ids, so tools compiled against its mpi.h agree with the shim.
    const enumToFn = new Map(declared.map((f) => [`${f.name.toUpperCase()}_T`, f]));
    ordered = [];
    for (const e of qmpiEnum) {
      const f = enumToFn.get(e);
      if (f && keep(f)) {
        ordered.push(f);
        declaredByHeader.add(f.name);
      }
    }
    const inEnum = new Set(ordered.map((f) => f.name));
    for (const f of declared) {
      if (!inEnum.has(f.name) && keep(f) && !qmpiEnum.includes(`${f.name.toUpperCase()}_T`)) {
        ordered.push(f);
        extraIds.push(`MPII_EXT_${f.name}`);
      }
    }
  } else {
    // Open MPI: no QMPI of its own; ids follow MPICH's naming in alphabetical order.
    ordered = declared.filter(keep).sort((a, b) => a.name.localeCompare(b.name));
  }
  const functions = annotate(ordered, spec).map((f) =>
    extraIds.includes(`MPII_EXT_${f.name}`) ? { ...f, enumName: `MPII_EXT_${f.name.toUpperCase()}_T` } : f,
  );
  const emitIn: EmitInput = {
    flavor: inp.flavor,
    functions,
    headerHasQmpi,
    qmpiIdType,
    declaredByHeader,
    extraIds,
    roles: roleNames(spec),
    kinds: kindNames(spec),
    view: spec.view,
    weakObjects: inp.flavor === 'openmpi' ? parseExternObjects(inp.preprocessed, 'ompi_') : [],
    mpiVersion: inp.mpiVersion,
  };
  return {
    functions,
    files: {
      'qmpi.h': emitQmpiHeader(emitIn),
      'mpii_gen.h': emitGenHeader(emitIn),
      // the standard ABI is C's only: its Fortran bindings are each MPI's own
      'mpii_wrappers.c': emitWrappers(emitIn) + (inp.flavor === 'abi' ? '' : emitFortran({ flavor: inp.flavor, functions, list: spec.fortran })),
      'mpii_objects.h': emitObjectsHeader(emitIn),
      'mpii.h': emitStaticHeader(emitIn),
      'mpii_static.c': emitStaticResolve(emitIn, inp.staticDefined ?? new Set()),
    },
  };
}

export function writeGenerated(dir: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

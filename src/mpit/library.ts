// The installed MPI's own MPI_T variables, asked through koffi: MPI_T works without MPI_Init,
// so `mpii pvars`, `mpii cvars` and the checks of `mpii run --pvar` load the MPI library, call
// MPI_T_init_thread and MPI_T_{pvar,cvar}_get_info, and finalize — in a child Node process
// (child.ts), so that the library's constructors, signal handlers and exit-time code never
// run inside mpii itself. The library and its mpi.h are the ones the flavour's compiler
// wrapper uses (the shim's).
import { execa } from 'execa';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot, implementationVersion, mpiVersionOf, probe } from '../shim/shim.js';
import { MpiiError } from '../errors.js';
import { FLAVORS, findTool, type FlavorName } from '../mpi/flavors.js';
import { abiIncludeDir, abiVersion, chooseAbi, systemAbiLibrary } from '../mpi/abi.js';
import { namesByValue, parseHeader, type HeaderConstants } from './header.js';
import { loadKoffi, type Koffi } from './koffi.js';
import { ENV } from '../environment.gen.js';

export interface MpiInstall {
  flavor: FlavorName;
  /** "Open MPI 4.1.4"; "MPI standard ABI 1.0 (Open MPI 6.0.0rc2)" */
  version: string;
  /** the shared library (real path) */
  library: string;
  header: string;
  /** the implementation's library of the MPI standard ABI, `header` the standard's: handles are
   *  pointers, the predefined datatypes the standard's constants */
  abi?: boolean;
}

export interface PvarInfo {
  index: number;
  name: string;
  class: string;
  type: string;
  binding: string;
  verbosity: string;
  readonly: boolean;
  continuous: boolean;
  atomic: boolean;
  description: string;
}

export interface CvarInfo {
  index: number;
  name: string;
  type: string;
  binding: string;
  scope: string;
  verbosity: string;
  description: string;
}

export interface MpitListing extends MpiInstall {
  pvars: PvarInfo[];
  cvars: CvarInfo[];
}

/** Where the flavour's library and mpi.h are: what its compiler wrapper uses (the shim build's
 *  probe). MPII_MPI_LIBRARY overrides the library (another build of the same flavour). */
export async function findInstall(flavor: FlavorName, env: NodeJS.ProcessEnv = process.env): Promise<MpiInstall> {
  const fl = FLAVORS[flavor];
  if (!findTool(flavor, fl.compilers, env)) {
    throw new MpiiError(
      `${fl.label} is not installed (no ${fl.compilers.join(' or ')} on PATH)`,
      `install it: apt-get install -y ${fl.packages}, or pick the other MPI with --mpi`,
    );
  }
  const pr = await probe(flavor, cacheRoot(env), env);
  const header = pr.incdirs.map((d) => join(d, 'mpi.h')).find((p) => existsSync(p));
  if (!header) {
    throw new MpiiError(
      `cannot find ${fl.label}'s mpi.h (looked in ${pr.incdirs.join(', ') || 'nothing'})`,
      `install the development package: apt-get install -y ${fl.packages}`,
    );
  }
  let library = env[ENV.MPII_MPI_LIBRARY];
  if (library) {
    if (!existsSync(library)) throw new MpiiError(`MPII_MPI_LIBRARY=${library} does not exist`, 'unset it or name an MPI shared library');
  } else {
    library = pr.libdirs.map((d) => join(d, `lib${pr.lib}.so`)).find((p) => existsSync(p));
    if (!library) {
      throw new MpiiError(
        `cannot find ${fl.label}'s shared library lib${pr.lib}.so (looked in ${pr.libdirs.join(', ')})`,
        `install the development package: apt-get install -y ${fl.packages}`,
      );
    }
  }
  return { flavor, version: mpiVersionOf(flavor, [dirname(header)]), library: realpathSync(library), header };
}

/** An implementation's library of the MPI standard ABI, with the standard header: `asked`, else
 *  the one behind the system's libmpi_abi.so.1 (as a standard-ABI program would load it). */
export async function findAbiInstall(asked: FlavorName | undefined, env: NodeJS.ProcessEnv = process.env): Promise<MpiInstall> {
  const choice = chooseAbi(asked, systemAbiLibrary(), 'mpii pvars/cvars');
  const include = abiIncludeDir();
  const implementation = (await implementationVersion(choice.impl, env)) ?? FLAVORS[choice.impl].label;
  return {
    flavor: choice.impl,
    version: `${abiVersion(include)} (${implementation})`,
    library: realpathSync(choice.library),
    header: join(include, 'mpi.h'),
    abi: true,
  };
}

/** The handle of each predefined datatype, to name a variable's type. */
function datatypeNames(koffi: Koffi, lib: import('koffi').IKoffiLib, h: HeaderConstants): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, v] of h.datatypes) {
    let key: string;
    if (typeof v === 'number') key = String(v);
    else {
      try {
        key = String(koffi.address(lib.symbol(v, 'char')));
      } catch {
        continue; /* an object this build does not export */
      }
    }
    if (!out.has(key)) out.set(key, name);
  }
  return out;
}

/** One variable as MPI_T_{pvar,cvar}_get_info gave it: its int outputs before the datatype
 *  (`lead`) and after the description (`trail`) in the call's order. */
interface Variable {
  index: number;
  name: string;
  type: string;
  description: string;
  lead: number[];
  trail: number[];
}

const bindingName = (n: string | undefined) => {
  if (!n) return '?';
  if (n === 'no_object') return 'none';
  const rest = n.replace(/^mpi_/, '');
  return `MPI_${rest[0].toUpperCase()}${rest.slice(1)}`;
};

/** Ask the library, from a child process. `want` limits the work to what the caller needs.
 *  The answer counts once it is complete, whatever the child's exit status.
 *  UCX_MEM_EVENTS=no: the libraries load UCX (Open MPI's ucx components, MPICH's netmod), whose
 *  memory hooks patch mmap/munmap/brk under V8; Open MPI 4.1 so loaded crashed inside V8's garbage
 *  collector in about 3 runs in 100 on a loaded machine, and in none of 150 with the hooks off.
 *  Listing variables registers no memory, so the child does without them. A child that still
 *  dies before its answer is asked again, up to ASK_ATTEMPTS times. */
export const ASK_ATTEMPTS = 3;
export async function askMpit(inst: MpiInstall, want: { pvars?: boolean; cvars?: boolean }): Promise<MpitListing> {
  const child = fileURLToPath(new URL('./child.js', import.meta.url));
  const crashes: string[] = [];
  for (let attempt = 1; attempt <= ASK_ATTEMPTS; attempt++) {
    const r = await execa(process.execPath, [child, JSON.stringify({ inst, want })], {
      env: { UCX_MEM_EVENTS: 'no' },
      reject: false,
      maxBuffer: 256 << 20,
    });
    /* the library may print on stdout too: the answer is the line child.ts wrote */
    const line = r.stdout.split('\n').find((l) => /^\{"(listing|error)":/.test(l));
    let answer: { listing?: MpitListing; error?: { message: string; fix?: string; exitCode?: number } } | undefined;
    try {
      answer = JSON.parse(line ?? '');
    } catch {
      const why = r.signal ? `killed by ${r.signal}` : `exit code ${r.exitCode}`;
      const said = r.stderr.split('\n').find((l) => l.trim()) ?? '';
      crashes.push(`${why}${said ? `: ${said.trim()}` : ''}`);
      continue;
    }
    if (answer?.error) throw new MpiiError(answer.error.message, answer.error.fix, answer.error.exitCode);
    return answer!.listing!;
  }
  throw new MpiiError(
    `asking ${inst.library} for its MPI_T variables crashed ${ASK_ATTEMPTS} times (${crashes[crashes.length - 1]})`,
    `check the ${FLAVORS[inst.flavor].label} installation (mpii doctor)`,
  );
}

/** Ask the library in this process (child.ts does). */
export async function readMpit(inst: MpiInstall, want: { pvars?: boolean; cvars?: boolean }): Promise<MpitListing> {
  const koffi = await loadKoffi();
  let lib: import('koffi').IKoffiLib;
  try {
    lib = koffi.load(inst.library);
  } catch (e) {
    throw new MpiiError(`cannot load ${inst.library}: ${(e as Error).message.split('\n')[0]}`, `reinstall ${FLAVORS[inst.flavor].label}`);
  }
  const fn = (name: string, result: string, args: unknown[]) => {
    try {
      return lib.func(name, result, args as string[]);
    } catch {
      throw new MpiiError(
        `${inst.library} has no MPI_T interface (${name} is missing): this MPI was built without the MPI tool information interface`,
        'use an MPI-3 (or later) build of the library, or the other MPI with --mpi',
      );
    }
  };
  const h = parseHeader(readFileSync(inst.header, 'utf8'));
  const errName = new Map([...h.values].filter(([k]) => /^MPI_T_ERR_|^MPI_ERR_|^MPI_SUCCESS$/.test(k)).map(([k, v]) => [v, k] as const));
  const int = koffi.pointer('int');
  // a datatype handle: MPICH's an int, Open MPI's and the standard ABI's a pointer
  const pointers = inst.flavor === 'openmpi' || inst.abi === true;
  const dt = pointers ? koffi.pointer('void *') : int;
  const init = fn('MPI_T_init_thread', 'int', ['int', koffi.out(int)]);
  const finalize = fn('MPI_T_finalize', 'int', []);
  const provided = [0];
  const rc = init(h.values.get('MPI_THREAD_SINGLE') ?? 0, provided) as number;
  if (rc !== 0) {
    throw new MpiiError(
      `MPI_T_init_thread failed in ${inst.library} (error ${rc}${errName.has(rc) ? ` ${errName.get(rc)}` : ''})`,
      `check the ${FLAVORS[inst.flavor].label} installation (mpii doctor)`,
    );
  }
  const types = datatypeNames(koffi, lib, h);
  const typeName = (v: unknown) => types.get(String(pointers ? koffi.address(v) : v)) ?? 'other';
  const classes = namesByValue(h, 'MPI_T_PVAR_CLASS_');
  const binds = namesByValue(h, 'MPI_T_BIND_');
  const scopes = namesByValue(h, 'MPI_T_SCOPE_');
  const verbs = namesByValue(h, 'MPI_T_VERBOSITY_');
  const verbosity = (v: number) => (verbs.get(v) ?? String(v)).replace('_', '/');
  const str = (b: Buffer, len: number) =>
    b
      .toString('utf8', 0, Math.max(0, Math.min(len, b.length) - 1))
      .replace(/\0.*$/s, '')
      .trim();
  const listing: MpitListing = { ...inst, pvars: [], cvars: [] };
  /** Each variable of one kind: MPI_T_pvar_get_info and MPI_T_cvar_get_info take the index, the
   *  name, `lead` int outputs (the verbosity, and a pvar's class), the datatype and enum, the
   *  description, then `trail` int outputs (the binding, and a pvar's flags or a cvar's scope).
   *  An index whose info fails is one a component gave up: left out. */
  const eachVariable = (kind: 'pvar' | 'cvar', lead: number, trail: number, add: (v: Variable) => void) => {
    const num = fn(`MPI_T_${kind}_get_num`, 'int', [koffi.out(int)]);
    const ints = (k: number) => Array.from({ length: k }, () => koffi.out(int));
    const info = fn(`MPI_T_${kind}_get_info`, 'int', [
      'int',
      'char *',
      koffi.inout(int),
      ...ints(lead),
      koffi.out(dt),
      koffi.out(koffi.pointer('void *')),
      'char *',
      koffi.inout(int),
      ...ints(trail),
    ]);
    const n = [0];
    num(n);
    for (let i = 0; i < n[0]; i++) {
      const name = Buffer.alloc(1024);
      const desc = Buffer.alloc(8192);
      const nl = [name.length],
        dl = [desc.length],
        d = [null],
        e = [null];
      const before = Array.from({ length: lead }, () => [0]);
      const after = Array.from({ length: trail }, () => [0]);
      if (info(i, name, nl, ...before, d, e, desc, dl, ...after) !== 0) continue;
      add({
        index: i,
        name: str(name, nl[0]),
        type: typeName(d[0]),
        description: str(desc, dl[0]),
        lead: before.map((x) => x[0]),
        trail: after.map((x) => x[0]),
      });
    }
  };
  try {
    if (want.pvars) {
      eachVariable('pvar', 2, 4, ({ index, name, type, description, lead: [v, c], trail: [b, ro, co, at] }) =>
        listing.pvars.push({
          index,
          name,
          class: classes.get(c) ?? String(c),
          type,
          binding: bindingName(binds.get(b)),
          verbosity: verbosity(v),
          readonly: !!ro,
          continuous: !!co,
          atomic: !!at,
          description,
        }),
      );
    }
    if (want.cvars) {
      eachVariable('cvar', 1, 2, ({ index, name, type, description, lead: [v], trail: [b, s] }) =>
        listing.cvars.push({
          index,
          name,
          type,
          binding: bindingName(binds.get(b)),
          scope: scopes.get(s) ?? String(s),
          verbosity: verbosity(v),
          description,
        }),
      );
    }
  } finally {
    finalize();
  }
  return listing;
}

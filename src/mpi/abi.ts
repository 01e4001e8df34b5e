// Programs built for the MPI-5 standard ABI: they link libmpi_abi.so.1, whose handles, constants
// and MPI_Status are the standard's, not one MPI's, and run on every MPI that implements it
// (Debian: MPICH's libmpi_abi_mpich.so and Open MPI's libmpi_abi_openmpi.so, one of them behind
// libmpi_abi.so.1). mpii builds one shim from the standard header for all of them; a run picks
// the implementation (the one the program's libmpi_abi.so.1 resolves to, or --mpi abi:mpich /
// abi:openmpi), runs that implementation's launcher, and gives the ranks its library under the
// ABI's soname (a link in mpii's cache, first on LD_LIBRARY_PATH).
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MpiiError } from '../errors.js';
import { FLAVORS, type FlavorName } from './flavors.js';
import { flavorOfLibraries, neededLibraries } from './python.js';

/** The soname every standard-ABI program asks for. */
export const ABI_SONAME = 'libmpi_abi.so.1';

/** How --mpi names the standard ABI: `abi` (the implementation behind the system's
 * libmpi_abi.so.1) or `abi:<implementation>`. */
export const ABI_CHOICES = ['abi', 'abi:mpich', 'abi:openmpi'];

/** The implementation `--mpi abi:<name>` asks for; undefined for plain `abi` (the system's). */
export const abiImplementationAsked = (choice: string): FlavorName | undefined => (choice.includes(':') ? (choice.split(':')[1] as FlavorName) : undefined);

/** Where distributions put the libraries and the standard header (Debian's multiarch first). */
const LIB_DIRS = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib64', '/usr/lib', '/usr/local/lib'];
// Debian's MPICH ships the header in its own directory, Open MPI 6 beside its own mpi.h; the two
// are the same header (the standard's), and the first found is the one every shim is built from,
// so which implementation a run picks never changes the shim
const HEADER_DIRS = ['mpi_abi_mpich/include', 'openmpi/include/standard_abi', 'mpi_abi/include'];

/** The implementation a standard-ABI library belongs to: by its file name (libmpi_abi_mpich.so…),
 * else by the MPI library it needs (Open MPI's needs libopen_mpi or libmpi.so.40). */
export function abiImplementation(library: string): FlavorName | undefined {
  let real: string;
  try {
    real = realpathSync(library);
  } catch {
    return undefined;
  }
  const named = /libmpi_abi_(mpich|openmpi)\b/.exec(basename(real))?.[1] as FlavorName | undefined;
  if (named) return named;
  const needed = neededLibraries(real);
  if (needed.some((l) => /^libopen_mpi\.so/.test(l))) return 'openmpi';
  return flavorOfLibraries(needed);
}

/** libmpi_abi.so.1 as ldd resolved it for a program (undefined: the program does not link it). */
export function abiInLdd(ldd: string): { soname: string; path?: string } | undefined {
  const m = /^\s*(libmpi_abi\.so[.\d]*)(?:\s*=>\s*(\/\S+))?/m.exec(ldd);
  return m ? { soname: m[1], path: m[2] } : undefined;
}

/** The installed implementations: libmpi_abi_<name>.so* beside the system's libmpi_abi.so.1 and in
 * the usual library directories. */
export function abiLibraries(extraDirs: string[] = []): Partial<Record<FlavorName, string>> {
  const found: Partial<Record<FlavorName, string>> = {};
  for (const dir of [...extraDirs, ...LIB_DIRS]) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const f of Object.keys(FLAVORS) as FlavorName[]) {
      // the versioned file (libmpi_abi_mpich.so.1.0.0), else any of its names
      const mine = names.filter((n) => n.startsWith(`libmpi_abi_${f}.so`)).sort((a, b) => b.length - a.length);
      if (mine.length && !found[f]) found[f] = join(dir, mine[0]);
    }
  }
  return found;
}

/** The system's libmpi_abi.so.1, where no program's ldd says (a script that loads MPI itself). */
export function systemAbiLibrary(): string | undefined {
  return LIB_DIRS.map((d) => join(d, ABI_SONAME)).find((p) => existsSync(p));
}

export interface AbiChoice {
  impl: FlavorName;
  /** the implementation's library, which the ranks load as libmpi_abi.so.1 */
  library: string;
  /** the implementation's version (MPICH 5.0.2), for the report: found by the run's probe */
  version?: string;
}

/** The implementation a run uses: the one asked for (`abi:mpich`), else the one behind `system`
 * (the program's or the system's libmpi_abi.so.1). */
export function chooseAbi(asked: FlavorName | undefined, system: string | undefined, program: string): AbiChoice {
  const installed = abiLibraries(system ? [dirname(realpathOr(system))] : []);
  const names = (Object.keys(installed) as FlavorName[]).map((f) => `abi:${f}`);
  if (asked) {
    const library = installed[asked];
    if (!library) {
      throw new MpiiError(
        `no ${FLAVORS[asked].label} implementation of the MPI standard ABI found (no libmpi_abi_${asked}.so in ${LIB_DIRS[0]} or beside ${ABI_SONAME})`,
        names.length ? `use --mpi ${names.join(' or --mpi ')}` : `install one (Debian: ${FLAVORS[asked].packages})`,
      );
    }
    return { impl: asked, library };
  }
  const impl = system ? abiImplementation(system) : undefined;
  if (!impl || !system) {
    throw new MpiiError(
      system
        ? `cannot tell which MPI implements ${system}, which ${program} would load`
        : `no ${ABI_SONAME} on this system for ${program}, and no implementation named`,
      names.length ? `pass --mpi ${names.join(' or --mpi ')}` : 'install an MPI that implements the standard ABI (MPICH 5 built --enable-mpi-abi, Open MPI 6)',
    );
  }
  return { impl, library: installed[impl] ?? realpathOr(system) };
}

const realpathOr = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/** The directory of the standard header (mpi.h defining MPI_ABI_VERSION) the shim is built from. */
export function abiIncludeDir(): string {
  for (const lib of LIB_DIRS) {
    for (const sub of HEADER_DIRS) {
      const dir = join(lib, sub);
      if (isAbiHeader(join(dir, 'mpi.h'))) return dir;
    }
  }
  throw new MpiiError(
    'no header of the MPI standard ABI found (an mpi.h that defines MPI_ABI_VERSION)',
    `install the development files of an MPI that ships it (Debian: libmpich-dev with mpi_abi_mpich/include, or libopenmpi-dev with openmpi/include/standard_abi) under ${LIB_DIRS[0]}`,
  );
}

function isAbiHeader(path: string): boolean {
  try {
    return /#define\s+MPI_ABI_VERSION\b/.test(readFileSync(path, 'utf8'));
  } catch {
    return false;
  }
}

/** "MPI standard ABI 1.0" from the header. */
export function abiVersion(includeDir: string): string {
  const t = readFileSync(join(includeDir, 'mpi.h'), 'utf8');
  const v = /#define\s+MPI_ABI_VERSION\s+(\d+)/.exec(t)?.[1];
  const s = /#define\s+MPI_ABI_SUBVERSION\s+(\d+)/.exec(t)?.[1];
  return `MPI standard ABI ${v ?? '?'}.${s ?? '0'}`;
}

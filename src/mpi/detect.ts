// Which MPI a program uses: its dynamic dependencies first, then the launcher on PATH.
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { basename, delimiter, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { MpiiError } from '../errors.js';
import { memoized } from '../memo.js';
import { ABI_CHOICES, abiImplementationAsked, abiInLdd, chooseAbi, systemAbiLibrary, type AbiChoice } from './abi.js';
import { FLAVORS, findTool, flavorOfBinary, which, type FlavorName } from './flavors.js';
import { flavorOfLibraries, isPython, pythonInclude, pythonMpi, shebangInterpreter } from './python.js';

export interface Detected {
  flavor: FlavorName;
  /** how we know, for --dry-run and doctor */
  how: string;
  program: string;
  /** the extension module that loads the MPI (an interpreter's mpi4py), for the banner */
  extension?: string;
  /** a Python program: its interpreter's headers (the call-site helper is built against them) */
  python?: { include?: string; abiLink?: { soname: string; target: string }; abi?: string };
  /** one line for the user when the launcher on PATH belongs to the other MPI */
  note?: string;
  /** a program of the MPI-5 standard ABI: `flavor` is the implementation it runs on, whose
   * launcher starts it; the shim is the ABI's (src/mpi/abi.ts) */
  abi?: AbiChoice;
}

function isElf(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(4);
    readSync(fd, b, 0, 4, 0);
    return b.toString('latin1') === '\x7fELF';
  } finally {
    closeSync(fd);
  }
}

export function resolveProgram(program: string, env: NodeJS.ProcessEnv): string {
  const path = which(program, env);
  if (!path) {
    const hint = program.includes('/') ? 'check the path and that it is executable' : `give a path such as ./${program}, or put it on PATH`;
    throw new MpiiError(`program '${program}' not found`, hint);
  }
  if (!statSync(path).isFile()) throw new MpiiError(`'${program}' is not a file`, 'name the MPI program to run');
  return path;
}

/** The flavour of the first launcher on PATH (mpirun/mpiexec). */
export function launcherFlavor(env: NodeJS.ProcessEnv): FlavorName | undefined {
  for (const l of ['mpirun', 'mpiexec']) {
    const p = which(l, env);
    if (p) {
      const f = flavorOfBinary(p);
      if (f) return f;
    }
  }
  return undefined;
}

export async function detectMpi(program: string, env: NodeJS.ProcessEnv, override?: string, cacheDir?: string): Promise<Detected> {
  if (override !== undefined && override !== 'openmpi' && override !== 'mpich' && !ABI_CHOICES.includes(override)) {
    throw new MpiiError(`unknown MPI '${override}' for --mpi`, `use --mpi openmpi, mpich, ${ABI_CHOICES.join(', ')}`);
  }
  const path = resolveProgram(program, env);
  const elf = isElf(path);
  // an interpreter, or a script whose #! line names one, loads MPI through an extension module
  // (a `python3` on PATH may be a version manager's shell script: its name is enough)
  const interpreter = elf || isPython(path) ? path : shebangInterpreter(path, env);
  const python = interpreter !== undefined && isPython(interpreter);
  // a binary's libraries decide between an MPI's own ABI and the standard one, --mpi or not
  const ldd = elf && !python ? lddUnlessOverridden(path, program, env, cacheDir, override) : undefined;
  const abiLinked = ldd === undefined ? undefined : abiInLdd(ldd);
  if (override && abiLinked && !override.startsWith('abi')) {
    throw new MpiiError(
      `${program} links ${abiLinked.soname}, the MPI standard ABI: --mpi ${override} would wrap it as ${FLAVORS[override as FlavorName].label}'s own ABI and see none of its calls`,
      `pass --mpi abi:${override}, or no --mpi (the implementation behind ${abiLinked.soname} is used)`,
    );
  }
  if (override) {
    // a Python program that loads the named MPI some other way (ctypes …) still gets Python call sites
    const py = python ? { include: pythonInclude(interpreter, env, cacheDir) } : undefined;
    if (override.startsWith('abi')) return { ...standardAbi(program, path, override, ldd, abiLinked), python: py };
    return { flavor: override as FlavorName, how: '--mpi', program: path, python: py };
  }
  if (python) {
    const py = pythonMpi(interpreter, env, cacheDir);
    return withLauncherNote(
      {
        flavor: py.flavor,
        how: `${basename(interpreter)} imports ${py.how}`,
        extension: py.how,
        python: { include: py.include, abiLink: py.abiLink, abi: py.abi },
        program: path,
      },
      env,
    );
  }
  if (ldd !== undefined) {
    if (abiLinked) return standardAbi(program, path, 'abi', ldd, abiLinked);
    const linked = flavorOfLibraries(ldd.split('\n').map((l) => l.trim().split(/\s+/)[0]));
    if (linked) return { flavor: linked, how: `${program} links ${ldd.match(FLAVORS[linked].libraries)?.[0]}`, program: path };
    const bytes = readFileSync(path).toString('latin1');
    if (/ompi_mpi_init|MPIR_Init_thread|MPID_Init|\bPMPI_Init\b/.test(bytes)) {
      throw new MpiiError(
        `${program} is linked against a static MPI library: a preloaded shim cannot intercept it`,
        'relink it with the shared MPI library (the default of mpicc), or build it with mpii.h (see docs/install.md, "static MPI")',
      );
    }
    noLauncherAtAll(program, env);
    throw new MpiiError(
      `${program} is not an MPI program (it does not link an MPI library)`,
      'run an MPI program, or pass --mpi openmpi|mpich if it loads MPI at run time (e.g. Julia, R)',
    );
  }
  // a script of another interpreter: it will load MPI at run time; the launcher on PATH decides
  const f = launcherFlavor(env);
  if (f) return { flavor: f, how: `${program} is a script; mpirun on PATH is ${FLAVORS[f].label}`, program: path };
  noLauncherAtAll(program, env);
  throw new MpiiError(`cannot tell which MPI ${program} uses and no mpirun is on PATH`, 'pass --mpi openmpi or --mpi mpich');
}

/** What `ldd` says about the program, run again only when the answer may have changed: the key
 * holds the variables that steer the dynamic loader and which ldd runs; the files are the
 * program, the loader's cache (/etc/ld.so.cache: ldconfig, a package installed or removed),
 * every library ldd found (rebuilt, upgraded, a symbolic link pointed elsewhere) and the
 * LD_LIBRARY_PATH directories (a library added there would be found first). */
export function linkedLibraries(file: string, program: string, env: NodeJS.ProcessEnv, cacheDir?: string): string {
  const path = resolve(file); // the answer is kept by absolute path
  const key = JSON.stringify({ path, ldd: which('ldd', env) ?? '', LD_LIBRARY_PATH: env.LD_LIBRARY_PATH ?? '', LD_PRELOAD: env.LD_PRELOAD ?? '' });
  return memoized(cacheDir, 'ldd', key, () => {
    const ldd = spawnSync('ldd', [path], { env, encoding: 'utf8' });
    if (ldd.error || typeof ldd.stdout !== 'string') {
      throw new MpiiError(
        `cannot run ldd to see which MPI ${program} links (${(ldd.error as NodeJS.ErrnoException | undefined)?.code ?? 'no output'})`,
        'put ldd on PATH (Debian: libc-bin), or pass --mpi openmpi|mpich',
      );
    }
    return { value: ldd.stdout, deps: [path, '/etc/ld.so.cache', ...lddPaths(ldd.stdout), ...(env.LD_LIBRARY_PATH ?? '').split(delimiter).filter(Boolean)] };
  });
}

/** ldd's answer; with --mpi, none where ldd cannot run (--mpi is the way round a missing ldd):
 *  the check that the binary does not link the standard ABI is then skipped. */
function lddUnlessOverridden(path: string, program: string, env: NodeJS.ProcessEnv, cacheDir: string | undefined, override: string | undefined) {
  try {
    return linkedLibraries(path, program, env, cacheDir);
  } catch (e) {
    if (override && e instanceof MpiiError) return undefined;
    throw e;
  }
}

/** The files in ldd's output: `libx.so.1 => /path/libx.so.1 (0x…)` and `/lib64/ld-linux… (0x…)`. */
export function lddPaths(out: string): string[] {
  return out
    .split('\n')
    .map((l) => /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(l)?.[1])
    .filter((p): p is string => p !== undefined);
}

/** A program of the MPI-5 standard ABI (it links libmpi_abi.so.1, or --mpi abi…): the
 * implementation asked for, else the one its libmpi_abi.so.1 (the system's) resolves to. A binary
 * that links an MPI's own library instead is refused: the ABI's shim would misread its handles. */
function standardAbi(program: string, path: string, asked: string, ldd: string | undefined, linked: ReturnType<typeof abiInLdd>): Detected {
  const own = ldd === undefined || linked ? undefined : flavorOfLibraries(ldd.split('\n').map((l) => l.trim().split(/\s+/)[0]));
  if (own) {
    throw new MpiiError(
      `${program} links ${ldd!.match(FLAVORS[own].libraries)?.[0]}, ${FLAVORS[own].label}'s own ABI, not the MPI standard ABI that --mpi ${asked} runs`,
      `pass --mpi ${own}, or no --mpi`,
    );
  }
  const impl = abiImplementationAsked(asked);
  const abi = chooseAbi(impl, linked?.path ?? systemAbiLibrary(), program);
  const how = linked ? `${program} links ${linked.soname}${impl ? '' : `, which is ${basename(abi.library)}`}` : '--mpi';
  return { flavor: abi.impl, how: impl && linked ? `${how}; --mpi ${asked}` : how, program: path, abi };
}

/** With no launcher of any MPI on PATH, that is the problem to name (not the program). */
function noLauncherAtAll(program: string, env: NodeJS.ProcessEnv): void {
  const names = [...new Set((Object.keys(FLAVORS) as FlavorName[]).flatMap((f) => FLAVORS[f].launchers))];
  if (names.some((n) => which(n, env))) return;
  throw new MpiiError(
    `no MPI launcher on PATH (no ${names.join(', ')}), and ${basename(program)} links no MPI library mpii can see`,
    `install an MPI (apt-get install -y ${FLAVORS.openmpi.packages}, or ${FLAVORS.mpich.packages}) or put its bin directory (the one with mpirun) on PATH`,
  );
}

/** The MPI's own launcher is used whatever PATH says; say so when PATH's mpirun is the other one. */
function withLauncherNote(d: Detected, env: NodeJS.ProcessEnv): Detected {
  const onPath = launcherFlavor(env);
  if (onPath && onPath !== d.flavor) {
    d.note =
      `the program loads ${FLAVORS[d.flavor].label} but the mpirun on PATH is ${FLAVORS[onPath].label}'s: ` +
      `launching with ${FLAVORS[d.flavor].label}'s own launcher (pass --mpi ${onPath} to use the other)`;
  }
  return d;
}

export function findLauncher(flavor: FlavorName, env: NodeJS.ProcessEnv): string {
  const l = findTool(flavor, FLAVORS[flavor].launchers, env);
  if (!l) {
    throw new MpiiError(
      `no ${FLAVORS[flavor].label} launcher found (tried ${FLAVORS[flavor].launchers.join(', ')})`,
      `install it (apt-get install -y ${FLAVORS[flavor].packages}) or put its bin directory (the one with mpirun) on PATH`,
    );
  }
  return l;
}

// Which MPI a Python program will load: the interpreter is not linked against MPI; mpi4py's
// extension module is, and mpi4py 4 ships one module per MPI ABI and picks one at import time.
// So the interpreter itself is asked (its sys.path, virtual environment and mpi4py's own choice),
// and the module it will load is read for the MPI library it needs. The answer is cached against
// the interpreter, the mpi4py folder and the environment variables that change it.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MpiiError } from '../errors.js';
import { FLAVORS, which, type FlavorName } from './flavors.js';

export interface PythonMpi {
  flavor: FlavorName;
  /** the interpreter's C headers (Python.h), for the call-site helper; undefined if unknown */
  include?: string;
  /** e.g. "mpi4py 3.1.4 (/usr/lib/python3/dist-packages/mpi4py)" */
  how: string;
  /** the module needs the MPICH ABI's libmpi.so.12, which this system calls libmpich.so.12: the
   * ranks get a folder with that name for it on LD_LIBRARY_PATH */
  abiLink?: { soname: string; target: string };
  /** mpi4py 4's choice of ABI (openmpi, mpich …) made without the shim */
  abi?: string;
}

/** Interpreters whose MPI comes from an extension module. */
export const isPython = (path: string) => /^(python|pypy)(\d+(\.\d+)*)?(-dbg)?$/.test(basename(path));

/** The interpreter of a script's `#!` line (`#!/usr/bin/env python3` looked up on PATH). */
export function shebangInterpreter(script: string, env: NodeJS.ProcessEnv): string | undefined {
  const fd = openSync(script, 'r');
  const head = Buffer.alloc(256);
  let n: number;
  try {
    n = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const line = head.subarray(0, n).toString('utf8').split('\n')[0];
  if (!line.startsWith('#!')) return undefined;
  const words = line.slice(2).trim().split(/\s+/).filter(Boolean);
  if (!words.length) return undefined;
  if (basename(words[0]) === 'env') {
    const cmd = words.slice(1).find((w) => !w.startsWith('-') && !w.includes('='));
    return cmd ? which(cmd, env) : undefined;
  }
  return words[0];
}

// Run by the interpreter: where mpi4py is, its version, and (mpi4py >= 4) the ABI it will pick,
// decided by mpi4py's own code under the rank's environment. Imports nothing that starts MPI.
const PROBE = `
import json, os, sys
out = {"executable": sys.executable, "hexversion": sys.hexversion}
try:
    import sysconfig
    out["include"] = sysconfig.get_paths()["include"]
except Exception:
    pass
try:
    import importlib.util
    spec = importlib.util.find_spec("mpi4py")
except Exception as e:
    spec = None
if spec is not None and spec.origin:
    d = os.path.dirname(spec.origin)
    out["dir"] = d
    out["modules"] = sorted(f for f in os.listdir(d) if f.startswith("MPI.") and (f.endswith(".so") or ".so." in f))
    try:
        import mpi4py
        out["version"] = mpi4py.__version__
        try:
            from mpi4py import _mpiabi
            out["abi"] = _mpiabi._get_mpiabi()
        except ImportError:
            pass
    except Exception as e:
        out["error"] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(out))
`;

interface Probed {
  hexversion?: number;
  include?: string;
  executable?: string;
  dir?: string;
  modules?: string[];
  version?: string;
  abi?: string;
  error?: string;
}

/** The MPI library sonames an ELF file needs (DT_NEEDED), read from its dynamic section. */
export function neededLibraries(path: string): string[] {
  const r = spawnSync('readelf', ['-d', path], { encoding: 'utf8' });
  if (r.status === 0) return [...r.stdout.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);
  // no binutils: ldd lists the same names (and their dependencies)
  const l = spawnSync('ldd', [path], { encoding: 'utf8' });
  return [...(l.stdout ?? '').matchAll(/^\s*(\S+\.so\S*)/gm)].map((m) => m[1]);
}

export function flavorOfLibraries(libs: string[]): FlavorName | undefined {
  // MPICH first: its ABI soname libmpi.so.12 also matches Open MPI's pattern
  for (const f of ['mpich', 'openmpi'] as FlavorName[]) {
    const hit = libs.find((l) => FLAVORS[f].libraries.test(l));
    if (hit) return f;
  }
  return undefined;
}

// The variables that change which mpi4py and which ABI the interpreter picks.
const ENV_KEYS = ['PYTHONPATH', 'PYTHONHOME', 'PYTHONNOUSERSITE', 'VIRTUAL_ENV', 'LD_LIBRARY_PATH', 'MPI4PY_MPIABI', 'MPI4PY_LIBMPI'];

const stampOf = (p: string) => {
  try {
    const s = statSync(p);
    return `${s.size}:${s.mtimeMs}:${s.ino}`;
  } catch {
    return 'missing';
  }
};

function probe(python: string, env: NodeJS.ProcessEnv, cacheDir: string | undefined): Probed {
  const key = JSON.stringify([python, stampOf(python), ...ENV_KEYS.map((k) => env[k] ?? '')]);
  const file = cacheDir && join(cacheDir, 'python-probe.json');
  let cache: Record<string, { dirStamp: string; probed: Probed }> = {};
  if (file) {
    try {
      cache = JSON.parse(readFileSync(file, 'utf8'));
      const hit = cache[key];
      if (hit && hit.probed.dir && stampOf(hit.probed.dir) === hit.dirStamp) return hit.probed;
    } catch {
      cache = {};
    }
  }
  const env2 = { ...env };
  delete env2.LD_PRELOAD; // never the shim in the probe
  const r = spawnSync(python, ['-c', PROBE], { env: env2, encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) {
    const why = (r.stderr || r.error?.message || '').trim().split('\n').pop();
    throw new MpiiError(
      `cannot ask ${python} which MPI its mpi4py uses (${why || `exit ${r.status}`})`,
      'check that the interpreter runs, or pass --mpi openmpi|mpich',
    );
  }
  const probed = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Probed;
  if (file && probed.dir) {
    try {
      mkdirSync(dirname(file), { recursive: true });
      cache[key] = { dirStamp: stampOf(probed.dir), probed };
      writeFileSync(file, JSON.stringify(cache));
    } catch {
      /* a cache we cannot write only costs the next run a probe */
    }
  }
  return probed;
}

/** The interpreter's C headers (for the call-site helper), when the MPI is named with --mpi. */
export function pythonInclude(python: string, env: NodeJS.ProcessEnv, cacheDir?: string): string | undefined {
  try {
    return probe(python, env, cacheDir).include;
  } catch {
    return undefined;
  }
}

/** The MPI `python` will load through mpi4py; throws a one-line error where that cannot be told. */
export function pythonMpi(python: string, env: NodeJS.ProcessEnv, cacheDir?: string): PythonMpi {
  const p = probe(python, env, cacheDir);
  if (!p.dir) {
    const other = otherPythonWithMpi4py(python, env);
    throw new MpiiError(
      `${python} has no mpi4py, so mpii cannot tell which MPI the program loads`,
      other
        ? `run it with ${other}, which has mpi4py, or install mpi4py for this one (pip install mpi4py)`
        : 'install mpi4py for it (apt-get install python3-mpi4py, or pip install mpi4py in its environment), or pass --mpi openmpi|mpich',
    );
  }
  if (p.error) {
    throw new MpiiError(`${python} cannot import mpi4py from ${p.dir} (${p.error})`, 'fix the installation, or pass --mpi openmpi|mpich');
  }
  const modules = p.modules ?? [];
  // mpi4py 4 wheels: MPI.<abi>.cpython-….so, one per ABI; mpi4py 3 / source builds: MPI.cpython-….so
  const chosen = p.abi
    ? (modules.find((m) => m.startsWith(`MPI.${p.abi}.`)) ?? modules.find((m) => !/^MPI\.[a-z]+\./.test(m)))
    : (modules.find((m) => !/^MPI\.(openmpi|mpich|impi|msmpi|mpiabi)\./.test(m)) ?? modules[0]);
  const where = `mpi4py ${p.version ?? '?'} (${p.dir})`;
  if (!chosen) throw new MpiiError(`${where} has no MPI extension module`, 'reinstall mpi4py, or pass --mpi openmpi|mpich');
  const needed = neededLibraries(join(p.dir, chosen));
  const flavor = flavorOfLibraries(needed) ?? (p.abi === 'openmpi' || p.abi === 'mpich' ? p.abi : undefined);
  if (!flavor) {
    // an mpi4py built for the MPI-5 standard ABI: mpii runs it when told which implementation
    const abi = needed.find((l) => l.startsWith('libmpi_abi.so'));
    throw new MpiiError(
      `cannot tell which MPI ${where} is built for (${chosen} needs ${abi ? `${abi}, the MPI standard ABI` : 'neither Open MPI nor MPICH'})`,
      abi ? 'pass --mpi abi:mpich or --mpi abi:openmpi' : 'pass --mpi openmpi|mpich',
    );
  }
  return { flavor, how: `${where}${p.abi ? `, ABI ${p.abi}` : ''}`, include: p.include, abiLink: abiLink(join(p.dir, chosen), flavor, env), abi: p.abi };
}

/** mpi4py's wheels link the MPICH ABI's soname, libmpi.so.12; Debian and Ubuntu ship MPICH as
 * libmpich.so.12 only, so the import fails ("libmpi.so.12: cannot open shared object file"). When
 * the module cannot find it and libmpich.so.12 is installed, the ranks are given that name for it. */
function abiLink(module: string, flavor: FlavorName, env: NodeJS.ProcessEnv): PythonMpi['abiLink'] {
  if (flavor !== 'mpich') return undefined;
  const ldd = spawnSync('ldd', [module], { env: { ...env, LD_PRELOAD: '' }, encoding: 'utf8' });
  if (!/^\s*libmpi\.so\.12 => not found/m.test(ldd.stdout ?? '')) return undefined;
  for (const ldconfig of ['ldconfig', '/sbin/ldconfig', '/usr/sbin/ldconfig']) {
    const r = spawnSync(ldconfig, ['-p'], { encoding: 'utf8' });
    if (r.status !== 0) continue;
    const target = r.stdout.match(/^\s*libmpich\.so\.12 \(.*x86-64.*\) => (\S+)$/m)?.[1] ?? r.stdout.match(/^\s*libmpich\.so\.12 .*=> (\S+)$/m)?.[1];
    return target ? { soname: 'libmpi.so.12', target } : undefined;
  }
  return undefined;
}

/** Another interpreter that has mpi4py (the distribution's), to name in the error. */
function otherPythonWithMpi4py(python: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const cand of ['/usr/bin/python3']) {
    if (cand === python) continue;
    const r = spawnSync(cand, ['-c', 'import mpi4py'], { env: { ...env, LD_PRELOAD: '' }, timeout: 10_000 });
    if (r.status === 0) return cand;
  }
  return undefined;
}

// Python call sites. In a Python rank every MPI call comes from a few addresses inside mpi4py's
// extension, so the shim's helper (preload/python/pysite.c) files each call under a key standing
// for the Python line that made it, and describes each key once, in the core's text sections, as
// "<hex key> <line> <file>\t<function>\t<C frame>". Keys lie above every code address, so a
// recorded address is either a key or a code address, never both.
import type { TextSection } from '../profile-file/read.js';

export const PYTHON_KEY_BASE = 2 ** 52;

export interface PythonSite {
  file: string;
  line: number;
  /** the function's qualified name, "<module>" at the top level */
  func: string;
  /** the C frame that called MPI (mpi4py's), "MPI.cpython-311-x86_64-linux-gnu.so+0x8d912" */
  cframe: string;
}

/** The keys a rank described (malformed lines are skipped: a crashed rank may end mid-line). */
export function pythonSites(texts: TextSection[]): Map<number, PythonSite> {
  const out = new Map<number, PythonSite>();
  for (const t of texts) {
    if (t.tool !== 0 || t.name !== 'pysite') continue;
    const m = /^([0-9a-f]+) (\d+) ([^\t]*)\t([^\t]*)\t?(.*)$/i.exec(t.text);
    if (!m) continue;
    const key = Number.parseInt(m[1], 16);
    if (key < PYTHON_KEY_BASE) continue;
    out.set(key, { file: m[3], line: Number(m[2]), func: m[4], cframe: m[5] });
  }
  return out;
}

// The compiler of the standard ABI's shim. No MPI ships a wrapper for the ABI that works
// everywhere (Debian forky's mpicc.mpi_abi_mpich is a link to Open MPI's wrapper without its data
// file), and the shim needs only the standard header, never a library: a two-line script in
// mpii's cache runs the C compiler with the header's directory, and stands where an MPI's compiler
// wrapper stands in a probe. It is rewritten only when its text changes, so its identity (part of
// the shim's cache key) stays put while the compiler and the header do.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MpiiError } from '../errors.js';
import { makeDirs } from '../fsdirs.js';
import { abiIncludeDir } from '../mpi/abi.js';
import { which } from '../mpi/flavors.js';

/** What shim.ts's probe says of an MPI's compiler wrapper (its Probe), for the standard ABI. */
export function abiProbe(
  cache: string,
  env: NodeJS.ProcessEnv,
  stamp: (path: string) => string,
): { compiler: string; incdirs: string[]; libdirs: string[]; lib: string; cc: string; cflags: string[]; stamp: string } {
  const cc = which('cc', env) ?? which('gcc', env);
  if (!cc) throw new MpiiError('no C compiler on PATH (cc or gcc) to build the MPI standard ABI shim', 'install one: apt-get install -y gcc');
  const include = abiIncludeDir();
  const script = join(cache, 'mpicc-abi');
  const text = `#!/bin/sh\n# mpii: the C compiler with the MPI standard ABI's header\nexec '${cc}' -I'${include}' "$@"\n`;
  let current = '';
  try {
    current = readFileSync(script, 'utf8');
  } catch {
    /* not made yet */
  }
  if (current !== text) {
    makeDirs(cache);
    const tmp = `${script}.${process.pid}`;
    writeFileSync(tmp, text, { mode: 0o755 });
    renameSync(tmp, script);
  }
  return { compiler: script, incdirs: [include], libdirs: [], lib: 'mpi_abi', cc, cflags: [`-I${include}`], stamp: `${stamp(script)}:${stamp(cc)}` };
}

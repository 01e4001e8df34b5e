// The C compiler's flags for the shim's sources: one place for the general shim (shim.ts) and
// the specialised ones (specialise.ts), which must be compiled alike.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// dist/src/build/ -> mpii's root
const PRELOAD = join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..'), 'preload');

// Every wrapper zeroes a 240-byte argument view (mpii_args_t); GCC's default for such a memset
// on x86-64 is `rep stos`, whose start-up alone costs tens of cycles on AMD — as much as the rest
// of a tool's per-call work. Plain stores instead.
const ARCH_FLAGS = process.arch === 'x64' ? ['-mstringop-strategy=unrolled_loop'] : [];

/** The compiler's flags for one source of the shim: the generated wrappers (hundreds of
 *  functions) with line tables only, as full debug information nearly doubled their compile
 *  time, the longest step of a build. */
export function compileArgs(src: string, obj: string, genDir: string, extra: string[] = []): string[] {
  const debug = src.startsWith(`${genDir}/`) ? '-g1' : '-g';
  return ['-c', '-fPIC', '-O2', debug, '-std=gnu11', '-fno-semantic-interposition', '-Wall', ...ARCH_FLAGS, ...extra,
    '-I', genDir, '-I', join(PRELOAD, 'core'), '-I', join(PRELOAD, 'include'), src, '-o', obj];
}


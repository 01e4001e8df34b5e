// A standard-ABI program's ranks: the implementation mpii runs it on, as the library the program
// asks for. The program needs libmpi_abi.so.1; the system's name points at one implementation, so
// the ranks get a link of that name to the chosen one (in mpii's cache, one folder per
// implementation), first on LD_LIBRARY_PATH: the loader finds it before the system's. Pure (part
// of planRun); the executor makes the link (linkAbiName).
import { join } from 'node:path';
import { ABI_SONAME, type AbiChoice } from '../mpi/abi.js';
import { ENV } from '../environment.gen.js';
import type { AbiLink } from './python.js';

export function abiPlan(
  abi: AbiChoice,
  vars: Record<string, string>,
  env: NodeJS.ProcessEnv,
  cacheDir: string,
): { vars: Record<string, string>; link: AbiLink } {
  const dir = join(cacheDir, 'abi-names', abi.impl);
  const path = [dir, vars[ENV.LD_LIBRARY_PATH] ?? env[ENV.LD_LIBRARY_PATH]].filter(Boolean).join(':');
  return { vars: { [ENV.LD_LIBRARY_PATH]: path }, link: { path: join(dir, ABI_SONAME), target: abi.library } };
}

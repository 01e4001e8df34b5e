// The files made from the environment's contract (src/gen/env-emit.ts) that are stale; `npm run
// gen` (src/gen/committed.ts) writes them with the repository's other generated files.
import { environmentFiles } from './env-emit.js';
import { staleAmong } from './committed.js';
import { ROOT } from '../paths.js';

/** Generated files whose committed text is not what the contract makes now. */
export function staleEnvironmentFiles(root = ROOT): string[] {
  return staleAmong(environmentFiles(root), root);
}

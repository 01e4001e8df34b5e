// The files made from the environment's contract (src/gen/env-emit.ts) that are stale; `npm run
// gen` (src/gen/committed.ts) writes them with the repository's other generated files.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { environmentFiles } from './env-emit.js';
import { ROOT } from '../paths.js';

/** Generated files whose committed text is not what the contract makes now. */
export function staleEnvironmentFiles(root = ROOT): string[] {
  return Object.entries(environmentFiles(root))
    .filter(([path, text]) => {
      try {
        return readFileSync(join(root, path), 'utf8') !== text;
      } catch {
        return true;
      }
    })
    .map(([path]) => path);
}

// `npm run gen` (with src/gen/profile-gen.ts): writes the files made from the environment's
// contract (src/gen/env-emit.ts) into the repository; `--check` only says which differ (exit 1),
// as the test does.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { environmentFiles, SPEC } from './env-emit.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

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

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const stale = staleEnvironmentFiles();
    for (const f of stale) console.error(`mpii gen: ${f} is not what ${SPEC} makes — run npm run gen`);
    process.exit(stale.length ? 1 : 0);
  }
  for (const [path, text] of Object.entries(environmentFiles(ROOT))) {
    writeFileSync(join(ROOT, path), text);
    console.log(`wrote ${path}`);
  }
}

// `npm run gen`: writes the files made from the profile file's contract (src/gen/profile-emit.ts)
// into the repository; `--check` only says which differ (exit 1), as the test does.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { profileFormatFiles } from './profile-emit.js';
import { ROOT } from '../paths.js';

/** Generated files whose committed text is not what the contract makes now. */
export function staleFiles(root = ROOT): string[] {
  return Object.entries(profileFormatFiles(root))
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
    const stale = staleFiles();
    for (const f of stale) console.error(`mpii gen: ${f} is not what preload/spec/profile-file.yaml makes — run npm run gen`);
    process.exit(stale.length ? 1 : 0);
  }
  for (const [path, text] of Object.entries(profileFormatFiles(ROOT))) {
    writeFileSync(join(ROOT, path), text);
    console.log(`wrote ${path}`);
  }
}

// `npm run gen`: writes the generated files the repository holds: those made from the profile
// file's contract (src/gen/profile-emit.ts), from the environment's (src/gen/env-emit.ts) and the
// registry of the tools' report modules (src/gen/reports.ts). `--check` only says which differ (exit 1), as the tests do.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { profileFormatFiles } from './profile-emit.js';
import { REGISTRY, reportRegistry } from './reports.js';
import { environmentFiles } from './env-emit.js';
import { ROOT } from '../paths.js';

/** Every generated file of the repository under `root`, by path, with the text it should have. */
export function generatedFiles(root = ROOT): Record<string, string> {
  return { ...profileFormatFiles(root), ...environmentFiles(root), [REGISTRY]: reportRegistry(root) };
}

/** Generated files whose committed text is not what their sources make now. */
export function staleFiles(root = ROOT): string[] {
  return staleAmong(generatedFiles(root), root);
}

/** Of `files` (path -> the text it should have), those whose text under `root` differs. */
export function staleAmong(files: Record<string, string>, root: string): string[] {
  return Object.entries(files)
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
    for (const f of stale) console.error(`mpii gen: ${f} is not what its sources make (the YAML of preload/) — run npm run gen`);
    process.exit(stale.length ? 1 : 0);
  }
  for (const [path, text] of Object.entries(generatedFiles(ROOT))) {
    writeFileSync(join(ROOT, path), text);
    console.log(`wrote ${path}`);
  }
}

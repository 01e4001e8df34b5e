// Where mpii's own files are: the one place that knows the installation's layout (a checkout or
// the npm package: bin/, config/, dist/, docs/, preload/, package.json side by side). Compiled to
// dist/src/paths.js, so the root is two folders up; every other module asks here.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** mpii's install root: the folder holding package.json, preload/, config/ and dist/. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The shim's sources: the core, the public headers, the specs, the built-in tools. */
export const PRELOAD_DIR = join(ROOT, 'preload');
/** Where the built-in tools' folders are (each with its tool.yaml). */
export const BUILTIN_TOOLS_DIR = join(PRELOAD_DIR, 'tools');
/** mpii's package.json (its version, the Node versions it supports). */
export const PACKAGE_JSON = join(ROOT, 'package.json');

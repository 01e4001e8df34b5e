// A configuration file's parsed, shape-checked form kept between runs (src/memo.ts): a warm
// `mpii run` reads it back instead of loading the YAML parser and parsing mpii's defaults again.
// It is used only while the file is exactly the one parsed (same size, times, inode), by the same
// loader code, and was read the same way (its display name, $HOME for '~/', whether `builtin:` is allowed); a file
// with an error is never stored, so its message comes back on every run.
import { fileURLToPath } from 'node:url';
import { memoized } from '../memo.js';
import { loadConfigFile, type ConfigFile, type LoadOptions, type StackDef, type ToolDef } from './load.js';

/** ConfigFile with its maps as entry lists (JSON has no Map). */
interface Stored {
  path: string;
  display: string;
  tools: [string, ToolDef][];
  stacks: [string, StackDef][];
  defaultStack?: ConfigFile['defaultStack'];
}

const toStored = (c: ConfigFile): Stored => ({ ...c, tools: [...c.tools], stacks: [...c.stacks] });
const fromStored = (s: Stored): ConfigFile => ({ ...s, tools: new Map(s.tools), stacks: new Map(s.stacks) });

/** The code that makes the parsed form: another mpii (an upgrade, a rebuild) parses again. */
export const LOADER_FILES = ['./load.js', './yaml-file.js', './options.js', './cache.js'].map((f) => fileURLToPath(new URL(f, import.meta.url)));

/** loadConfigFile(file, opts), answered from `cacheDir` when neither the file nor the loader changed. */
export function loadConfigFileCached(file: string, opts: LoadOptions & { display: string; home: string }, cacheDir?: string): ConfigFile {
  const key = JSON.stringify({ file, display: opts.display, home: opts.home, builtinAllowed: opts.builtinAllowed });
  return fromStored(memoized(cacheDir, 'config', key, () => ({ value: toStored(loadConfigFile(file, opts)), deps: [file, ...LOADER_FILES] })));
}

/**
 * Loading and shape-validating mpii's YAML configuration files
 * (format documented at the top of config/tools.yaml).
 *
 * Every error is an MpiiError whose message starts with `<file>:<line>:`.
 * Checks that need the merged view of all files (does a stack's tool exist,
 * are its options valid) live in resolve.ts; `default-stack` is checked in
 * mergeConfigs().
 */
import os from 'node:os';
import path from 'node:path';
import type { Node as YamlNode, Pair } from 'yaml';
import { MpiiError } from '../errors.js';
import type { ToolManifest } from '../tools/manifest.js';
import type { OptionSchema, OptionValue } from './options.js';
import { closest, isMap, isScalar, isSeq, YamlFile } from './yaml-file.js';

export interface ToolDef {
  name: string;
  builtin: boolean;
  /** absolute path of the .so (external tools) */
  path?: string;
  description?: string;
  /** undefined: no schema, any key=value accepted as strings. Built-ins always have one (maybe empty). */
  options?: Record<string, OptionSchema>;
  /** "file:line" of the declaration */
  origin: string;
  /** display name of the declaring file */
  file: string;
  /** built-in tools: their manifest (preload/tools/<name>/tool.yaml) */
  manifest?: ToolManifest;
}

/** One option given for one stack entry (YAML, --tools, ...). */
export interface RawOption {
  key: string;
  value: OptionValue;
  /** where it was written: "file:line" or "--tools" */
  origin: string;
}

export interface StackEntryDef {
  /** as written: a tool name or a .so path */
  ref: string;
  /** set when ref is a path (contains '/' or ends in '.so'): absolute path */
  path?: string;
  options: RawOption[];
  /** "file:line", "--tools" or "TOOLS" */
  origin: string;
}

export interface StackDef {
  name: string;
  entries: StackEntryDef[];
  origin: string;
  file: string;
}

export interface ConfigFile {
  /** absolute path */
  path: string;
  /** how the file is named in messages */
  display: string;
  tools: Map<string, ToolDef>;
  stacks: Map<string, StackDef>;
  defaultStack?: { name: string; origin: string; file: string };
}

export interface MergedConfig {
  /** display names of the files that were read, lowest precedence first */
  files: string[];
  tools: Map<string, ToolDef>;
  stacks: Map<string, StackDef>;
  defaultStack?: { name: string; origin: string; file: string };
}

export interface LoadOptions {
  /** `builtin: true` is only allowed in mpii's own defaults file */
  builtinAllowed: boolean;
  /** name used in messages; defaults to the path as given */
  display?: string;
  /** base for '~/' in paths; defaults to os.homedir() */
  home?: string;
}

const TOP_KEYS = ['tools', 'stacks', 'default-stack'];
const TOOL_KEYS = ['builtin', 'path', 'description', 'options'];
const NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/;

// ---------------------------------------------------------------- helpers

/** A stack/--tools/TOOLS entry is a path if it contains '/' or ends in '.so'. */
export function isPathRef(ref: string): boolean {
  return ref.includes('/') || ref.endsWith('.so');
}

/** Resolve a user-written path: '~/' → home, relative → against baseDir. */
export function expandPath(p: string, baseDir: string, home: string = os.homedir()): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return path.resolve(baseDir, p);
}

/** "did you mean 'x'? known <what>: a, b, c" (or "no <what> are defined"). */
export function suggestion(name: string, known: string[], what: string): string {
  if (known.length === 0) return `no ${what} are defined`;
  const near = closest(name, known);
  const list = `known ${what}: ${known.join(', ')}`;
  return near ? `did you mean '${near}'? ${list}` : list;
}

// ---------------------------------------------------------------- loading

/** A configuration file (tools.yaml, ~/.config/mpii/tools.yaml, --config): its tools and stacks. */
export class FileLoader extends YamlFile {
  constructor(
    absPath: string,
    display: string,
    readonly opts: LoadOptions,
  ) {
    super(absPath, display);
  }

  load(): ConfigFile {
    const result: ConfigFile = { path: this.absPath, display: this.display, tools: new Map(), stacks: new Map() };
    const root = this.parse();
    if (root === null) return result; // empty file: nothing configured
    if (!isMap(root)) {
      this.fail(root, 'the top level must be a mapping', `use the keys ${TOP_KEYS.join(', ')} (see config/tools.yaml)`);
    }
    for (const pair of root.items) {
      const key = this.keyName(pair, 'top-level key');
      this.checkKeys(pair, key, TOP_KEYS, 'at the top level');
      const value = this.deref(pair.value);
      if (key === 'tools') this.loadTools(value, pair, result);
      else if (key === 'stacks') this.loadStacks(value, pair, result);
      else {
        const name = this.stringValue(value, pair, 'default-stack', 'write `default-stack: NAME` with the name of a stack');
        result.defaultStack = { name, origin: this.at(value, pair), file: this.display };
      }
    }
    return result;
  }

  loadTools(node: YamlNode | null, parent: Pair, out: ConfigFile): void {
    if (this.isNull(node)) return;
    if (!isMap(node)) {
      this.fail(node, '`tools` must be a mapping of tool names', 'write `tools:` followed by indented `NAME: { path: ./libNAME.so }` entries', parent);
    }
    for (const pair of node.items) {
      const name = this.keyName(pair, 'tool name');
      if (!NAME_RE.test(name) || name.endsWith('.so')) {
        this.fail(pair, `invalid tool name '${name}'`, "use letters, digits, '_', '-' and '.', not ending in .so (put the file in `path:`)");
      }
      out.tools.set(name, this.loadTool(name, pair));
    }
  }

  loadTool(name: string, pair: Pair): ToolDef {
    const node = this.deref(pair.value);
    const needPath = `add \`path: /path/to/lib${name}.so\` (relative paths are resolved against ${path.dirname(this.display) || '.'})`;
    if (this.isNull(node)) this.fail(pair, `tool '${name}' has neither \`path\` nor \`builtin: true\``, needPath);
    if (!isMap(node)) this.fail(node, `tool '${name}' must be a mapping`, needPath, pair);

    const def: ToolDef = { name, builtin: false, origin: this.at(pair), file: this.display };
    let builtinPair: Pair | undefined;
    let pathPair: Pair | undefined;
    for (const p of node.items) {
      const key = this.keyName(p, 'key');
      this.checkKeys(p, key, TOOL_KEYS, `in tool '${name}'`);
      const v = this.deref(p.value);
      switch (key) {
        case 'builtin':
          if (!(isScalar(v) && v.value === true)) {
            this.fail(v, `\`builtin\` of tool '${name}' must be true`, 'remove the `builtin` key and give `path:` instead', p);
          }
          if (!this.opts.builtinAllowed) {
            this.fail(
              p,
              `\`builtin: true\` (tool '${name}') is only allowed in mpii's own defaults file`,
              `declare an external tool with \`path: /path/to/lib${name}.so\`; built-in tools are known without declaring them`,
            );
          }
          def.builtin = true;
          builtinPair = p;
          break;
        case 'path':
          def.path = expandPath(this.stringValue(v, p, `\`path\` of tool '${name}'`, needPath), path.dirname(this.absPath), this.opts.home);
          pathPair = p;
          break;
        case 'description':
          def.description = String(this.scalarValue(v, p, `\`description\` of tool '${name}'`, 'write the description on one line'));
          break;
        case 'options':
          def.options = this.loadSchema(name, v, p);
          break;
      }
    }
    if (builtinPair && pathPair) {
      this.fail(pathPair, `tool '${name}' has both \`builtin: true\` and \`path\``, 'keep only one of them');
    }
    if (!builtinPair && !pathPair) {
      this.fail(pair, `tool '${name}' has neither \`path\` nor \`builtin: true\``, needPath);
    }
    if (def.builtin && !def.options) def.options = {};
    return def;
  }

  loadStacks(node: YamlNode | null, parent: Pair, out: ConfigFile): void {
    if (this.isNull(node)) return;
    if (!isMap(node)) {
      this.fail(node, '`stacks` must be a mapping of stack names to lists', 'write `stacks:` followed by indented `NAME: [tool1, tool2]` entries', parent);
    }
    for (const pair of node.items) {
      const name = this.keyName(pair, 'stack name');
      if (!NAME_RE.test(name)) this.fail(pair, `invalid stack name '${name}'`, "use letters, digits, '_', '-' and '.'");
      const v = this.deref(pair.value);
      if (!isSeq(v)) {
        this.fail(v, `stack '${name}' must be a list`, `write \`${name}: [tool1, tool2]\` (or \`${name}: []\` for an empty stack)`, pair);
      }
      const entries = v.items.map((it) => this.loadEntry(name, this.deref(it), pair));
      out.stacks.set(name, { name, entries, origin: this.at(pair), file: this.display });
    }
  }

  loadEntry(stack: string, node: YamlNode | null, parent: Pair): StackEntryDef {
    const fix = 'write a tool name, a path to a .so, or `{ tool: { option: value } }`';
    const mk = (ref: string, at: YamlNode | Pair): StackEntryDef => {
      const e: StackEntryDef = { ref, options: [], origin: this.at(at) };
      if (isPathRef(ref)) e.path = expandPath(ref, path.dirname(this.absPath), this.opts.home);
      return e;
    };
    if (isScalar(node) && (typeof node.value === 'string' || typeof node.value === 'number') && String(node.value) !== '') {
      return mk(String(node.value), node);
    }
    if (isMap(node) && node.items.length === 1) {
      const pair = node.items[0];
      const ref = this.keyName(pair, 'tool name');
      const e = mk(ref, pair);
      const opts = this.deref(pair.value);
      if (this.isNull(opts)) return e;
      if (!isMap(opts)) this.fail(opts, `options of '${ref}' in stack '${stack}' must be a mapping`, `write \`{ ${ref}: { option: value } }\``, pair);
      for (const op of opts.items) {
        const key = this.keyName(op, 'option name');
        const ov = this.deref(op.value);
        const value = this.scalarValue(ov, op, `option '${key}' of '${ref}'`, 'give a single value, e.g. `top: 5`');
        e.options.push({ key, value, origin: this.at(op) });
      }
      return e;
    }
    this.fail(node, `entry of stack '${stack}' is neither a tool name, a .so path nor a single \`tool: {options}\` mapping`, fix, parent);
  }
}

/** Read and shape-validate one config file. */
export function loadConfigFile(file: string, opts: LoadOptions): ConfigFile {
  return new FileLoader(path.resolve(file), opts.display ?? file, opts).load();
}

/**
 * Merge config files (lowest precedence first): tools and stacks by name, later
 * file wins; the last `default-stack` wins and must name a stack of the merge.
 */
export function mergeConfigs(files: ConfigFile[]): MergedConfig {
  const merged: MergedConfig = { files: [], tools: new Map(), stacks: new Map() };
  for (const f of files) {
    merged.files.push(f.display);
    for (const [k, v] of f.tools) {
      merged.tools.delete(k); // overriding moves it to its new file's place
      merged.tools.set(k, v);
    }
    for (const [k, v] of f.stacks) {
      merged.stacks.delete(k);
      merged.stacks.set(k, v);
    }
    if (f.defaultStack) merged.defaultStack = f.defaultStack;
  }
  const ds = merged.defaultStack;
  if (ds && !merged.stacks.has(ds.name)) {
    throw new MpiiError(`${ds.origin}: default-stack '${ds.name}' is not a defined stack`, suggestion(ds.name, [...merged.stacks.keys()], 'stacks'));
  }
  return merged;
}

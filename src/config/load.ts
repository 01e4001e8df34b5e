/**
 * Loading and shape-validating mpii's YAML configuration files
 * (format documented at the top of config/tools.yaml).
 *
 * Every error is an MpiiError whose message starts with `<file>:<line>:`.
 * Checks that need the merged view of all files (does a stack's tool exist,
 * are its options valid) live in resolve.ts; `default-stack` is checked in
 * mergeConfigs().
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { Document, Node as YamlNode, Pair } from 'yaml';
import { MpiiError } from '../errors.js';
import type { ToolManifest } from '../tools/manifest.js';

// The YAML parser is loaded only when a file is really parsed: a warm `mpii run` takes every
// file's parsed form from the cache (config/cache.ts) and never loads it.
let yamlLib: typeof Yaml | undefined;
const yaml = (): typeof Yaml => (yamlLib ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
export const isAlias = ((n: unknown) => yaml().isAlias(n)) as typeof Yaml.isAlias;
export const isMap = ((n: unknown) => yaml().isMap(n)) as typeof Yaml.isMap;
export const isScalar = ((n: unknown) => yaml().isScalar(n)) as typeof Yaml.isScalar;
export const isSeq = ((n: unknown) => yaml().isSeq(n)) as typeof Yaml.isSeq;

export type OptionValue = string | number | boolean;
export const OPTION_TYPES = ['int', 'number', 'bool', 'string', 'enum'] as const;
export type OptionType = (typeof OPTION_TYPES)[number];

export interface OptionSchema {
  type: OptionType;
  default?: OptionValue;
  min?: number;
  max?: number;
  /** enum only */
  values?: string[];
  description?: string;
}

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
// `help` (the tools' manifests) and `description` (older configuration files) say the same
const SCHEMA_KEYS = ['type', 'default', 'min', 'max', 'values', 'help', 'description'];
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

export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

/** The candidate closest to `name`, if it is plausibly a typo of it. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.max(2, Math.floor(Math.max(name.length, best.length) / 3));
  return bestD <= limit ? best : undefined;
}

/** "did you mean 'x'? known <what>: a, b, c" (or "no <what> are defined"). */
export function suggestion(name: string, known: string[], what: string): string {
  if (known.length === 0) return `no ${what} are defined`;
  const near = closest(name, known);
  const list = `known ${what}: ${known.join(', ')}`;
  return near ? `did you mean '${near}'? ${list}` : list;
}

/** Short human description of an option schema, e.g. "int ≥ 1, default 15". */
export function describeSchema(s: OptionSchema): string {
  let t: string = s.type;
  if (s.type === 'enum') t = `one of ${(s.values ?? []).join('|')}`;
  if (s.min !== undefined && s.max !== undefined) t += ` in [${s.min}, ${s.max}]`;
  else if (s.min !== undefined) t += ` ≥ ${s.min}`;
  else if (s.max !== undefined) t += ` ≤ ${s.max}`;
  if (s.default !== undefined) t += `, default ${String(s.default)}`;
  return t;
}

const TRUE_WORDS = ['true', 'yes', 'on', '1'];
const FALSE_WORDS = ['false', 'no', 'off', '0'];

/**
 * Check and convert one option value against its schema.
 * Strings (from --tools) are parsed; typed YAML values are checked.
 */
export function coerceOption(s: OptionSchema, v: OptionValue): { ok: true; value: OptionValue } | { ok: false; reason: string } {
  const shown = typeof v === 'string' ? `'${v}'` : String(v);
  const range = (n: number): { ok: true; value: OptionValue } | { ok: false; reason: string } => {
    if (s.min !== undefined && n < s.min) return { ok: false, reason: `must be ≥ ${s.min}, got ${n}` };
    if (s.max !== undefined && n > s.max) return { ok: false, reason: `must be ≤ ${s.max}, got ${n}` };
    return { ok: true, value: n };
  };
  switch (s.type) {
    case 'int': {
      let n: number | undefined;
      if (typeof v === 'number') n = v;
      else if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) n = Number(v);
      if (n === undefined || !Number.isSafeInteger(n)) return { ok: false, reason: `expected an integer, got ${shown}` };
      return range(n);
    }
    case 'number': {
      let n: number | undefined;
      if (typeof v === 'number') n = v;
      else if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) n = Number(v);
      if (n === undefined || !Number.isFinite(n)) return { ok: false, reason: `expected a number, got ${shown}` };
      return range(n);
    }
    case 'bool': {
      if (typeof v === 'boolean') return { ok: true, value: v };
      const w = String(v).trim().toLowerCase();
      if (TRUE_WORDS.includes(w)) return { ok: true, value: true };
      if (FALSE_WORDS.includes(w)) return { ok: true, value: false };
      return { ok: false, reason: `expected true or false, got ${shown}` };
    }
    case 'string':
      return { ok: true, value: String(v) };
    case 'enum': {
      const w = String(v);
      const values = s.values ?? [];
      if (values.includes(w)) return { ok: true, value: w };
      return { ok: false, reason: `must be one of ${values.join(', ')}; got ${shown}` };
    }
  }
}

// ---------------------------------------------------------------- loading

/** One YAML file read with line numbers, so every message can say `<file>:<line>:`. Also used for
 *  the tools' manifests (src/tools/manifest.ts). */
export class FileLoader {
  readonly lc = new (yaml().LineCounter)();
  doc!: Document.Parsed;

  constructor(
    readonly absPath: string,
    readonly display: string,
    readonly opts: LoadOptions,
  ) {}

  line(node: YamlNode | Pair | null | undefined, fallback?: YamlNode | Pair | null): number {
    const range = (n: YamlNode | Pair | null | undefined): number | undefined => {
      if (!n) return undefined;
      if ('range' in n && n.range) return n.range[0];
      if ('key' in n) return range(n.key as YamlNode) ?? range(n.value as YamlNode);
      return undefined;
    };
    const off = range(node) ?? range(fallback);
    return off === undefined ? 1 : this.lc.linePos(off).line;
  }

  at(node: YamlNode | Pair | null | undefined, fallback?: YamlNode | Pair | null): string {
    return `${this.display}:${this.line(node, fallback)}`;
  }

  fail(node: YamlNode | Pair | null | undefined, message: string, fix: string, fallback?: YamlNode | Pair | null): never {
    throw new MpiiError(`${this.at(node, fallback)}: ${message}`, fix);
  }

  deref(n: unknown): YamlNode | null {
    if (n === null || n === undefined) return null;
    if (isAlias(n)) return (n.resolve(this.doc) as YamlNode | undefined) ?? null;
    return n as YamlNode;
  }

  isNull(n: YamlNode | null): boolean {
    return n === null || (isScalar(n) && (n.value === null || n.value === undefined));
  }

  keyName(pair: Pair, what: string): string {
    const k = this.deref(pair.key);
    if (isScalar(k) && (typeof k.value === 'string' || typeof k.value === 'number') && String(k.value) !== '') {
      return String(k.value);
    }
    this.fail(pair, `${what} must be a plain name`, `use a simple word as the ${what}`);
  }

  scalarValue(n: YamlNode | null, pair: Pair, what: string, fix: string): OptionValue {
    if (isScalar(n) && (typeof n.value === 'string' || typeof n.value === 'number' || typeof n.value === 'boolean')) {
      return n.value;
    }
    this.fail(n, `${what} must be a single value (text, number or true/false)`, fix, pair);
  }

  stringValue(n: YamlNode | null, pair: Pair, what: string, fix: string): string {
    if (isScalar(n) && typeof n.value === 'string' && n.value !== '') return n.value;
    if (isScalar(n) && typeof n.value === 'number') return String(n.value);
    this.fail(n, `${what} must be a non-empty text value`, fix, pair);
  }

  checkKeys(pair: Pair, key: string, allowed: string[], where: string): void {
    if (allowed.includes(key)) return;
    const near = closest(key, allowed);
    this.fail(pair, `unknown key '${key}' ${where}`, `${near ? `did you mean '${near}'? ` : ''}allowed keys: ${allowed.join(', ')}`);
  }

  /** Read and parse the file: its top-level node (null when empty). */
  parse(): YamlNode | null {
    let text: string;
    try {
      const st = fs.statSync(this.absPath);
      if (!st.isFile()) {
        throw new MpiiError(`${this.display}: config file is not a regular file`, 'pass a YAML file');
      }
      text = fs.readFileSync(this.absPath, 'utf8');
    } catch (e) {
      if (e instanceof MpiiError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        throw new MpiiError(`${this.display}: config file not found`, 'check the path');
      }
      throw new MpiiError(`${this.display}: cannot read config file (${code ?? (e as Error).message})`, 'check the file permissions');
    }

    this.doc = yaml().parseDocument(text, { lineCounter: this.lc, prettyErrors: true });
    if (this.doc.errors.length > 0) {
      const err = this.doc.errors[0];
      const line = err.linePos?.[0]?.line ?? 1;
      const reason = (err.message.split('\n')[0] ?? err.code).replace(/ at line \d+, column \d+:?\s*$/, '');
      throw new MpiiError(`${this.display}:${line}: YAML syntax error: ${reason}`, 'fix the YAML syntax');
    }
    const root = this.deref(this.doc.contents);
    return this.isNull(root) ? null : root;
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

  loadSchema(tool: string, node: YamlNode | null, parent: Pair): Record<string, OptionSchema> {
    const schemas: Record<string, OptionSchema> = {};
    if (this.isNull(node)) return schemas;
    const fix = 'write `options:` followed by `NAME: { type: int|number|bool|string|enum, default: ... }` entries';
    if (!isMap(node)) this.fail(node, `\`options\` of tool '${tool}' must be a mapping`, fix, parent);
    for (const pair of node.items) {
      const opt = this.keyName(pair, 'option name');
      const v = this.deref(pair.value);
      if (!isMap(v)) this.fail(v, `option '${opt}' of tool '${tool}' must be a mapping with at least \`type\``, fix, pair);
      const s: Partial<OptionSchema> = {};
      let defaultPair: Pair | undefined;
      let typePair: Pair | undefined;
      for (const p of v.items) {
        const key = this.keyName(p, 'key');
        this.checkKeys(p, key, SCHEMA_KEYS, `in option '${opt}' of tool '${tool}'`);
        const sv = this.deref(p.value);
        if (key === 'type') {
          const t = this.scalarValue(sv, p, `\`type\` of option '${opt}'`, `use one of ${OPTION_TYPES.join(', ')}`);
          if (!(OPTION_TYPES as readonly unknown[]).includes(t)) {
            this.fail(sv, `unknown option type '${String(t)}' for option '${opt}' of tool '${tool}'`, `use one of ${OPTION_TYPES.join(', ')}`, p);
          }
          s.type = t as OptionType;
          typePair = p;
        } else if (key === 'min' || key === 'max') {
          const n = this.scalarValue(sv, p, `\`${key}\` of option '${opt}'`, 'use a number');
          if (typeof n !== 'number') this.fail(sv, `\`${key}\` of option '${opt}' of tool '${tool}' must be a number`, 'use a number', p);
          s[key] = n;
        } else if (key === 'values') {
          if (!isSeq(sv) || sv.items.length === 0) {
            this.fail(sv, `\`values\` of option '${opt}' of tool '${tool}' must be a non-empty list`, 'write `values: [a, b, c]`', p);
          }
          s.values = sv.items.map((it) => String(this.scalarValue(this.deref(it), p, `each of \`values\` of option '${opt}'`, 'write `values: [a, b, c]`')));
        } else if (key === 'default') {
          s.default = this.scalarValue(sv, p, `\`default\` of option '${opt}'`, 'give a single value');
          defaultPair = p;
        } else {
          s.description = String(this.scalarValue(sv, p, `\`${key}\` of option '${opt}'`, 'write the description on one line'));
        }
      }
      if (!s.type) this.fail(pair, `option '${opt}' of tool '${tool}' has no \`type\``, `add \`type:\` (one of ${OPTION_TYPES.join(', ')})`);
      if ((s.min !== undefined || s.max !== undefined) && s.type !== 'int' && s.type !== 'number') {
        this.fail(typePair, `option '${opt}' of tool '${tool}': \`min\`/\`max\` only apply to int and number options`, 'remove min/max or change the type');
      }
      if (s.type === 'int' && ((s.min !== undefined && !Number.isInteger(s.min)) || (s.max !== undefined && !Number.isInteger(s.max)))) {
        this.fail(typePair, `option '${opt}' of tool '${tool}': \`min\`/\`max\` of an int option must be integers`, 'use whole numbers');
      }
      if (s.min !== undefined && s.max !== undefined && s.min > s.max) {
        this.fail(typePair, `option '${opt}' of tool '${tool}': min (${s.min}) is greater than max (${s.max})`, 'swap or fix the bounds');
      }
      if (s.type === 'enum' && !s.values) {
        this.fail(typePair, `enum option '${opt}' of tool '${tool}' has no \`values\``, 'add `values: [a, b, c]`');
      }
      if (s.values && s.type !== 'enum') {
        this.fail(typePair, `option '${opt}' of tool '${tool}': \`values\` only applies to enum options`, 'remove `values` or use `type: enum`');
      }
      const schema = s as OptionSchema;
      if (schema.default !== undefined) {
        const r = coerceOption(schema, schema.default);
        if (!r.ok)
          this.fail(
            defaultPair,
            `default of option '${opt}' of tool '${tool}' ${r.reason}`,
            `use a default that is ${describeSchema({ ...schema, default: undefined })}`,
          );
        schema.default = r.value;
      }
      schemas[opt] = schema;
    }
    return schemas;
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

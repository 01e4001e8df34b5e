// Reading a YAML file with line numbers, and the option schemas written in it: what the
// configuration files (load.ts) and the tools' manifests (src/tools/manifest.ts) share. Both import
// it; it imports neither, so the manifests do not depend on the configuration that names them.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { Document, Node as YamlNode, Pair } from 'yaml';
import { MpiiError } from '../errors.js';
import { coerceOption, describeSchema, OPTION_TYPES, type OptionSchema, type OptionType, type OptionValue } from './options.js';

// The YAML parser is loaded only when a file is really parsed: a warm `mpii run` takes every
// file's parsed form from the cache (config/cache.ts) and never loads it.
let yamlLib: typeof Yaml | undefined;
const yaml = (): typeof Yaml => (yamlLib ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
export const isAlias = ((n: unknown) => yaml().isAlias(n)) as typeof Yaml.isAlias;
export const isMap = ((n: unknown) => yaml().isMap(n)) as typeof Yaml.isMap;
export const isScalar = ((n: unknown) => yaml().isScalar(n)) as typeof Yaml.isScalar;
export const isSeq = ((n: unknown) => yaml().isSeq(n)) as typeof Yaml.isSeq;

// `help` (the tools' manifests) and `description` (older configuration files) say the same
const SCHEMA_KEYS = ['type', 'default', 'min', 'max', 'values', 'help', 'description'];

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

/** One YAML file read with line numbers, so every message can say `<file>:<line>:`: a
 *  configuration file (load.ts) or a tool's manifest (src/tools/manifest.ts). */
export class YamlFile {
  readonly lc = new (yaml().LineCounter)();
  doc!: Document.Parsed;

  constructor(
    readonly absPath: string,
    readonly display: string,
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
}

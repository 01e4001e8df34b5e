/**
 * The built-in tools' manifests: preload/tools/<name>/tool.yaml. A tool is one folder (its C, this
 * manifest, its report module, its docs page); everything mpii knows about it comes from here:
 * the CLI's option checking and help (src/config), the typed C options struct and the
 * registration of the shim (src/gen/tools-c.ts), the run flags and stack rules of `mpii run`,
 * and which report module draws its part of the report (src/report/tools.ts).
 * The format is documented in docs/writing-a-tool.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// yaml is loaded only when a manifest is parsed (not on a warm run: see the cache below)
import type { Node as YamlNode, Pair } from 'yaml';
import { MpiiError } from '../errors.js';
import { cacheRoot, memoized } from '../memo.js';
import type { OptionSchema, OptionValue } from '../config/options.js';
import { isMap, isSeq, YamlFile } from '../config/yaml-file.js';
import { BUILTIN_TOOLS_DIR } from '../paths.js';

export const THREAD_NEEDS = ['any', 'init-thread', 'single'] as const;

/** A flag of `mpii run` a tool adds: given, it sets options of every instance of the tool. */
/** A tool's own flag of `mpii run` or `mpii report`: the options of the tool it sets. */
export interface RunFlag {
  flag: string;
  sets: Record<string, OptionValue>;
  help: string;
}

export interface ToolManifest {
  name: string;
  /** the tool's folder (absolute) */
  dir: string;
  /** the manifest file (absolute), and the line its mapping starts on */
  file: string;
  line: number;
  description: string;
  /** where the tool is listed: `mpii tools`, the text report and --json (the timeline is at 40) */
  order: number;
  /** the C function that registers the tool (default mpii_<name>_init, '-' as '_') */
  init: string;
  /** the option schema (empty: no options) */
  options: Record<string, OptionSchema>;
  /** what it needs from the run */
  needs: { thread: (typeof THREAD_NEEDS)[number]; writes: string[]; note?: string };
  /** stack rules: tools this one must sit above (nearer the application), with why */
  before: Record<string, string>;
  runFlags: RunFlag[];
  report?: {
    /** the report module, relative to the folder (a .ts file: compiled with mpii) */
    module: string;
    /** key of its part of `mpii report --json` */
    json?: string;
    /** place on the HTML page (default: order; other tools' generic sections are at 80) */
    htmlOrder: number;
    /** MPI_Pcontrol switches its recording (the timeline shows when it was off) */
    pcontrol: boolean;
    /** flags of `mpii report` that set its options for the report (over those the run recorded) */
    flags: RunFlag[];
    /** what it adds to the report, in words (`mpii tools`, the docs) */
    adds: string;
  };
  /** the C file (in its folder) whose wrappers a specialised stack compiles in, with the
   *  tool's calls to the layer below made direct: it defines mpii_<tool>_wraps and
   *  mpii_<tool>_hooks (preload/core/dispatch.h). Absent: stacks with this tool stay chained. */
  specialise?: string;
  /** its tests and docs page, relative to mpii's root */
  tests: string[];
  docs?: string;
}

const TOP_KEYS = ['description', 'order', 'init', 'options', 'needs', 'stack', 'run-flags', 'report', 'specialise', 'tests', 'docs'];
const NAME_RE = /^[a-z][a-z0-9-]*$/;

/** The C identifier of a tool or option name: 'trace-count' → 'trace_count'. */
export const cName = (name: string) => name.replace(/[^A-Za-z0-9_]/g, '_');

class ManifestLoader {
  constructor(
    readonly f: YamlFile,
    readonly name: string,
  ) {}

  map(node: YamlNode | null, parent: Pair, what: string, keys?: string[]): Map<string, { pair: Pair; value: YamlNode | null }> {
    const out = new Map<string, { pair: Pair; value: YamlNode | null }>();
    if (this.f.isNull(node)) return out;
    if (!isMap(node)) this.f.fail(node, `${what} must be a mapping`, 'see docs/writing-a-tool.md', parent);
    for (const pair of node.items) {
      const key = this.f.keyName(pair, 'key');
      if (keys) this.f.checkKeys(pair, key, keys, `in ${what}`);
      out.set(key, { pair, value: this.f.deref(pair.value) });
    }
    return out;
  }

  text(v: { pair: Pair; value: YamlNode | null } | undefined, what: string): string | undefined {
    if (!v) return undefined;
    return this.f.stringValue(v.value, v.pair, what, `write ${what} as one line of text`);
  }

  number(v: { pair: Pair; value: YamlNode | null } | undefined, what: string): number | undefined {
    if (!v) return undefined;
    const n = this.f.scalarValue(v.value, v.pair, what, 'use a number');
    if (typeof n !== 'number') this.f.fail(v.value, `${what} must be a number`, 'use a number', v.pair);
    return n;
  }

  list(v: { pair: Pair; value: YamlNode | null } | undefined, what: string): string[] {
    if (!v) return [];
    if (!isSeq(v.value)) this.f.fail(v.value, `${what} must be a list`, `write ${what}: [a, b]`, v.pair);
    return v.value.items.map((it) => String(this.f.scalarValue(this.f.deref(it), v.pair, `each of ${what}`, `write ${what}: [a, b]`)));
  }

  /** The tool's own flags of `mpii run` (`run-flags`) or `mpii report` (`report.flags`): each sets
   *  options of the tool. */
  private flags(m: ToolManifest, node: YamlNode | null, pair: Pair, command: 'run' | 'report'): RunFlag[] {
    const f = this.f;
    const out: RunFlag[] = [];
    for (const [flag, v] of this.map(node, pair, command === 'run' ? '`run-flags`' : '`report.flags`')) {
      if (!/^--[a-z][a-z0-9-]*$/.test(flag)) f.fail(v.pair, `${command} flag '${flag}' of tool '${this.name}' is not --lower-case-words`, 'write it as --name');
      const spec = this.map(v.value, v.pair, `${command} flag '${flag}'`, ['sets', 'help']);
      const sets: Record<string, OptionValue> = {};
      const setsNode = spec.get('sets');
      for (const [opt, val] of this.map(setsNode?.value ?? null, setsNode?.pair as Pair, `\`sets\` of ${flag}`)) {
        if (!m.options[opt])
          f.fail(
            val.pair,
            `${command} flag '${flag}' sets '${opt}', which is not an option of tool '${this.name}'`,
            `declare it under \`options:\` or fix the name`,
          );
        sets[opt] = f.scalarValue(val.value, val.pair, `\`${opt}\` of ${flag}`, 'give a single value');
      }
      if (!Object.keys(sets).length) f.fail(v.pair, `${command} flag '${flag}' sets nothing`, 'write `sets: { option: value }`');
      out.push({ flag, sets, help: this.text(spec.get('help'), `\`help\` of ${flag}`) ?? '' });
    }
    return out;
  }

  load(dir: string): ToolManifest {
    const f: YamlFile = this.f;
    const root = f.parse();
    const where = `the manifest of tool '${this.name}'`;
    if (root === null) f.fail(null, `${where} is empty`, 'give at least `description:` (see docs/writing-a-tool.md)');
    if (!isMap(root)) f.fail(root, `${where} must be a mapping`, 'see docs/writing-a-tool.md');
    const top = new Map<string, { pair: Pair; value: YamlNode | null }>();
    for (const pair of root.items) {
      const key = f.keyName(pair, 'key');
      f.checkKeys(pair, key, TOP_KEYS, `in ${where}`);
      top.set(key, { pair, value: f.deref(pair.value) });
    }
    const description = this.text(top.get('description'), '`description`');
    if (description === undefined) f.fail(root, `${where} has no \`description\``, 'add `description: what the tool does, in one line`');
    const m: ToolManifest = {
      name: this.name,
      dir,
      file: f.absPath,
      line: f.line(root),
      description,
      order: this.number(top.get('order'), '`order`') ?? 100,
      init: this.text(top.get('init'), '`init`') ?? `mpii_${cName(this.name)}_init`,
      options: {},
      needs: { thread: 'any', writes: [] },
      before: {},
      runFlags: [],
      tests: this.list(top.get('tests'), '`tests`'),
      docs: this.text(top.get('docs'), '`docs`'),
    };
    const spec = this.text(top.get('specialise'), '`specialise`');
    if (spec !== undefined) {
      if (!/^[A-Za-z0-9_-]+\.c$/.test(spec) || !fs.existsSync(path.join(dir, spec))) {
        f.fail(
          top.get('specialise')?.value,
          `\`specialise\` of tool '${this.name}' must name a .c file in its folder (got '${spec}')`,
          'e.g. `specialise: my_tool.c`, the file with its wrappers',
        );
      }
      m.specialise = spec;
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(m.init))
      f.fail(top.get('init')?.value, `\`init\` of tool '${this.name}' is not a C function name`, 'write a C identifier');
    const opts = top.get('options');
    if (opts) {
      m.options = f.loadSchema(this.name, opts.value, opts.pair);
      for (const o of Object.keys(m.options)) {
        if (!/^[a-z][a-z0-9-]*$/.test(o))
          f.fail(opts.pair, `option '${o}' of tool '${this.name}' is not a plain name`, "use lower-case letters, digits and '-'");
      }
    }
    const needs = top.get('needs');
    for (const [k, v] of this.map(needs?.value ?? null, needs?.pair as Pair, '`needs`', ['thread', 'writes', 'note'])) {
      if (k === 'thread') {
        const t = this.text(v, '`needs.thread`') as string;
        if (!(THREAD_NEEDS as readonly string[]).includes(t)) f.fail(v.value, `unknown thread need '${t}'`, `use one of ${THREAD_NEEDS.join(', ')}`, v.pair);
        m.needs.thread = t as ToolManifest['needs']['thread'];
      } else if (k === 'writes') m.needs.writes = this.list(v, '`needs.writes`');
      else m.needs.note = this.text(v, '`needs.note`');
    }
    const stack = top.get('stack');
    for (const [, v] of this.map(stack?.value ?? null, stack?.pair as Pair, '`stack`', ['before'])) {
      for (const [other, why] of this.map(v.value, v.pair, '`stack.before`')) m.before[other] = this.text(why, `\`stack.before.${other}\``) as string;
    }
    const flags = top.get('run-flags');
    m.runFlags = this.flags(m, flags?.value ?? null, flags?.pair as Pair, 'run');
    const report = top.get('report');
    if (report) {
      const r = this.map(report.value, report.pair, '`report`', ['module', 'json', 'html-order', 'pcontrol', 'flags', 'adds']);
      const module = this.text(r.get('module'), '`report.module`');
      if (!module) f.fail(report.pair, `\`report\` of tool '${this.name}' has no \`module\``, 'name its report module: `module: report.ts`');
      if (!/\.ts$/.test(module) || module.startsWith('/') || module.split('/').includes('..')) {
        f.fail(r.get('module')?.value, `report module '${module}' must be a .ts file inside the tool's folder`, 'e.g. `module: report.ts`');
      }
      const pc = r.get('pcontrol');
      m.report = {
        module,
        json: this.text(r.get('json'), '`report.json`'),
        htmlOrder: this.number(r.get('html-order'), '`report.html-order`') ?? m.order,
        pcontrol: pc ? f.scalarValue(pc.value, pc.pair, '`report.pcontrol`', 'true or false') === true : false,
        flags: this.flags(m, r.get('flags')?.value ?? null, r.get('flags')?.pair as Pair, 'report'),
        adds: this.text(r.get('adds'), '`report.adds`') ?? '',
      };
    }
    return m;
  }
}

/** The manifest of the tool in `dir` (named after the folder). */
export function loadManifest(dir: string, display?: string): ToolManifest {
  const name = path.basename(dir);
  const file = path.join(dir, 'tool.yaml');
  const shown = display ?? file;
  if (!NAME_RE.test(name)) {
    throw new MpiiError(
      `${file}: the tool's folder name '${name}' is not a tool name`,
      "name the folder with lower-case letters, digits and '-' (the name users write in --tools)",
    );
  }
  return new ManifestLoader(new YamlFile(file, shown), name).load(dir);
}

const known = new Map<string, ToolManifest[]>();

/** The files a manifest's checked form depends on besides the manifests: this loader and the
 *  option checker it uses (a changed mpii re-parses). */
const LOADER_FILES = ['./manifest.js', '../config/yaml-file.js', '../config/options.js'].map((f) => fileURLToPath(new URL(f, import.meta.url)));

/** Every built-in tool: the folders of `toolsDir` that hold a tool.yaml, in their `order`. Read
 *  once per process; parsed and checked once per change of the files: parsing YAML with line
 *  numbers costs more than the rest of `mpii run`'s start, so the checked list is kept in mpii's
 *  cache (memo.ts: valid while the folder, each tool.yaml and the loader are as they were). */
export function builtinManifests(toolsDir: string = BUILTIN_TOOLS_DIR, env: NodeJS.ProcessEnv = process.env): ToolManifest[] {
  const have = known.get(toolsDir);
  if (have) return have;
  const list = memoized(cacheRoot(env), 'manifests', toolsDir, () => {
    let entries: string[];
    try {
      entries = fs.readdirSync(toolsDir).sort();
    } catch {
      entries = []; // no built-in tools here (a defaults file outside an mpii installation)
    }
    const dirs = entries.map((e) => path.join(toolsDir, e)).filter((dir) => fs.existsSync(path.join(dir, 'tool.yaml')));
    const value = dirs.map((dir) => loadManifest(dir)).sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
    // each folder too: a tool.yaml added to an existing folder changes the folder, not toolsDir
    return { value, deps: [toolsDir, ...entries.map((e) => path.join(toolsDir, e)), ...dirs.map((d) => path.join(d, 'tool.yaml')), ...LOADER_FILES] };
  });
  known.set(toolsDir, list);
  return list;
}

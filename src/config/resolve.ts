/**
 * Turning --tools / $TOOLS / --stack / the YAML config files into the concrete,
 * validated list of tool instances mpii runs the program through.
 *
 * Precedence (first that is set wins):
 *   --tools  >  $TOOLS  >  --stack NAME  >  default-stack of the merged config files
 * Config files (later override earlier, by tool/stack name):
 *   defaults (config/tools.yaml) < /etc/mpii/config.yaml < $XDG_CONFIG_HOME/mpii/config.yaml
 *   (default ~/.config) < ./mpii.yaml < --config FILE (must exist)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MpiiError } from '../errors.js';
import { cacheRoot } from '../memo.js';
import { loadConfigFileCached } from './cache.js';
import { expandPath, isPathRef, mergeConfigs, suggestion } from './load.js';
import type { ConfigFile, MergedConfig, RawOption, StackEntryDef, ToolDef } from './load.js';
import { coerceOption, describeSchema, type OptionSchema, type OptionValue } from './options.js';
import { builtinManifests, type ToolManifest } from '../tools/manifest.js';
import { BUILTIN_TOOLS_DIR } from '../paths.js';
import { ENV } from '../environment.gen.js';

export interface ToolInstance {
  name: string;
  kind: 'builtin' | 'external';
  /** absolute path of the .so (external tools only) */
  path?: string;
  options: Record<string, string | number | boolean>;
  /** a built-in tool's manifest (its stack rules, run flags, report module) */
  manifest?: ToolManifest;
}

export interface ResolvedStack {
  tools: ToolInstance[];
  /** e.g. "--tools", "TOOLS", "--stack count (from ./mpii.yaml)", "default-stack none (from config/tools.yaml)" */
  source: string;
}

/** Where configuration comes from (everything but the stack choice). */
export interface ConfigRequest {
  /** --config FILE (must exist) */
  configFile?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** mpii's own config/tools.yaml (the only file where `builtin: true` is allowed) */
  defaultsFile: string;
  /** system-wide file; default /etc/mpii/config.yaml (overridable for tests) */
  systemConfigFile?: string;
  /** the built-in tools' folders (each with its tool.yaml); default preload/tools of this mpii */
  toolsDir?: string;
}

export interface ResolveRequest extends ConfigRequest {
  /** --tools: comma-separated names or .so paths, options as name[key=val;key=val] */
  tools?: string;
  /** --stack NAME */
  stack?: string;
}

export interface ToolInfo {
  name: string;
  kind: 'builtin' | 'external';
  description?: string;
  /** absolute path (external tools) */
  path?: string;
  /** external tools: false when the .so does not exist (or is not a file) */
  pathExists?: boolean;
  /** option schema; undefined = no schema (any key=value accepted as strings) */
  options?: Array<{ name: string; summary: string } & OptionSchema>;
  /** "file:line" of the declaration that won */
  definedIn: string;
  /** built-in tools (their manifest): what they need from the run, add to the report, their docs */
  needs?: ToolManifest['needs'];
  report?: string;
  docs?: string;
}

export interface StackInfo {
  name: string;
  /** entries as written, options as [key=val;key=val] */
  entries: string[];
  /** "file:line" of the definition that won */
  definedIn: string;
  isDefault: boolean;
  /** set when the stack does not resolve (unknown tool, bad option, missing .so): the one-line error */
  problem?: string;
}

export const SYSTEM_CONFIG_FILE = '/etc/mpii/config.yaml';

// ---------------------------------------------------------------- config files

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME && env.HOME !== '' ? env.HOME : os.homedir();
}

/** How a file is named in messages: ./x or sub/x under cwd, ~/… under $HOME, else absolute. */
export function displayPath(p: string, cwd: string, home?: string): string {
  const abs = path.resolve(cwd, p);
  const rel = path.relative(cwd, abs);
  if (rel !== '' && rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel)) {
    return rel.includes(path.sep) ? rel : `.${path.sep}${rel}`;
  }
  if (home && home !== path.sep && abs.startsWith(home + path.sep)) return `~${abs.slice(home.length)}`;
  return abs;
}

/** The config files in precedence order (lowest first), whether or not they exist. */
export function configFiles(req: ConfigRequest): Array<{ path: string; required: boolean; builtinAllowed: boolean }> {
  const home = homeOf(req.env);
  const xdg = req.env.XDG_CONFIG_HOME && path.isAbsolute(req.env.XDG_CONFIG_HOME) ? req.env.XDG_CONFIG_HOME : path.join(home, '.config');
  const files = [
    { path: path.resolve(req.cwd, req.defaultsFile), required: true, builtinAllowed: true },
    { path: req.systemConfigFile ?? SYSTEM_CONFIG_FILE, required: false, builtinAllowed: false },
    { path: path.join(xdg, 'mpii', 'config.yaml'), required: false, builtinAllowed: false },
    { path: path.join(req.cwd, 'mpii.yaml'), required: false, builtinAllowed: false },
  ];
  if (req.configFile !== undefined) {
    files.push({ path: path.resolve(req.cwd, req.configFile), required: true, builtinAllowed: false });
  }
  return files;
}

/** The built-in tools, from their manifests (preload/tools/<name>/tool.yaml), as the configuration
 *  below every file: a configuration file may override one by name. */
function builtinTools(req: ConfigRequest, home: string): ConfigFile {
  const dir = req.toolsDir ?? BUILTIN_TOOLS_DIR;
  const tools = new Map<string, ToolDef>();
  for (const m of builtinManifests(dir, req.env)) {
    const file = displayPath(m.file, req.cwd, home);
    tools.set(m.name, { name: m.name, builtin: true, description: m.description, options: m.options, origin: `${file}:${m.line}`, file, manifest: m });
  }
  return { path: dir, display: displayPath(dir, req.cwd, home), tools, stacks: new Map() };
}

/** Load and merge every config file that applies. */
export function loadConfig(req: ConfigRequest): MergedConfig {
  const home = homeOf(req.env);
  const loaded: ConfigFile[] = [builtinTools(req, home)];
  for (const f of configFiles(req)) {
    const display = displayPath(f.path, req.cwd, home);
    if (!f.required && !fs.existsSync(f.path)) continue;
    if (f.required && !fs.existsSync(f.path)) {
      const isUser = req.configFile !== undefined && f.path === path.resolve(req.cwd, req.configFile);
      throw new MpiiError(
        isUser ? `--config: file not found: ${display}` : `mpii's defaults file not found: ${display}`,
        isUser ? 'check the path given to --config' : 'reinstall mpii',
      );
    }
    loaded.push(loadConfigFileCached(f.path, { builtinAllowed: f.builtinAllowed, display, home }, cacheRoot(req.env)));
  }
  return mergeConfigs(loaded);
}

// ---------------------------------------------------------------- command line

/** Split --tools on commas that are not inside [...]. */
function splitTopLevel(spec: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of spec) {
    if (ch === '[') depth++;
    else if (ch === ']') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts;
}

const TOOLS_SYNTAX = "write --tools 'name,name[key=val;key=val],./libtool.so'";

/** Parse the --tools value into stack entries (paths resolved against cwd). */
export function parseToolsArg(spec: string, cwd: string, home: string = os.homedir()): StackEntryDef[] {
  const origin = '--tools';
  if (spec.trim() === '') return []; // --tools '' = explicitly no tools
  return splitTopLevel(spec).map((raw) => {
    const part = raw.trim();
    if (part === '') throw new MpiiError(`${origin}: empty entry in '${spec}'`, TOOLS_SYNTAX);
    const m = /^([^[\]]+?)\s*(?:\[([^[\]]*)\])?$/.exec(part);
    if (!m) throw new MpiiError(`${origin}: cannot parse '${part}' (unbalanced or misplaced brackets)`, TOOLS_SYNTAX);
    const ref = m[1];
    const entry: StackEntryDef = { ref, options: [], origin };
    if (isPathRef(ref)) entry.path = expandPath(ref, cwd, home);
    const seen = new Set<string>();
    for (const o of (m[2] ?? '').split(/[;,]/)) {
      if (o.trim() === '') continue;
      const eq = o.indexOf('=');
      const key = (eq < 0 ? o : o.slice(0, eq)).trim();
      if (eq < 0 || key === '') {
        throw new MpiiError(`${origin}: option '${o.trim()}' of '${ref}' is not key=value`, `write ${ref}[key=value;key2=value2]`);
      }
      if (seen.has(key)) throw new MpiiError(`${origin}: option '${key}' of '${ref}' is given twice`, 'give each option once');
      seen.add(key);
      entry.options.push({ key, value: o.slice(eq + 1).trim(), origin });
    }
    return entry;
  });
}

/** Parse $TOOLS (colon-separated names or .so paths, no options; paths against cwd). */
export function parseToolsEnv(value: string, cwd: string, home: string = os.homedir()): StackEntryDef[] {
  const origin = ENV.TOOLS;
  return value
    .split(':')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((ref) => {
      if (/[[\]]/.test(ref)) {
        throw new MpiiError(
          `${origin}: options are not supported in the TOOLS variable ('${ref}')`,
          `use --tools '${ref}' or a stack in mpii.yaml, or drop the [...]`,
        );
      }
      const entry: StackEntryDef = { ref, options: [], origin };
      if (isPathRef(ref)) entry.path = expandPath(ref, cwd, home);
      return entry;
    });
}

// ---------------------------------------------------------------- instantiation

function checkLibrary(file: string, shown: string, origin: string, fix: string): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    throw new MpiiError(`${origin}: tool library '${shown}' not found (looked for ${file})`, fix);
  }
  if (!st.isFile()) {
    throw new MpiiError(`${origin}: tool library '${shown}' is not a file (${file}${st.isDirectory() ? ' is a directory' : ''})`, fix);
  }
}

function applyOptions(toolName: string, schema: Record<string, OptionSchema> | undefined, given: RawOption[]): Record<string, OptionValue> {
  if (!schema) {
    const out: Record<string, OptionValue> = {};
    for (const o of given) out[o.key] = String(o.value);
    return out;
  }
  const names = Object.keys(schema);
  const values: Record<string, OptionValue> = {};
  for (const o of given) {
    const s = schema[o.key];
    if (!s) {
      const fix =
        names.length === 0
          ? `tool '${toolName}' takes no options; remove it`
          : suggestion(o.key, names, `options of '${toolName}'`) + ` (${names.map((n) => `${n}: ${describeSchema(schema[n])}`).join('; ')})`;
      throw new MpiiError(`${o.origin}: unknown option '${o.key}' for tool '${toolName}'`, fix);
    }
    const r = coerceOption(s, o.value);
    if (!r.ok) {
      throw new MpiiError(
        `${o.origin}: bad value for option '${o.key}' of tool '${toolName}': ${r.reason}`,
        `use a value that is ${describeSchema({ ...s, default: undefined })}`,
      );
    }
    values[o.key] = r.value;
  }
  const out: Record<string, OptionValue> = {};
  for (const n of names) {
    if (n in values) out[n] = values[n];
    else if (schema[n].default !== undefined) out[n] = schema[n].default as OptionValue;
  }
  return out;
}

function instantiate(entry: StackEntryDef, cfg: MergedConfig): ToolInstance {
  if (entry.path !== undefined) {
    const yamlOrigin = /:\d+$/.test(entry.origin);
    checkLibrary(
      entry.path,
      entry.ref,
      entry.origin,
      yamlOrigin
        ? 'check the path (relative paths are resolved against the directory of the YAML file)'
        : 'check the path (relative paths are resolved against the current directory)',
    );
    return {
      name: path.basename(entry.path),
      kind: 'external',
      path: entry.path,
      options: applyOptions(path.basename(entry.path), undefined, entry.options),
    };
  }
  const def: ToolDef | undefined = cfg.tools.get(entry.ref);
  if (!def) {
    throw new MpiiError(`${entry.origin}: unknown tool '${entry.ref}'`, `${suggestion(entry.ref, [...cfg.tools.keys()], 'tools')}; or give a path to a .so`);
  }
  if (def.builtin) {
    const t: ToolInstance = { name: def.name, kind: 'builtin', options: applyOptions(def.name, def.options, entry.options) };
    // not enumerable: a ToolInstance stays the plain value it was in JSON, logs and comparisons
    if (def.manifest) Object.defineProperty(t, 'manifest', { value: def.manifest, enumerable: false });
    return t;
  }
  const p = def.path as string;
  checkLibrary(p, p, entry.origin, `tool '${def.name}' is declared at ${def.origin}; fix its \`path\` there or build the library`);
  return { name: def.name, kind: 'external', path: p, options: applyOptions(def.name, def.options, entry.options) };
}

// ---------------------------------------------------------------- public API

/** Pick and validate the tool stack for a run. Throws MpiiError on any problem. */
export function resolveStack(req: ResolveRequest): ResolvedStack {
  const cfg = loadConfig(req);
  const home = homeOf(req.env);
  const build = (entries: StackEntryDef[], source: string): ResolvedStack => ({
    tools: entries.map((e) => instantiate(e, cfg)),
    source,
  });

  if (req.tools !== undefined) return build(parseToolsArg(req.tools, req.cwd, home), '--tools');

  const envTools = req.env[ENV.TOOLS];
  // TOOLS with no entries ('', ' ', ':') counts as unset
  if (envTools !== undefined && envTools.split(':').some((t) => t.trim() !== '')) return build(parseToolsEnv(envTools, req.cwd, home), ENV.TOOLS);

  if (req.stack !== undefined) {
    const st = cfg.stacks.get(req.stack);
    if (!st) {
      throw new MpiiError(
        `--stack: unknown stack '${req.stack}'`,
        `${suggestion(req.stack, [...cfg.stacks.keys()], 'stacks')} (define stacks in ./mpii.yaml or ~/.config/mpii/config.yaml)`,
      );
    }
    return build(st.entries, `--stack ${st.name} (from ${st.file})`);
  }

  const ds = cfg.defaultStack;
  if (!ds) return { tools: [], source: 'no default-stack configured' };
  const st = cfg.stacks.get(ds.name) as NonNullable<ReturnType<typeof cfg.stacks.get>>; // existence checked by mergeConfigs
  const from = st.file === ds.file ? `(from ${ds.file})` : `(from ${ds.file}; stack defined in ${st.file})`;
  return build(st.entries, `default-stack ${ds.name} ${from}`);
}

/** Every tool known to the merged configuration, for `mpii tools`. */
export function listTools(req: ConfigRequest): ToolInfo[] {
  const cfg = loadConfig(req);
  return [...cfg.tools.values()].map((t) => {
    const info: ToolInfo = {
      name: t.name,
      kind: t.builtin ? 'builtin' : 'external',
      definedIn: t.origin,
    };
    if (t.description !== undefined) info.description = t.description;
    if (t.manifest) {
      info.needs = t.manifest.needs;
      if (t.manifest.report?.adds) info.report = t.manifest.report.adds;
      if (t.manifest.docs) info.docs = t.manifest.docs;
    }
    if (t.path !== undefined) {
      info.path = t.path;
      info.pathExists = fs.existsSync(t.path) && fs.statSync(t.path).isFile();
    }
    if (t.options) {
      info.options = Object.entries(t.options).map(([name, s]) => ({ name, summary: describeSchema(s), ...s }));
    }
    return info;
  });
}

function formatEntry(e: StackEntryDef): string {
  if (e.options.length === 0) return e.ref;
  return `${e.ref}[${e.options.map((o) => `${o.key}=${String(o.value)}`).join(';')}]`;
}

/** Every stack of the merged configuration, for `mpii tools`. */
export function listStacks(req: ConfigRequest): StackInfo[] {
  const cfg = loadConfig(req);
  return [...cfg.stacks.values()].map((s) => {
    const info: StackInfo = {
      name: s.name,
      entries: s.entries.map(formatEntry),
      definedIn: s.origin,
      isDefault: cfg.defaultStack?.name === s.name,
    };
    try {
      for (const e of s.entries) instantiate(e, cfg);
    } catch (e) {
      if (!(e instanceof MpiiError)) throw e;
      info.problem = e.fix ? `${e.message} — ${e.fix}` : e.message;
    }
    return info;
  });
}

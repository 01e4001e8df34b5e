/**
 * The C a shim build generates from the built-in tools' manifests (src/tools/manifest.ts):
 *  - mpii_options_<tool>.h: the tool's options as a typed struct and the function that fills it
 *    (the manifest's defaults, then this instance's MPII_OPT_<id>); a tool reads its options
 *    once, in its init or MPI_Init wrapper, and never parses text itself;
 *  - mpii_tools.c: the registration table the core looks tools up in by the names TOOLS gives
 *    (preload/core/builtin_tools.h), and the options functions over one generic reader
 *    (preload/core/options.c).
 * The core names no tool: adding a folder with a tool.yaml adds a row here.
 */
import type { OptionSchema, OptionValue } from '../config/options.js';
import { cName, type ToolManifest } from '../tools/manifest.js';

const upper = (s: string) => cName(s).toUpperCase();
const cString = (s: string) => JSON.stringify(s); // JSON string escapes are valid C for this text
const comment = (s: string) => s.replace(/\*\//g, '* /');

/** C type of an option's field. */
function fieldType(s: OptionSchema): string {
  switch (s.type) {
    case 'int':
      return 'long long';
    case 'number':
      return 'double';
    case 'bool':
      return 'int';
    case 'string':
      return 'const char *';
    case 'enum':
      return 'int';
  }
}

/** The default as a C initializer. */
function defaultValue(tool: string, opt: string, s: OptionSchema): string {
  const d: OptionValue | undefined = s.default;
  switch (s.type) {
    case 'int':
      return d === undefined ? '0' : `${d}LL`;
    case 'number':
      return d === undefined ? '0.0' : String(Number(d)).includes('.') || /e/i.test(String(d)) ? String(d) : `${d}.0`;
    case 'bool':
      return d === true ? '1' : '0';
    case 'string':
      return d === undefined ? 'NULL' : cString(String(d));
    case 'enum':
      return d === undefined ? '0' : `MPII_${upper(tool)}_${upper(opt)}_${upper(String(d))}`;
  }
}

const KIND: Record<OptionSchema['type'], string> = {
  int: 'MPII_OPTION_INT',
  number: 'MPII_OPTION_NUMBER',
  bool: 'MPII_OPTION_BOOL',
  string: 'MPII_OPTION_STRING',
  enum: 'MPII_OPTION_ENUM',
};

/** mpii_options_<tool>.h */
export function optionsHeader(m: ToolManifest): string {
  const c = cName(m.name);
  const guard = `MPII_OPTIONS_${upper(m.name)}_H`;
  const out = [
    `/* Generated from preload/tools/${m.name}/tool.yaml by src/gen/tools-c.ts: do not edit. The options of tool '${m.name}'. */`,
    `#ifndef ${guard}`,
    `#define ${guard}`,
    '',
  ];
  for (const [opt, s] of Object.entries(m.options)) {
    if (s.type !== 'enum') continue;
    out.push(`/* values of option '${opt}' */`);
    out.push(`enum { ${(s.values ?? []).map((v, i) => `MPII_${upper(m.name)}_${upper(opt)}_${upper(v)} = ${i}`).join(', ')} };`);
  }
  for (const [opt, s] of Object.entries(m.options)) {
    // the bounds, for a tool that sizes something by them (profile's stack depth)
    if (s.type === 'int' && s.min !== undefined) out.push(`#define MPII_${upper(m.name)}_${upper(opt)}_MIN ${s.min}LL`);
    if (s.type === 'int' && s.max !== undefined) out.push(`#define MPII_${upper(m.name)}_${upper(opt)}_MAX ${s.max}`);
  }
  out.push('', 'typedef struct {');
  for (const [opt, s] of Object.entries(m.options)) {
    const range = s.min !== undefined || s.max !== undefined ? ` [${s.min ?? ''}, ${s.max ?? ''}]` : '';
    const what = s.type === 'enum' ? `one of ${(s.values ?? []).join('|')}` : s.type === 'string' && s.default === undefined ? 'NULL when not given' : s.type;
    out.push(`    /* ${opt}: ${what}${range}${s.description ? ` — ${comment(s.description)}` : ''} */`);
    out.push(`    ${fieldType(s)} ${cName(opt)};`);
  }
  if (!Object.keys(m.options).length) out.push('    char none; /* the tool has no options */');
  out.push(`} mpii_${c}_options_t;`, '');
  out.push(`/* The options of instance \`tool_id\`: the manifest's defaults, then what the run gave it. */`);
  out.push(`void mpii_${c}_options(int tool_id, mpii_${c}_options_t *options);`, '', `#endif`, '');
  return out.join('\n');
}

/** mpii_tools.c */
export function toolsSource(manifests: ToolManifest[]): string {
  const out = [
    `/* Generated from preload/tools/<name>/tool.yaml by src/gen/tools-c.ts: do not edit.`,
    ` * The built-in tools the shim registers by name, and their typed options. */`,
    '#include <stddef.h>',
    '#include "builtin_tools.h"',
    '#include "options.h"',
  ];
  for (const m of manifests) out.push(`#include "mpii_options_${cName(m.name)}.h"`);
  out.push('');
  for (const m of manifests) out.push(`void ${m.init}(int tool_id);`);
  out.push('', 'const mpii_builtin_t mpii_builtins[] = {');
  for (const m of manifests) out.push(`    { ${cString(m.name)}, ${m.init} },`);
  out.push('    { 0, 0 },', '};');
  for (const m of manifests) {
    const c = cName(m.name);
    const type = `mpii_${c}_options_t`;
    const entries = Object.entries(m.options);
    out.push('');
    if (entries.length) {
      for (const [opt, s] of entries) {
        if (s.type === 'enum') out.push(`static const char *const ${c}_${cName(opt)}_values[] = { ${(s.values ?? []).map(cString).join(', ')}, NULL };`);
      }
      out.push(`static const mpii_option_spec_t ${c}_spec[] = {`);
      for (const [opt, s] of entries) {
        const lim = (v: number | undefined, none: string) => (v === undefined ? none : s.type === 'int' ? `${v}.0` : String(v));
        out.push(
          `    { ${cString(opt)}, ${KIND[s.type]}, offsetof(${type}, ${cName(opt)}), ${lim(s.min, '-1e300')}, ${lim(s.max, '1e300')}, ` +
            `${s.type === 'enum' ? `${c}_${cName(opt)}_values` : 'NULL'} },`,
        );
      }
      out.push('};');
    }
    out.push(`void mpii_${c}_options(int tool_id, ${type} *options)`, '{');
    out.push(`    static const ${type} defaults = {`);
    for (const [opt, s] of entries) out.push(`        .${cName(opt)} = ${defaultValue(m.name, opt, s)},`);
    if (!entries.length) out.push('        .none = 0,');
    out.push('    };', '    *options = defaults;');
    if (entries.length) out.push(`    mpii_options_read(tool_id, ${cString(m.name)}, ${c}_spec, sizeof ${c}_spec / sizeof ${c}_spec[0], options);`);
    else out.push('    (void) tool_id;');
    out.push('}');
  }
  return `${out.join('\n')}\n`;
}

/** Every generated file, by name. */
export function generateToolSources(manifests: ToolManifest[]): Record<string, string> {
  const files: Record<string, string> = { 'mpii_tools.c': toolsSource(manifests) };
  for (const m of manifests) files[`mpii_options_${cName(m.name)}.h`] = optionsHeader(m);
  return files;
}

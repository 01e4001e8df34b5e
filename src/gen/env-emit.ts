// The files made from the environment's contract (preload/spec/environment.yaml): the shim's C
// header of names (preload/core/mpii_env.h), the CLI's TypeScript names (src/environment.gen.ts)
// and the table in docs/run.md. `npm run gen` writes them (src/gen/committed.ts); the test
// test/environment.unit.test.ts checks that the committed ones are what this makes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const SPEC = 'preload/spec/environment.yaml';
export const C_HEADER = 'preload/core/mpii_env.h';
export const TS_FILE = 'src/environment.gen.ts';
export const DOC = 'docs/run.md';
export const DOC_BEGIN = '<!-- the environment: generated from preload/spec/environment.yaml by `npm run gen`, do not edit -->';
export const DOC_END = '<!-- end of the generated environment -->';

const SETTERS = ['cli', 'user', 'cli-or-user', 'defaults'] as const;
const READERS = ['shim', 'cli', 'loader', 'mpi4py'] as const;

export interface EnvVariable {
  /** as declared: `MPII_OPT_<n>` for a pattern */
  name: string;
  type: string;
  setBy: (typeof SETTERS)[number];
  readBy: (typeof READERS)[number][];
  /** the C macro of the name (or of the pattern's prefix) */
  c?: string;
  /** the name is this prefix followed by a number */
  pattern?: string;
  default?: string | number;
  values?: string[];
  /** a user's variable `mpii run` hands to the ranks itself (whatever the launcher forwards) */
  passedOn: boolean;
  doc: string;
}

export interface EnvSpec {
  int: string;
  variables: EnvVariable[];
}

export class EnvSpecError extends Error {
  name = 'EnvSpecError';
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** preload/spec/environment.yaml, checked: a bad declaration is one line naming the variable. */
export function loadEnvSpec(root: string): EnvSpec {
  const raw: unknown = parse(readFileSync(join(root, SPEC), 'utf8'));
  const fail = (where: string, what: string): never => {
    throw new EnvSpecError(`${SPEC}: ${where}: ${what}`);
  };
  if (!isObj(raw) || !isObj(raw.variables) || typeof raw.int !== 'string') fail('top', 'needs `int` (text) and `variables` (a map)');
  const top = raw as { int: string; variables: Record<string, unknown> };
  const macros = new Set<string>();
  const variables = Object.entries(top.variables).map(([name, v]): EnvVariable => {
    if (!isObj(v)) return fail(name, 'not a map');
    const setBy = v['set-by'] as EnvVariable['setBy'];
    const readBy = v['read-by'] as EnvVariable['readBy'];
    if (!SETTERS.includes(setBy)) fail(name, `set-by must be one of ${SETTERS.join(', ')}`);
    if (!Array.isArray(readBy) || !readBy.length || !readBy.every((r) => READERS.includes(r))) fail(name, `read-by must list some of ${READERS.join(', ')}`);
    if (typeof v.type !== 'string' || typeof v.doc !== 'string') fail(name, 'needs type and doc');
    const c = v.c as string | undefined;
    if (readBy.includes('shim') !== (c !== undefined)) fail(name, 'a variable the shim reads names its C macro (c:), and only such a variable');
    if (c !== undefined && (!/^MPII_ENV_[A-Z0-9_]+$/.test(c) || macros.has(c))) fail(name, `c: ${c} is not a new MPII_ENV_… name`);
    if (c) macros.add(c);
    const pattern = v.pattern as string | undefined;
    if (pattern !== undefined ? name !== `${pattern}<n>` : !/^[A-Z][A-Z0-9_]*$/.test(name)) fail(name, 'a name is NAME, or PREFIX<n> with pattern: PREFIX');
    if (v.type === 'int' && typeof v.default !== 'number') fail(name, 'an int variable needs a number as default');
    if (v.type === 'word' && !Array.isArray(v.values)) fail(name, 'a word variable lists its values');
    const passedOn = v['passed-on'] === true;
    if (passedOn && setBy !== 'user') fail(name, 'passed-on is for a variable the user sets');
    return {
      name,
      type: v.type as string,
      setBy,
      readBy,
      c,
      pattern,
      default: v.default as string | number | undefined,
      values: v.values as string[] | undefined,
      passedOn,
      doc: v.doc as string,
    };
  });
  return { int: top.int, variables };
}

/** The key src/ names a variable by: its name, or a pattern's prefix without the last `_`. */
export const tsKey = (v: EnvVariable) => (v.pattern ? v.pattern.replace(/_$/, '') : v.name);
/** The name as it is spelled in the environment (a pattern: its prefix). */
const spelled = (v: EnvVariable) => v.pattern ?? v.name;

const banner = (style: 'c' | 'ts') => {
  const text = `Generated from ${SPEC} by \`npm run gen\` (src/gen/env-emit.ts): do not edit; change the YAML and run it.`;
  return style === 'c' ? `/* ${text} */\n` : `// ${text}\n`;
};

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const sides = (v: EnvVariable) => `set by ${v.setBy}; read by ${v.readBy.join(', ')}`;

function emitC(spec: EnvSpec): string {
  const out = [banner('c'), '#ifndef MPII_ENV_H', '#define MPII_ENV_H', ''];
  out.push('/* The variables the shim reads (getenv at MPI_Init and MPI_Finalize only). */');
  for (const v of spec.variables.filter((x) => x.c)) {
    out.push(`/* ${v.name} (${v.type}; ${sides(v)}): ${oneLine(v.doc).replace(/\*\//g, '* /')} */`);
    out.push(`#define ${v.c} ${JSON.stringify(spelled(v))}`);
    if (v.type === 'int') out.push(`#define ${v.c}_DEFAULT ${v.default}`);
  }
  out.push('', '#endif', '');
  return out.join('\n');
}

function emitTs(spec: EnvSpec): string {
  const out = [banner('ts'), '/** Every variable of the environment mpii sets or reads, by the name src/ spells it with. */', 'export const ENV = {'];
  for (const v of spec.variables) {
    out.push(`  /** ${v.name} (${v.type}; ${sides(v)}): ${oneLine(v.doc).replace(/\*\//g, '* /')} */`);
    out.push(`  ${tsKey(v)}: '${spelled(v)}',`);
  }
  out.push('} as const;', '');
  const ints = spec.variables.filter((v) => v.type === 'int');
  out.push(
    '/** What an unset `int` variable means (src/run/env-int.ts reads them). */',
    `export const ENV_INT_DEFAULT = { ${ints.map((v) => `${tsKey(v)}: ${v.default}`).join(', ')} } as const;`,
    '',
  );
  const passed = spec.variables.filter((v) => v.passedOn);
  out.push(
    "/** The user's variables `mpii run` passes on to the ranks when they are set. */",
    `export const ENV_PASSED_ON = [${passed.map((v) => `ENV.${tsKey(v)}`).join(', ')}] as const;`,
    '',
  );
  return out.join('\n');
}

const cell = (s: string) => oneLine(s).replace(/\|/g, '\\|');

/** The table of docs/run.md, between its markers. */
export function docTable(spec: EnvSpec): string {
  const rows = spec.variables.map((v) => {
    const type = v.type === 'word' ? v.values!.map((x) => `\`${x}\``).join(' \\| ') : v.type === 'int' ? 'int¹' : cell(v.type);
    const dflt = v.default !== undefined ? ` Default \`${v.default}\`.` : '';
    const passed = v.passedOn ? ' `mpii run` passes it on to the ranks.' : '';
    return `| \`${v.name}\` | ${type} | ${v.setBy} | ${v.readBy.join(', ')} | ${cell(v.doc)}.${dflt}${passed} |`;
  });
  return [
    DOC_BEGIN,
    '',
    '| variable | value | set by | read by | meaning |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `¹ int: ${cell(spec.int)} (\`preload/spec/env-int.cases\` lists the cases both sides are tested with).`,
    '',
    DOC_END,
  ].join('\n');
}

function withDocTable(root: string, spec: EnvSpec): string {
  const text = readFileSync(join(root, DOC), 'utf8');
  const a = text.indexOf(DOC_BEGIN);
  const b = text.indexOf(DOC_END);
  if (a < 0 || b < a) throw new EnvSpecError(`${DOC} has no generated environment table: put the two marker lines of src/gen/env-emit.ts where it goes`);
  return `${text.slice(0, a)}${docTable(spec)}${text.slice(b + DOC_END.length)}`;
}

/** Path (from the repository's root) → the text the contract makes. */
export function environmentFiles(root: string): Record<string, string> {
  const spec = loadEnvSpec(root);
  return { [C_HEADER]: emitC(spec), [TS_FILE]: emitTs(spec), [DOC]: withDocTable(root, spec) };
}

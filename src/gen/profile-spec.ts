// The profile file's contract, loaded: preload/spec/profile-file.yaml (the envelope and the
// core's blocks) and preload/tools/*/blocks.yaml (each tool's blocks), checked, with every
// struct offset and block index worked out. src/gen/profile-emit.ts turns it into the C header
// and the TypeScript layout; nothing reads the YAML at run time.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';

export const SCALARS = { u32: 4, i32: 4, u64: 8, i64: 8, f64: 8 } as const;
export type Scalar = keyof typeof SCALARS;

export interface StructField {
  name: string;
  type: Scalar | 'char';
  /** bytes of a char[N] */ length: number;
  offset: number;
  size: number;
  doc?: string;
}
export interface TailField {
  name: string;
  length: string;
  doc?: string;
}
export interface Struct {
  name: string;
  doc?: string;
  fields: StructField[];
  tail: TailField[];
  size: number;
}

export interface BlockField {
  /** the label the file carries (for `labels: fields`) and the TypeScript key */
  name: string;
  /** the C constant of its first word, e.g. PF_TICKS_FIRST */
  c: string;
  index: number;
  words: number;
  /** C constant for `words` (MON_HIST_BINS) */
  wordsC?: string;
  /** how the words read: u64 (default), i64, f64 (the bits of a double) or char[N] */
  type: string;
  /** C constant for the bytes of a char[N] field */
  bytesC?: string;
  /** the field's class, one of its block's `classes` (memcheck: error or hint) */
  class?: string;
  doc?: string;
}
export interface FieldGroup {
  sizeC: string;
  size: number;
  fields: BlockField[];
}
export interface Block {
  name: string;
  kind: 'counters' | 'text';
  doc?: string;
  /** text blocks: json or line (free text) */
  format?: string;
  header?: FieldGroup;
  row?: FieldGroup;
  /** fields: the labels name the row's fields (C macro labelsC); free: written by the tool; none */
  labels: 'fields' | 'free' | 'none';
  labelsC?: string;
  labelsDoc?: string;
  /** Every field of the row belongs to one of these classes (memcheck's kinds: error or hint):
   *  declared once here, for the C (an enum and a per-field initialiser) and the reader. */
  classes?: { values: string[]; prefixC: string; ofC: string };
}
export interface Constant {
  name: string;
  value: number;
  doc?: string;
}
export interface ToolBlocks {
  tool: string;
  /** the YAML it came from, relative to the repository */
  source: string;
  /** folder of the generated C header (relative), '' for none */
  dir: string;
  constants: Constant[];
  blocks: Block[];
}
/** The node file (<out>/node-<host>.live): the slots the images live in while the job runs. */
export interface NodeFileSpec {
  magic: string;
  version: number;
  oldest: number;
  headerBytes: number;
  slotBytes: number;
  closedBit: number;
  history: { version: number; since: string; change: string }[];
}
export interface ProfileSpec {
  version: number;
  oldest: number;
  history: { version: number; since: string; change: string }[];
  magic: { image: string; profile: string };
  node: NodeFileSpec;
  states: Record<string, number>;
  recordKinds: Record<string, { value: number; payload: string }>;
  structs: Struct[];
  core: ToolBlocks;
  tools: ToolBlocks[];
}

export class SpecError extends Error {
  name = 'SpecError';
}

function fail(where: string, what: string): never {
  throw new SpecError(`${where}: ${what}`);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const CNAME = /^[A-Z_][A-Z0-9_]*$/;

function loadStruct(where: string, name: string, raw: unknown): Struct {
  if (!isObj(raw) || !Array.isArray(raw.fields)) fail(where, `struct ${name} needs a list of fields`);
  let offset = 0;
  let align = 1;
  const fields: StructField[] = raw.fields.map((f: unknown, i: number) => {
    if (!isObj(f) || typeof f.name !== 'string' || typeof f.type !== 'string') fail(where, `struct ${name} field ${i} needs name and type`);
    const m = /^char\[(\d+)\]$/.exec(f.type);
    const type = m ? 'char' : f.type;
    if (!m && !(type in SCALARS)) fail(where, `struct ${name}.${f.name}: unknown type ${f.type} (u32, i32, u64, i64, f64, char[N])`);
    const size = m ? Number(m[1]) : SCALARS[type as Scalar];
    const a = m ? 1 : size; // C's natural alignment on the platforms mpii supports
    offset = Math.ceil(offset / a) * a;
    align = Math.max(align, a);
    const out: StructField = { name: f.name, type: type as StructField['type'], length: m ? size : 0, offset, size, doc: f.doc as string | undefined };
    offset += size;
    return out;
  });
  const tail = ((raw.tail ?? []) as unknown[]).map((t, i) => {
    if (!isObj(t) || typeof t.name !== 'string' || typeof t.length !== 'string') fail(where, `struct ${name} tail ${i} needs name and length`);
    if (!fields.some((f) => f.name === t.length)) fail(where, `struct ${name} tail ${t.name}: length ${t.length} is not a field`);
    return { name: t.name, length: t.length, doc: t.doc as string | undefined };
  });
  return { name, doc: raw.doc as string | undefined, fields, tail, size: Math.ceil(offset / align) * align };
}

function loadGroup(where: string, block: string, prefix: string, raw: unknown, constants: Constant[]): FieldGroup {
  if (!isObj(raw) || typeof raw.size !== 'string' || !Array.isArray(raw.fields))
    fail(where, `block ${block}: a header or row needs size (a C name) and fields`);
  let index = 0;
  const fields = raw.fields.map((f: unknown, i: number) => {
    if (!isObj(f) || typeof f.name !== 'string') fail(where, `block ${block} field ${i} needs a name`);
    const c = `${prefix}${(f.c as string | undefined) ?? f.name.toUpperCase()}`;
    if (!CNAME.test(c)) fail(where, `block ${block} field '${f.name}': ${c} is not a C constant name (give it c:)`);
    let words = 1;
    if (typeof f.words === 'number') words = f.words;
    else if (typeof f.words === 'string')
      words = constants.find((k) => k.name === f.words)?.value ?? fail(where, `block ${block} field ${f.name}: no constant ${f.words}`);
    const out: BlockField = {
      name: f.name,
      c,
      index,
      words,
      type: (f.type as string | undefined) ?? 'u64',
      doc: f.doc as string | undefined,
      wordsC: (f.words_c as string | undefined) ?? (typeof f.words === 'string' ? f.words : undefined),
      bytesC: f.bytes_c as string | undefined,
      class: f.class as string | undefined,
    };
    index += words;
    return out;
  });
  return { sizeC: raw.size, size: index, fields };
}

/** A block's `classes: { values: [...], c: PREFIX, of_c: NAME }`: every field of its row names one. */
function loadClasses(where: string, block: string, raw: unknown, row: FieldGroup | undefined): Block['classes'] {
  if (
    !isObj(raw) ||
    !Array.isArray(raw.values) ||
    !raw.values.length ||
    !raw.values.every((v) => typeof v === 'string' && /^[a-z][a-z0-9_]*$/.test(v)) ||
    typeof raw.c !== 'string' ||
    typeof raw.of_c !== 'string' ||
    !CNAME.test(raw.c) ||
    !CNAME.test(raw.of_c)
  ) {
    fail(where, `block ${block}: classes needs values (lower-case words), c (a C prefix) and of_c (a C name)`);
  }
  if (!row) fail(where, `block ${block}: classes needs a row`);
  const values = raw.values as string[];
  for (const f of row.fields) {
    if (f.class === undefined) fail(where, `block ${block} field '${f.name}': no class (one of ${values.join(', ')})`);
    if (!values.includes(f.class)) fail(where, `block ${block} field '${f.name}': class ${f.class} is not one of ${values.join(', ')}`);
  }
  return { values, prefixC: raw.c as string, ofC: raw.of_c as string };
}

function loadBlocks(root: string, path: string, expectTool?: string): ToolBlocks {
  const where = relative(root, path);
  const raw = parse(readFileSync(path, 'utf8')) as unknown;
  if (!isObj(raw) || typeof raw.tool !== 'string' || !Array.isArray(raw.blocks)) fail(where, 'needs tool: <name> and blocks: [...]');
  if (expectTool && raw.tool !== expectTool) fail(where, `says tool ${raw.tool}, but its folder is ${expectTool}`);
  const constants: Constant[] = Object.entries((raw.constants ?? {}) as Record<string, { value: number; doc?: string }>).map(([name, c]) => ({
    name,
    value: c.value,
    doc: c.doc,
  }));
  const names = new Set<string>();
  const blocks = raw.blocks.map((b: unknown, i: number): Block => {
    if (!isObj(b) || typeof b.name !== 'string' || (b.kind !== 'counters' && b.kind !== 'text'))
      fail(where, `block ${i} needs a name and kind counters or text`);
    if (names.has(b.name)) fail(where, `block ${b.name} is declared twice`);
    names.add(b.name);
    const prefix = (b.prefix as string | undefined) ?? '';
    const labels = (b.labels as Block['labels'] | undefined) ?? 'none';
    if (b.kind === 'counters' && !['fields', 'free', 'none'].includes(labels)) fail(where, `block ${b.name}: labels is fields, free or none`);
    const block: Block = {
      name: b.name,
      kind: b.kind,
      doc: b.doc as string | undefined,
      format: b.format as string | undefined,
      labels,
      labelsC: b.labels_c as string | undefined,
      labelsDoc: b.labels_doc as string | undefined,
      header: b.header === undefined ? undefined : loadGroup(where, b.name, prefix, b.header, constants),
      row: b.row === undefined ? undefined : loadGroup(where, b.name, prefix, b.row, constants),
    };
    if (labels === 'fields' && (!block.row || !block.labelsC)) fail(where, `block ${b.name}: labels: fields needs a row and labels_c`);
    if (b.classes !== undefined) block.classes = loadClasses(where, b.name, b.classes, block.row);
    else if (block.row?.fields.some((f) => f.class !== undefined)) fail(where, `block ${b.name}: a field has a class, but the block declares no classes`);
    return block;
  });
  return { tool: raw.tool, source: where, dir: '', constants, blocks };
}

function loadNodeFile(where: string, raw: unknown): NodeFileSpec {
  if (!isObj(raw)) fail(where, 'needs node_file: { magic, version, oldest, header_bytes, slot_bytes, closed_bit, history }');
  const { magic, version, oldest, header_bytes: headerBytes, slot_bytes: slotBytes, closed_bit: closedBit } = raw;
  if (typeof magic !== 'string' || magic.length !== 8) fail(where, 'node_file.magic needs 8 characters');
  if (typeof version !== 'number' || typeof oldest !== 'number' || oldest > version)
    fail(where, 'node_file needs version and oldest (numbers, oldest <= version)');
  const page = (n: unknown) => typeof n === 'number' && n >= 65536 && n % 65536 === 0;
  // each slot is mapped at its offset: both must be multiples of the largest Linux page (64 KiB)
  if (!page(headerBytes) || !page(slotBytes)) fail(where, 'node_file.header_bytes and slot_bytes need multiples of 65536');
  if (typeof closedBit !== 'number' || closedBit < 32 || closedBit > 63) fail(where, 'node_file.closed_bit needs a bit of the u64 live count (32 to 63)');
  const history = (raw.history ?? []) as NodeFileSpec['history'];
  for (let v = oldest; v <= version; v++) if (!history.some((h) => h.version === v)) fail(where, `node_file.history has no entry for version ${v}`);
  return { magic, version, oldest, headerBytes: headerBytes as number, slotBytes: slotBytes as number, closedBit, history };
}

/** The contract of the repository at `root`. */
export function loadProfileSpec(root: string): ProfileSpec {
  const path = join(root, 'preload', 'spec', 'profile-file.yaml');
  const where = relative(root, path);
  const raw = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  const version = raw.version;
  const oldest = raw.oldest;
  if (typeof version !== 'number' || typeof oldest !== 'number' || oldest > version) fail(where, 'needs version and oldest (numbers, oldest <= version)');
  const history = (raw.history ?? []) as ProfileSpec['history'];
  for (let v = oldest; v <= version; v++) if (!history.some((h) => h.version === v)) fail(where, `history has no entry for version ${v}`);
  const structsRaw = raw.structs;
  if (!isObj(structsRaw)) fail(where, 'needs structs');
  const structs = Object.entries(structsRaw).map(([name, s]) => loadStruct(where, name, s));
  for (const need of ['node_header', 'profile_header', 'image_header', 'record', 'sparse_head', 'sparse_entry']) {
    if (!structs.some((s) => s.name === need)) fail(where, `needs struct ${need}`);
  }
  const core = { ...loadBlocks(root, path), dir: 'preload/core' };
  const toolsDir = join(root, 'preload', 'tools');
  const tools = readdirSync(toolsDir)
    .sort()
    .filter((t) => existsSync(join(toolsDir, t, 'blocks.yaml')))
    .map((t) => ({ ...loadBlocks(root, join(toolsDir, t, 'blocks.yaml'), t), dir: `preload/tools/${t}` }));
  return {
    version,
    oldest,
    history,
    magic: raw.magic as ProfileSpec['magic'],
    node: loadNodeFile(where, raw.node_file),
    states: raw.states as Record<string, number>,
    recordKinds: raw.record_kinds as ProfileSpec['recordKinds'],
    structs,
    core,
    tools,
  };
}

// The files made from the profile file's contract (src/gen/profile-spec.ts): the writer's C
// header (structs with compile-time checks of every offset, enums, the blocks' field indices
// and label strings) and the reader's TypeScript layout. `npm run gen` writes them; the test
// test/profile-format.unit.test.ts checks that the committed ones are what this makes.
import { join } from 'node:path';
import { loadProfileSpec, type Block, type FieldGroup, type ProfileSpec, type Struct, type ToolBlocks } from './profile-spec.js';

const C_TYPES = { u32: 'uint32_t', i32: 'int32_t', u64: 'uint64_t', i64: 'int64_t', f64: 'double' } as const;

const banner = (sources: string[], style: 'c' | 'ts') => {
  const text = `Generated from ${sources.join(', ')} by \`npm run gen\` (src/gen/profile-emit.ts): do not edit; change the YAML and run it (docs/profile-file.md).`;
  return style === 'c' ? `/* ${text} */\n` : `// ${text}\n`;
};

const cComment = (doc?: string) => (doc ? ` /* ${doc.replace(/\*\//g, '* /')} */` : '');

const cString = (s: string) => JSON.stringify(s); // C and JSON agree for the text the labels hold

function emitStruct(s: Struct): string {
  const t = `mpii_${s.name}_t`;
  const lines = [`/* ${s.name}${s.doc ? `: ${s.doc}` : ''} */`, 'typedef struct {'];
  for (const f of s.fields) lines.push(`    ${f.type === 'char' ? `char ${f.name}[${f.length}]` : `${C_TYPES[f.type]} ${f.name}`};${cComment(f.doc)}`);
  lines.push(`} ${t};`);
  for (const f of s.fields)
    lines.push(`_Static_assert(offsetof(${t}, ${f.name}) == ${f.offset}, "${s.name}.${f.name} is at byte ${f.offset} (preload/spec/profile-file.yaml)");`);
  lines.push(`_Static_assert(sizeof(${t}) == ${s.size}, "${s.name} is ${s.size} bytes (preload/spec/profile-file.yaml)");`);
  return `${lines.join('\n')}\n`;
}

function emitGroup(g: FieldGroup, skip: Set<string>): string[] {
  const lines: string[] = [];
  for (const f of g.fields) {
    lines.push(`    ${f.c} = ${f.index},${cComment(f.doc)}`);
    if (f.wordsC && !skip.has(f.wordsC)) lines.push(`    ${f.wordsC} = ${f.words},`);
    const chars = /^char\[(\d+)\]$/.exec(f.type);
    if (f.bytesC && chars) lines.push(`    ${f.bytesC} = ${chars[1]},`);
  }
  lines.push(`    ${g.sizeC} = ${g.size}`);
  return lines;
}

function emitBlockC(b: Block, skip: Set<string>): string {
  const out = [`/* block "${b.name}" (${b.kind}${b.format ? `, ${b.format}` : ''})${b.doc ? `: ${b.doc}` : ''} */`];
  if (b.header) out.push('enum {', ...emitGroup(b.header, skip), '};');
  if (b.row) out.push('enum {', ...emitGroup(b.row, skip), '};');
  if (b.labels === 'fields' && b.row && b.labelsC) {
    const labels = b.row.fields.map((f) => f.name);
    out.push(`#define ${b.labelsC} \\`, ...labels.map((l, i) => `    ${cString(i < labels.length - 1 ? `${l}\n` : l)}${i < labels.length - 1 ? ' \\' : ''}`));
  }
  if (b.classes && b.row) {
    const { values, prefixC, ofC } = b.classes;
    const name = (v: string) => `${prefixC}_${v.toUpperCase()}`;
    out.push(
      `/* the class of each field of "${b.name}", in order: ${values.join(', ')} */`,
      `enum { ${values.map((v, i) => `${name(v)} = ${i}`).join(', ')} };`,
      `#define ${ofC} { ${b.row.fields.map((f) => name(f.class!)).join(', ')} }`,
    );
  }
  return `${out.join('\n')}\n`;
}

function emitToolC(t: ToolBlocks, guard: string, prelude = ''): string {
  const skip = new Set(t.constants.map((c) => c.name));
  const parts = [banner([t.source], 'c'), `#ifndef ${guard}\n#define ${guard}\n`, prelude];
  if (t.constants.length) parts.push(`${t.constants.map((c) => `#define ${c.name} ${c.value}${cComment(c.doc)}`).join('\n')}\n`);
  for (const b of t.blocks) if (b.row || b.header) parts.push(emitBlockC(b, skip));
  parts.push(`#endif\n`);
  return parts.filter(Boolean).join('\n');
}

function emitCoreC(spec: ProfileSpec): string {
  const kinds = Object.entries(spec.recordKinds);
  const prelude = [
    '#include <stddef.h>\n#include <stdint.h>\n',
    `#define MPII_FORMAT_VERSION ${spec.version} /* written; readers take ${spec.oldest} to ${spec.version} */`,
    `#define MPII_IMAGE_MAGIC ${cString(spec.magic.image)}`,
    `#define MPII_PROFILE_MAGIC ${cString(spec.magic.profile)}\n`,
    `/* the node file, <out>/node-<host>.live: node_header in a page of MPII_NODE_HEADER_BYTES, then a slot per process */`,
    `#define MPII_NODE_MAGIC ${cString(spec.node.magic)}`,
    `#define MPII_NODE_VERSION ${spec.node.version} /* written; readers take ${spec.node.oldest} to ${spec.node.version} */`,
    `#define MPII_NODE_HEADER_BYTES ${spec.node.headerBytes}`,
    `#define MPII_NODE_SLOT_BYTES ((uint64_t) ${spec.node.slotBytes})`,
    `#define MPII_NODE_CLOSED ((uint64_t) 1 << ${spec.node.closedBit}) /* node_header.live: the file is being removed */\n`,
    `/* image_header.state */\nenum { ${Object.entries(spec.states)
      .map(([k, v]) => `MPII_STATE_${k.toUpperCase()} = ${v}`)
      .join(', ')} };\n`,
    `/* record.kind */\nenum {\n${kinds.map(([k, v]) => `    MPII_REC_${k.toUpperCase()} = ${v.value},${cComment(v.payload)}`).join('\n')}\n};\n`,
    ...spec.structs.map(emitStruct),
  ].join('\n');
  return emitToolC(spec.core, 'MPII_PROFILE_FORMAT_H', `${prelude}\n`);
}

/** The C header of a tool's blocks: preload/tools/<t>/<t>_blocks.h ('' when it declares no indices). */
export const toolHeaderName = (tool: string) => `${tool.replace(/-/g, '_')}_blocks.h`;

// ---- TypeScript

const TS_TYPES = { u32: 'number', i32: 'number', u64: 'number', i64: 'number', f64: 'number', char: 'string' } as const;
const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const typeName = (s: string) => camel(s.replace(/^./, (c) => c.toUpperCase())).replace(/^Record$/, 'RecordHeader');

function tsGroup(g: FieldGroup): unknown {
  return {
    size: g.size,
    index: Object.fromEntries(g.fields.map((f) => [f.name, f.index])),
    words: Object.fromEntries(g.fields.filter((f) => f.words > 1).map((f) => [f.name, f.words])),
  };
}

function tsBlock(b: Block): unknown {
  return {
    kind: b.kind,
    ...(b.format ? { format: b.format } : {}),
    ...(b.header ? { header: tsGroup(b.header) } : {}),
    ...(b.row ? { row: tsGroup(b.row) } : {}),
    labels: b.labels === 'fields' ? b.row!.fields.map((f) => f.name) : b.labels,
    ...(b.classes ? { classes: b.row!.fields.map((f) => f.class!) } : {}),
  };
}

/** JSON as TypeScript literals: a value that fits on a line stays on one. */
function pretty(v: unknown, indent: string): string {
  const flat = JSON.stringify(v);
  if (flat.length + indent.length <= 110 || typeof v !== 'object' || v === null) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(v)) return `[\n${v.map((x) => `${inner}${pretty(x, inner)}`).join(',\n')}\n${indent}]`;
  return `{\n${Object.entries(v)
    .map(([k, x]) => `${inner}${JSON.stringify(k)}: ${pretty(x, inner)}`)
    .join(',\n')}\n${indent}}`;
}

const READ = { u32: 'readUInt32LE', i32: 'readInt32LE', f64: 'readDoubleLE' } as const;
const WRITE = { u32: 'writeUInt32LE', i32: 'writeInt32LE', f64: 'writeDoubleLE' } as const;

/** read<Struct>(buf, at[, limit]) and write<Struct>(buf, at, values): plain Buffer reads at the
 *  declared offsets (u64 as a number: exact below 2^53; char[N] up to its first NUL). A struct
 *  with a tail reads its strings too, cut at `limit`, and says where what follows starts (`end`). */
function tsAccessors(s: Struct): string {
  const T = typeName(s.name);
  const fn = T;
  const reads = s.fields.map((f) => {
    const o = `at + ${f.offset}`;
    if (f.type === 'char') return `    ${f.name}: cstr(b, ${o}, ${f.size}),`;
    if (f.type === 'u64') return `    ${f.name}: Number(b.readBigUInt64LE(${o})),`;
    if (f.type === 'i64') return `    ${f.name}: Number(b.readBigInt64LE(${o})),`;
    return `    ${f.name}: b.${READ[f.type]}(${o}),`;
  });
  const writes = s.fields.map((f) => {
    const o = `at + ${f.offset}`;
    const v = `v.${f.name}`;
    if (f.type === 'char') return `  if (${v} !== undefined) b.write(${v}, ${o}, ${f.size}, 'latin1');`;
    if (f.type === 'u64') return `  if (${v} !== undefined) b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(${v})), ${o});`;
    if (f.type === 'i64') return `  if (${v} !== undefined) b.writeBigInt64LE(BigInt.asIntN(64, BigInt(${v})), ${o});`;
    return `  if (${v} !== undefined) b.${WRITE[f.type]}(${v}, ${o});`;
  });
  const out: string[] = [];
  if (s.tail.length) {
    // locals and one object literal: a spread of the fields made the reader 6x slower per record
    out.push(
      `export function read${fn}(b: Buffer, at: number, limit = b.length): ${T} {`,
      ...reads.map((r) => r.replace(/^ {4}(\w+): (.*),$/, '  const $1 = $2;')),
      `  let p = at + ${s.size};`,
    );
    for (const t of s.tail) {
      out.push(`  const ${t.name} = b.toString('utf8', Math.min(p, limit), Math.min(p + ${t.length}, limit));`, `  p += pad8(${t.length});`);
    }
    out.push(`  return { ${[...s.fields.map((f) => f.name), ...s.tail.map((t) => t.name)].join(', ')}, end: p - at };`, '}');
  } else {
    out.push(`export function read${fn}(b: Buffer, at = 0): ${T} {`, `  return {`, ...reads, `  };`, '}');
  }
  const fields = s.fields
    .map((f) => `${f.name}?: ${f.type === 'char' ? 'string' : f.type === 'u64' || f.type === 'i64' ? 'number | bigint' : 'number'}`)
    .join('; ');
  out.push(`export function write${fn}(b: Buffer, at: number, v: { ${fields} }): void {`, ...writes, '}');
  return out.join('\n');
}

function emitTs(spec: ProfileSpec): string {
  const all = [spec.core, ...spec.tools];
  const structs = Object.fromEntries(
    spec.structs.map((s) => [
      s.name,
      {
        size: s.size,
        fields: s.fields.map((f) => ({ name: f.name, type: f.type, offset: f.offset, size: f.size })),
        tail: s.tail.map((t) => ({ name: t.name, length: t.length })),
      },
    ]),
  );
  const interfaces = spec.structs.map((s) =>
    [
      `/** ${s.name}${s.doc ? `: ${s.doc}` : ''} */`,
      `export interface ${typeName(s.name)} {`,
      ...s.fields.map((f) => `  ${f.name}: ${TS_TYPES[f.type]};${f.doc ? ` // ${f.doc}` : ''}`),
      ...s.tail.map((t) => `  ${t.name}: string;${t.doc ? ` // ${t.doc}` : ''}`),
      ...(s.tail.length ? ["  /** bytes from the struct's start to what follows the tail */", '  end: number;'] : []),
      '}',
    ].join('\n'),
  );
  const constants = Object.fromEntries(all.flatMap((t) => t.constants.map((c) => [c.name, c.value])));
  const blocks = Object.fromEntries(all.map((t) => [t.tool, Object.fromEntries(t.blocks.map((b) => [b.name, tsBlock(b)]))]));
  const json = (v: unknown) => pretty(v, '');
  return [
    banner(['preload/spec/profile-file.yaml', ...spec.tools.map((t) => t.source)], 'ts'),
    `/** The format version written; a reader takes OLDEST_VERSION to FORMAT_VERSION. */`,
    `export const FORMAT_VERSION = ${spec.version};`,
    `export const OLDEST_VERSION = ${spec.oldest};`,
    `export const FORMAT_HISTORY = ${json(spec.history)} as const;`,
    `export const IMAGE_MAGIC = ${JSON.stringify(spec.magic.image)};`,
    `export const PROFILE_MAGIC = ${JSON.stringify(spec.magic.profile)};`,
    `/** The node file, <out>/node-<host>.live: node_header in a page of headerBytes, then a slot of slotBytes per process. */`,
    `export const NODE_FILE = ${json(spec.node)} as const;`,
    `/** image_header.state */`,
    `export const STATES = ${json(spec.states)} as const;`,
    `/** record.kind */`,
    `export const RECORD_KIND = ${json(Object.fromEntries(Object.entries(spec.recordKinds).map(([k, v]) => [k, v.value])))} as const;`,
    '',
    `/** The structs: byte offsets as the C compiler lays them out (checked there by _Static_assert). */`,
    `export const STRUCTS = ${json(structs)} as const;`,
    '',
    ...interfaces.map((i) => `${i}\n`),
    `/** Padded to 8 bytes, as every part of a record is (not \`& ~7\`: 32-bit in JavaScript, and a corrupt length can be anything). */`,
    `export const pad8 = (n: number) => Math.ceil(n / 8) * 8;`,
    `const cstr = (b: Buffer, at: number, n: number) => { const s = b.toString('latin1', at, at + n); const z = s.indexOf('\\0'); return z < 0 ? s : s.slice(0, z); };`,
    '',
    ...spec.structs.map((s) => `${tsAccessors(s)}\n`),
    `/** Constants the tools declare beside their blocks. */`,
    `export const CONSTANTS = ${json(constants)} as const;`,
    '',
    `/** Every tool's blocks (core = tool 0): counters blocks with their field indices (\`index\`),`,
    ` *  fields of several words (\`words\`), the row length (\`size\`) and their labels. */`,
    `export const BLOCKS = ${json(blocks)} as const;`,
    '',
  ].join('\n');
}

/** Every generated file, by path relative to the repository `root`. */
export function profileFormatFiles(root: string): Record<string, string> {
  const spec = loadProfileSpec(root);
  const files: Record<string, string> = {
    'preload/core/mpii_profile_format.h': emitCoreC(spec),
    'src/profile-file/format.gen.ts': emitTs(spec),
  };
  for (const t of spec.tools) {
    if (!t.constants.length && !t.blocks.some((b) => b.row || b.header)) continue;
    files[join(t.dir, toolHeaderName(t.tool))] = emitToolC(t, `MPII_${t.tool.replace(/-/g, '_').toUpperCase()}_BLOCKS_H`);
  }
  return files;
}

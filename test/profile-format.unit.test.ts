// The profile file's contract (preload/spec/profile-file.yaml and preload/tools/*/blocks.yaml):
// the generated C header and TypeScript layout are what it makes now, every block the C code
// writes is declared for its tool, and a bad declaration is refused in one line. No MPI job.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { staleFiles } from '../src/gen/committed.js';
import { loadProfileSpec, SpecError } from '../src/gen/profile-spec.js';
import { profileFormatFiles } from '../src/gen/profile-emit.js';
import { ROOT } from './helpers.js';

test('the generated C headers and TypeScript layout are what the contract makes (npm run gen)', () => {
  const files = Object.keys(profileFormatFiles(ROOT));
  assert.ok(files.includes('preload/core/mpii_profile_format.h'));
  assert.ok(files.includes('src/profile-file/format.gen.ts'));
  assert.ok(files.includes('preload/tools/profile/profile_blocks.h'));
  assert.deepEqual(staleFiles(ROOT), [], 'run npm run gen and commit what it writes');
});

test('a changed declaration makes the committed files stale', () => {
  const root = mkdtempSync(join(tmpdir(), 'mpii-contract-'));
  cpSync(join(ROOT, 'preload'), join(root, 'preload'), { recursive: true });
  cpSync(join(ROOT, 'src', 'profile-file'), join(root, 'src', 'profile-file'), { recursive: true });
  // the other generated files of `npm run gen` (the environment's), current in the copy
  for (const f of ['docs/run.md', 'src/environment.gen.ts']) cpSync(join(ROOT, f), join(root, f));
  const yaml = join(root, 'preload', 'tools', 'monitor', 'blocks.yaml');
  writeFileSync(yaml, readFileSync(yaml, 'utf8').replace('words: 66', 'words: 67'));
  assert.deepEqual(staleFiles(root).sort(), ['preload/tools/monitor/monitor_blocks.h', 'src/profile-file/format.gen.ts']);
  assert.match(profileFormatFiles(root)['preload/tools/monitor/monitor_blocks.h'], /MON_HIST_BINS = 67,\n {4}MON_ROW = 75\n/);
});

/** Every (tool folder, block name) the C code passes to mpii_profile_counters/_text. */
function writtenBlocks(): { tool: string; name: string; file: string }[] {
  const out: { tool: string; name: string; file: string }[] = [];
  const walk = (dir: string) => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.[ch]$/.test(f)) {
        const rel = relative(join(ROOT, 'preload'), p);
        const tool = rel.startsWith('tools/') ? rel.split('/')[1] : 'core';
        for (const m of readFileSync(p, 'utf8').matchAll(/mpii_profile_(?:counters|text)\(\s*([\w>-]+),\s*"([^"]+)"/g))
          out.push({ tool, name: m[2], file: rel });
      }
    }
  };
  walk(join(ROOT, 'preload'));
  return out;
}

test('every block the shim and the tools write is declared for its tool', () => {
  const spec = loadProfileSpec(ROOT);
  const declared = new Map([spec.core, ...spec.tools].map((t) => [t.tool, new Set(t.blocks.map((b) => b.name))]));
  const written = writtenBlocks();
  assert.ok(written.length >= 20, `found ${written.length} writes`);
  for (const w of written) {
    assert.ok(
      declared.get(w.tool)?.has(w.name),
      `${w.file} writes block "${w.name}", which ${w.tool === 'core' ? 'preload/spec/profile-file.yaml' : `preload/tools/${w.tool}/blocks.yaml`} does not declare`,
    );
  }
  // and nothing is declared that no one writes (report-options: written from the environment)
  for (const [tool, names] of declared) {
    for (const name of names)
      assert.ok(written.some((w) => w.tool === tool && w.name === name) || name === 'report-options', `${tool} declares "${name}", which nothing writes`);
  }
});

test('the struct offsets are the C layout of the declared types', () => {
  const spec = loadProfileSpec(ROOT);
  const image = spec.structs.find((s) => s.name === 'image_header')!;
  assert.equal(image.size, 144);
  assert.deepEqual(
    image.fields.map((f) => [f.name, f.offset]),
    [
      ['magic', 0],
      ['version', 8],
      ['state', 12],
      ['rank', 16],
      ['size', 20],
      ['pid', 24],
      ['ntools', 28],
      ['used', 32],
      ['capacity', 40],
      ['t_start', 48],
      ['t_end', 56],
      ['host', 64],
      ['flavor', 128],
    ],
  );
  assert.equal(spec.structs.find((s) => s.name === 'record')!.size, 24);
});

test('a bad declaration: one line naming the file and the problem', () => {
  const root = mkdtempSync(join(tmpdir(), 'mpii-contract-'));
  cpSync(join(ROOT, 'preload'), join(root, 'preload'), { recursive: true });
  const yaml = join(root, 'preload', 'spec', 'profile-file.yaml');
  writeFileSync(yaml, readFileSync(yaml, 'utf8').replace('{ name: pid, type: i32 }', '{ name: pid, type: i24 }'));
  assert.throws(
    () => loadProfileSpec(root),
    (e: Error) =>
      e instanceof SpecError && e.message === 'preload/spec/profile-file.yaml: struct image_header.pid: unknown type i24 (u32, i32, u64, i64, f64, char[N])',
  );
  const tool = join(root, 'preload', 'tools', 'overlap', 'blocks.yaml');
  writeFileSync(yaml, readFileSync(join(ROOT, 'preload', 'spec', 'profile-file.yaml'), 'utf8'));
  writeFileSync(tool, readFileSync(tool, 'utf8').replace('tool: overlap', 'tool: overlapp'));
  assert.throws(() => loadProfileSpec(root), /^SpecError: preload\/tools\/overlap\/blocks\.yaml: says tool overlapp, but its folder is overlap$/);
});

test("memcheck's kinds are errors or hints, declared once: the C table and the reader's classes come from blocks.yaml", () => {
  const files = profileFormatFiles(ROOT);
  const spec = loadProfileSpec(ROOT);
  const kinds = spec.tools.find((t) => t.tool === 'memcheck')!.blocks.find((b) => b.name === 'by kind')!;
  const hints = kinds.row!.fields.filter((f) => f.class === 'hint').map((f) => f.name);
  assert.deepEqual(hints, ['write before read of received data', 'received data never read', 'received data never read, overwritten by a later receive']);
  const header = files['preload/tools/memcheck/memcheck_blocks.h'];
  assert.match(header, /enum \{ MC_CLASS_ERROR = 0, MC_CLASS_HINT = 1 \};/);
  const table = /#define MC_KIND_CLASSES \{ (.*) \}/.exec(header)![1].split(', ');
  assert.deepEqual(
    table,
    kinds.row!.fields.map((f) => `MC_CLASS_${f.class!.toUpperCase()}`),
  );
  assert.match(files['src/profile-file/format.gen.ts'], /"classes": \[/);
});

test('a kind without a class, or with one not declared: one line naming the block and the field', () => {
  const root = mkdtempSync(join(tmpdir(), 'mpii-contract-'));
  cpSync(join(ROOT, 'preload'), join(root, 'preload'), { recursive: true });
  const yaml = join(root, 'preload', 'tools', 'memcheck', 'blocks.yaml');
  const text = readFileSync(yaml, 'utf8');
  writeFileSync(yaml, text.replace('c: UNREAD, class: hint,', 'c: UNREAD,'));
  assert.throws(
    () => loadProfileSpec(root),
    /^SpecError: preload\/tools\/memcheck\/blocks\.yaml: block by kind field 'received data never read': no class \(one of error, hint\)$/,
  );
  writeFileSync(yaml, text.replace('c: UNREAD, class: hint,', 'c: UNREAD, class: warning,'));
  assert.throws(
    () => loadProfileSpec(root),
    /^SpecError: preload\/tools\/memcheck\/blocks\.yaml: block by kind field 'received data never read': class warning is not one of error, hint$/,
  );
});

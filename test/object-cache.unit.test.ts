// The object cache (src/shim/object-cache.ts): a source compiled the same way is taken from it,
// wherever the source and its headers are; a change of text or flag compiles again; without
// MPII_OBJECT_CACHE every compile runs. Real compiles of a small file with the system's cc.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { compileObject, keyFlags, withoutLineMarkers } from '../src/shim/object-cache.js';

/** A source and its header in a directory of their own. */
function sources(dir: string, value: number): string {
  mkdirSync(join(dir, 'inc'), { recursive: true });
  writeFileSync(join(dir, 'inc', 'v.h'), `#define VALUE ${value}\n`);
  writeFileSync(join(dir, 'a.c'), '#include "v.h"\nint value(void) { return VALUE; }\n');
  return join(dir, 'a.c');
}

const args = (dir: string, src: string, obj: string, extra: string[] = []) => ['-c', '-O2', ...extra, '-I', join(dir, 'inc'), src, '-o', obj];

test('keyFlags: the flags without the source, the output and the include directories', () => {
  assert.deepEqual(keyFlags(['-c', '-fPIC', '-O2', '-I', '/x', '-I/y', '-DA=1', '/s/a.c', '-o', '/o/a.o'], '/s/a.c'), ['-c', '-fPIC', '-O2', '-DA=1']);
  assert.equal(withoutLineMarkers('# 1 "/a/b.h"\nint x;\n# 12 "/c.c" 2\n'), '\nint x;\n\n');
});

test('a source compiled the same way elsewhere is taken from the cache; another text or flag compiles', async () => {
  const root = mkdtempSync(join(tmpdir(), 'mpii-objects-'));
  const env = { ...process.env, MPII_OBJECT_CACHE: join(root, 'objects') };
  const [a, b, c] = ['a', 'b', 'c'].map((d) => join(root, d));
  const srcA = sources(a, 1),
    srcB = sources(b, 1),
    srcC = sources(c, 2);
  assert.equal(await compileObject(execa, 'cc', args(a, srcA, join(a, 'a.o')), srcA, join(a, 'a.o'), env), 'compiled');
  assert.equal(await compileObject(execa, 'cc', args(b, srcB, join(b, 'a.o')), srcB, join(b, 'a.o'), env), 'cached');
  assert.deepEqual(readFileSync(join(b, 'a.o')), readFileSync(join(a, 'a.o')));
  assert.equal(await compileObject(execa, 'cc', args(c, srcC, join(c, 'a.o')), srcC, join(c, 'a.o'), env), 'compiled', 'another header text');
  assert.equal(await compileObject(execa, 'cc', args(b, srcB, join(b, 'o1.o'), ['-O1']), srcB, join(b, 'o1.o'), env), 'compiled', 'another flag');
  assert.equal(readdirSync(join(root, 'objects')).length, 3);
  // unset: compiled every time, nothing stored
  const off = { ...process.env, MPII_OBJECT_CACHE: '' };
  assert.equal(await compileObject(execa, 'cc', args(b, srcB, join(b, 'a.o')), srcB, join(b, 'a.o'), off), 'compiled');
  assert.equal(readdirSync(join(root, 'objects')).length, 3);
});

// Naming code addresses without a debugger: the sized symbol lookup (a function names only the
// addresses inside it) and the search for separate debug files (build-id, .gnu_debuglink with
// its CRC, MPII_DEBUG_DIR), on small binaries built here with cc and objcopy.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execaSync } from 'execa';
import { debugDirs, debugLinks, findDebugFile } from '../src/report/debug-files.js';
import { SymbolTable } from '../src/report/elf-symbols.js';
import { describe as where, parseObjects, Symbolizer } from '../src/report/symbols.js';

const dir = mkdtempSync(join(tmpdir(), 'mpii-symbols-'));
const src = join(dir, 'three.c');
writeFileSync(
  src,
  [
    'int __attribute__((noipa)) first(int x) { return x * 3 + 1; }',
    'static int __attribute__((noipa)) middle(int x) { volatile int y = x; for (int i = 0; i < 9; i++) y += i; return y; }',
    'int __attribute__((noipa)) last(int x) { return middle(x) + 2; }',
    'int main(int c, char **v) { (void) v; return first(c) + last(c) == 0; }',
    '',
  ].join('\n'),
);
const full = join(dir, 'three');
execaSync('cc', ['-O2', '-g', '-fno-toplevel-reorder', '-rdynamic', '-o', full, src]);
const nmOf = (f: string) =>
  new Map(
    execaSync('nm', ['-S', f])
      .stdout.split('\n')
      .map((l) => l.split(' '))
      .filter((p) => p.length === 4)
      .map(([a, s, , n]) => [n.replace(/\..*$/, ''), { lo: Number.parseInt(a, 16), size: Number.parseInt(s, 16) }]),
  );
const syms = nmOf(full);
const stripped = join(dir, 'three.stripped');
execaSync('objcopy', ['--only-keep-debug', full, `${full}.debug`]);
execaSync('objcopy', ['--strip-all', `--add-gnu-debuglink=${full}.debug`, full, stripped]);
const bare = join(dir, 'three.bare'); // stripped, no debug link: the debug file next to it is not its
execaSync('objcopy', ['--strip-all', '--remove-section=.note.gnu.build-id', full, bare]);

describe('sized symbols', () => {
  it('a function names the addresses inside it, and no others', () => {
    const t = SymbolTable.read(full);
    const m = syms.get('middle')!;
    assert.equal(t.at(m.lo), 'middle');
    assert.equal(t.at(m.lo + m.size - 1), 'middle');
    assert.equal(t.at(syms.get('first')!.lo + 1), 'first');
  });

  it("a stripped object: .dynsym, and a static function's address belongs to none", () => {
    const t = SymbolTable.read(stripped);
    const m = syms.get('middle')!;
    const f = syms.get('first')!;
    assert.ok(f.lo + f.size <= m.lo, 'first() lies below middle()');
    assert.equal(t.at(m.lo + 2), undefined, 'not first()');
    assert.equal(t.at(syms.get('last')!.lo), 'last');
    assert.equal(t.at(f.lo + f.size), undefined, 'one past first()');
  });
});

describe("memcheck's resolver names addresses by the same rule", () => {
  it("a stripped object without debug file: no function for a static one, the exported one's name inside it", () => {
    const base = 0x7f0000000000;
    const sym = new Symbolizer(parseObjects(`${base.toString(16)} ${(base + 0x100000).toString(16)} ${base.toString(16)} ${bare}\n`));
    const m = syms.get('middle')!;
    const l = syms.get('last')!;
    const got = sym.resolve([
      { addr: BigInt(base + m.lo + 2), returnAddress: false },
      { addr: BigInt(base + l.lo + 1), returnAddress: false },
    ]);
    const [inMiddle, inLast] = [...got.values()];
    assert.equal(where(inMiddle), `three.bare+0x${(m.lo + 2).toString(16)}`);
    assert.equal(where(inLast), `last (three.bare+0x${(l.lo + 1).toString(16)})`);
  });
});

describe('separate debug files', () => {
  const links = debugLinks(stripped);
  it('readelf gives the build-id and the debuglink with its CRC', () => {
    assert.match(links.buildId ?? '', /^[0-9a-f]{40}$/);
    assert.equal(links.link?.name, 'three.debug');
    assert.equal(links.link?.crc, Number.parseInt(execaSync('python3', ['-c', `import zlib;print(zlib.crc32(open('${full}.debug','rb').read()))`]).stdout, 10));
    assert.deepEqual(debugLinks(src), {}, 'not an ELF file');
  });

  it('by build-id under a debug directory, by debuglink next to the object or under the directory, the CRC checked', () => {
    const id = links.buildId!;
    const root = join(dir, 'root');
    mkdirSync(join(root, '.build-id', id.slice(0, 2)), { recursive: true });
    const byId = join(root, '.build-id', id.slice(0, 2), `${id.slice(2)}.debug`);
    copyFileSync(`${full}.debug`, byId);
    assert.equal(findDebugFile(stripped, [root]), byId);
    const other = join(dir, 'other');
    mkdirSync(join(other, dir), { recursive: true });
    assert.equal(findDebugFile(stripped, [other]), `${full}.debug`, 'next to the object');
    const away = join(dir, 'away');
    mkdirSync(away);
    copyFileSync(stripped, join(away, 'three'));
    assert.equal(findDebugFile(join(away, 'three'), [other]), undefined);
    mkdirSync(join(other, away), { recursive: true });
    copyFileSync(`${full}.debug`, join(other, away, 'three.debug'));
    assert.equal(findDebugFile(join(away, 'three'), [other]), join(other, away, 'three.debug'), 'under the debug directory');
    writeFileSync(join(other, away, 'three.debug'), 'stale');
    assert.equal(findDebugFile(join(away, 'three'), [other]), undefined, 'a debug file whose CRC differs is not it');
  });

  it('MPII_DEBUG_DIR: colon-separated, searched before /usr/lib/debug', () => {
    assert.deepEqual(debugDirs({}), ['/usr/lib/debug']);
    assert.deepEqual(debugDirs({ MPII_DEBUG_DIR: '/a::/b' }), ['/a', '/b', '/usr/lib/debug']);
  });
});

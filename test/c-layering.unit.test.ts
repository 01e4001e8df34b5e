// The C core's layering (docs/architecture-c-core.md): no include cycle between the shim's C
// modules (x.c + x.h), the core includes no tool, includes only at the top of a file. The checker
// (test/c-layering.ts) runs on the real sources plus the files the shim build generates, and on
// made-up trees that prove each rule fires.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { execaSync } from 'execa';
import { generate } from '../src/gen/generate.js';
import { builtinManifests } from '../src/tools/manifest.js';
import { generateToolSources } from '../src/gen/tools-c.js';
import { checkLayering, symbolsOf, type Tree } from './c-layering.js';
import { ROOT } from './helpers.js';

function sources(dir: string, tree: Tree): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sources(p, tree);
    else if (/\.[ch]$/.test(e.name)) tree.set(relative(ROOT, p), readFileSync(p, 'utf8'));
  }
}

/** preload/**, and what the shim build generates into gen/ (wrappers, registration, options). */
function shimTree(): Tree {
  const tree: Tree = new Map();
  sources(join(ROOT, 'preload'), tree);
  const dir = mkdtempSync(join(tmpdir(), 'mpii-layering-'));
  try {
    writeFileSync(join(dir, 'h.c'), '#include <mpi.h>\n');
    const pre = execaSync('mpicc.openmpi', ['-E', '-P', join(dir, 'h.c')]).stdout;
    const g = generate({ flavor: 'openmpi', preprocessed: pre, specPath: join(ROOT, 'preload', 'spec', 'mpi.yaml'), mpiVersion: 'test' });
    const files = { ...g.files, ...generateToolSources(builtinManifests(join(ROOT, 'preload', 'tools'))) };
    for (const [name, text] of Object.entries(files)) if (/\.[ch]$/.test(name)) tree.set(`gen/${name}`, text);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return tree;
}

const tree = (files: Record<string, string>): Tree => new Map(Object.entries(files));

describe('C layering: the shim', () => {
  const shim = shimTree();
  const result = checkLayering(shim);

  it('has no include cycle between modules, in the core, the generated files or a tool', () => {
    assert.deepEqual(result.cycles, [], `include cycles (x.c and x.h are one module):\n${result.cycles.map((c) => c.join('\n    ')).join('\n')}`);
  });

  it("the core includes no tool, includes are at the top, no .c declares another module's function", () => {
    assert.deepEqual(result.problems, []);
  });

  it('sees the whole shim: the core, every tool, the generated wrappers', () => {
    for (const m of ['preload/core/dispatch', 'preload/tools/profile/profile', 'gen/mpii_wrappers', 'gen/mpii_tools']) {
      assert.ok(result.edges.has(m), m);
    }
    // the wrappers reach the core's hooks through its headers
    assert.ok(result.edges.get('gen/mpii_wrappers')!.size > 0);
  });
});

describe('C layering: the checker fires', () => {
  it('names a cycle through includes', () => {
    const r = checkLayering(
      tree({
        'preload/core/a.h': '#include "b.h"\nvoid a(void);\n',
        'preload/core/a.c': '#include "a.h"\nvoid a(void) {}\n',
        'preload/core/b.h': 'void b(void);\n',
        'preload/core/b.c': '#include "b.h"\n#include "c.h"\nvoid b(void) {}\n',
        'preload/core/c.h': 'void c(void);\n',
        'preload/core/c.c': '#include "c.h"\n#include "a.h"\nvoid c(void) { a(); }\n',
        'preload/core/d.c': '#include "a.h"\n',
      }),
    );
    assert.equal(r.cycles.length, 1);
    assert.equal(r.cycles[0][0], 'preload/core/a <-> preload/core/b <-> preload/core/c');
    assert.match(r.cycles[0].join('\n'), /preload\/core\/c -> preload\/core\/a \(preload\/core\/c\.c:2 includes "a\.h"\)/);
  });

  it("names a cycle hidden by a header that declares another module's functions", () => {
    // all.h declares what log.c and stack.c define: each .c including it depends on both
    const r = checkLayering(
      tree({
        'preload/core/all.h': 'void log_line(const char *s);\nint stack_build(void);\nextern int rank;\n',
        'preload/core/log.c': '#include "all.h"\nint rank = -1;\nvoid log_line(const char *s) { (void) s; stack_build(); }\n',
        'preload/core/stack.c': '#include "all.h"\nint stack_build(void) { log_line("x"); return 0; }\n',
      }),
    );
    assert.equal(r.cycles.length, 1);
    assert.match(r.cycles[0][0], /preload\/core\/all <-> preload\/core\/log <-> preload\/core\/stack/);
    assert.match(r.cycles[0].join('\n'), /declares (log_line|stack_build|rank)/);
  });

  it('the public API header is an interface: no edge to what implements it', () => {
    const r = checkLayering(
      tree({
        'preload/include/mpii_tool.h': 'void mpii_debug(const char *fmt, ...);\n',
        'preload/core/log.c': '#include "log.h"\nvoid mpii_debug(const char *fmt, ...) {}\n',
        'preload/core/log.h': 'void mpii_debug(const char *fmt, ...);\n',
        'preload/tools/t/t.c': '#include "mpii_tool.h"\nvoid t(void) { mpii_debug("x"); }\n',
      }),
    );
    assert.deepEqual(r.cycles, []);
    assert.deepEqual([...r.edges.get('preload/include/mpii_tool')!.keys()], []);
  });

  it("a core file that includes a tool's file", () => {
    const r = checkLayering(
      tree({
        'preload/core/x.c': '#include "../tools/t/t.h"\nint x;\n',
        'preload/tools/t/t.h': 'int t(void);\n',
      }),
    );
    assert.deepEqual(r.problems, ["preload/core/x.c:1: the core includes a tool's file (preload/tools/t/t.h)"]);
  });

  it('an include after the first code line (a fragment included mid-file)', () => {
    const r = checkLayering(
      tree({
        'preload/tools/t/t.c':
          '/* a\n * comment */\n#define _GNU_SOURCE\n#include "t.h"\n#if X\n# define Y \\\n   1\n#endif\nstatic int v;\n#include "frag.h"\n',
        'preload/tools/t/t.h': '',
        'preload/tools/t/frag.h': '',
      }),
    );
    assert.deepEqual(r.problems, ['preload/tools/t/t.c:10: #include "frag.h" after the first code (line 9): includes go at the top of a file']);
  });

  it("a .c that declares another module's function itself", () => {
    const r = checkLayering(
      tree({
        'preload/core/a.c': 'void b(void);\nvoid a(void) { b(); }\n',
        'preload/core/b.c': 'void b(void) {}\n',
      }),
    );
    assert.deepEqual(r.problems, ['preload/core/a.c: declares b (defined in preload/core/b.c) itself: include preload/core/b.h instead']);
  });

  it('reads declarations and definitions (pointers to functions, arrays, initializers, aliases)', () => {
    const s = symbolsOf(
      [
        'int a, b = 2;',
        'extern int c;',
        'static int hidden;',
        'uint64_t (*fp)(uint64_t x);',
        'const T tbl[] = { { 1, 2 }, { 0, 0 } };',
        'void f(int x) __attribute__((format(printf, 1, 2)));',
        'void g(const char *s, ...) __attribute__((alias("f")));',
        'int h(void)\n{\n  return 0;\n}',
        'typedef struct { int x; } t_t;',
        'struct s { int y; };',
        'static inline int i(void) { return 1; }',
        'extern T arr[N] __attribute__((visibility("hidden")));',
        '__thread int tls;',
        'void on_release(void (*cb)(int b));',
        'void set_hook(int (*cb)(int x))\n{\n  hook = cb;\n}',
      ].join('\n'),
    );
    assert.deepEqual(s.defined.sort(), ['a', 'b', 'fp', 'g', 'h', 'set_hook', 'tbl', 'tls']);
    assert.deepEqual(s.declared.sort(), ['arr', 'c', 'f', 'on_release']);
  });
});

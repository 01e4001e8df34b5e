// Which stacks are specialised (compiled into one wrapper per function) and what the generator
// writes for them; the manifests' `specialise` key. The runs themselves: test/specialised.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinManifests, loadManifest } from '../src/tools/manifest.js';
import { specHeader, specSource, stackName, unspecialisable } from '../src/gen/specialised-c.js';

const manifests = builtinManifests();
const tool = (name: string) => ({ name, manifest: manifests.find((m) => m.name === name) });

describe('specialised stacks', () => {
  it('the tools whose hooks do not depend on their options have a specialised form, the others none', () => {
    assert.deepEqual(
      manifests
        .filter((m) => m.specialise)
        .map((m) => m.name)
        .sort(),
      ['monitor', 'noop', 'overlap', 'profile', 'trace-count'],
    );
  });

  it('a stack is specialised only when every tool has that form, once each', () => {
    assert.equal(unspecialisable([tool('trace-count'), tool('monitor'), tool('profile')]), undefined);
    assert.equal(unspecialisable([]), 'the stack is empty');
    assert.equal(unspecialisable([tool('profile'), tool('profile')]), "'profile' is in the stack twice");
    assert.match(unspecialisable([tool('profile'), tool('memcheck')])!, /'memcheck' has no specialised form/);
    assert.equal(unspecialisable([tool('profile'), { name: '/x/t.so' }]), "'/x/t.so' is not a built-in tool");
  });

  it('the translation unit holds the tools in stack order, each knowing its place, then the wrappers', () => {
    const stack = ['monitor', 'profile'].map((n) => manifests.find((m) => m.name === n)!);
    assert.equal(stackName(stack), 'monitor+profile');
    const c = specSource(stack);
    const order = ['#define MPII_SPEC_SELF 1', 'monitor/monitor.c"', '#define MPII_SPEC_SELF 2', 'profile/profile.c"', '#include "mpii_wrappers.c"'].map((s) =>
      c.indexOf(s),
    );
    assert.ok(
      order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1])),
      `in order: ${order}`,
    );
    assert.match(c, /if \(mpii_tool_count\(\) != 2\) return 0;/);
    const h = specHeader(stack);
    // below the entry point: monitor, then profile, then the library; below profile: the library only
    assert.match(
      h,
      /mpii_spec_static_0\(int id, int \*next_id\)\)\(void\)\n\{\n {4}if \(mpii_monitor_hooks\[id\] && mpii_monitor_wraps\(id\)\) \{\n {8}\*next_id = 1;[\s\S]*?\*next_id = 2;[\s\S]*?\*next_id = 0;/,
    );
    assert.match(h, /mpii_spec_static_2\(int id, int \*next_id\)\)\(void\)\n\{\n {4}\*next_id = 0;\n {4}return mpii_bottom_fn\[id\];/);
  });

  it("a manifest's `specialise` must name a C file of its folder", () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'mpii-spec-manifest-')), 'my-tool');
    mkdirSync(dir);
    writeFileSync(join(dir, 'tool.yaml'), 'description: x\nspecialise: missing.c\n');
    assert.throws(() => loadManifest(dir), /`specialise` of tool 'my-tool' must name a .c file in its folder \(got 'missing.c'\)/);
    writeFileSync(join(dir, 'here.c'), '');
    writeFileSync(join(dir, 'tool.yaml'), 'description: x\nspecialise: here.c\n');
    assert.equal(loadManifest(dir).specialise, 'here.c');
  });
});

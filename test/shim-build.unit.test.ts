// The shim build's pure decisions: which sources compile first, where a quick shim lives, which
// compiler flags each kind of shim gets, and the system cache's place (docs/architecture.md,
// "The first run").
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileArgs, compileCommand, longestFirst, probe, quickLevel, quickShimDir, systemCacheRoot } from '../src/shim/shim.js';
import { builtinManifests } from '../src/tools/manifest.js';
import { PRELOAD_DIR } from '../src/paths.js';

describe('the shim build', () => {
  it("compiles with the C compiler and the wrapper's compile flags, not through the wrapper (MPICH's forks a sed per argument)", async () => {
    for (const flavor of ['openmpi', 'mpich'] as const) {
      const pr = await probe(flavor, mkdtempSync(join(tmpdir(), 'mpii-probe-')), process.env);
      const [cc, cflags] = compileCommand(pr);
      assert.equal(cc, pr.cc);
      assert.match(cc, /gcc|cc/);
      // the header's directories, and nothing of the linking
      for (const dir of pr.incdirs) assert.ok(cflags.includes(`-I${dir}`), `${flavor}: -I${dir} in ${cflags.join(' ')}`);
      assert.deepEqual(
        cflags.filter((a) => /^(-L|-l|-Wl,)/.test(a)),
        [],
        flavor,
      );
    }
  });

  it('compiles the longest first: the tools that expand over every MPI function, then by size', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-order-'));
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const small = file('small.c', 'int a;\n');
    const big = file('big.c', `/* ${'x'.repeat(50_000)} */\n`);
    const oneTool = file('one.c', '#define W(...)\nMPII_FOREACH_FUNC(W)\n');
    const twoTool = file('two.c', 'MPII_FOREACH_FUNC(A)\n  MPII_FOREACH_FUNC(B)\n');
    assert.deepEqual(longestFirst([small, oneTool, big, twoTool]), [twoTool, oneTool, big, small]);
    // the real sources: memcheck's and profile's wrappers start before any core file
    const order = longestFirst([
      join(PRELOAD_DIR, 'core', 'log.c'),
      join(PRELOAD_DIR, 'tools', 'memcheck', 'memcheck.c'),
      join(PRELOAD_DIR, 'tools', 'profile', 'profile.c'),
    ]);
    assert.equal(order.at(-1), join(PRELOAD_DIR, 'core', 'log.c'));
  });

  it('a quick shim: its own directory per key and set of tools (sorted; none for the empty stack), compiled -Og', () => {
    const all = builtinManifests();
    const pick = (...names: string[]) => names.map((n) => all.find((m) => m.name === n)!);
    assert.equal(quickShimDir('/c', 'openmpi-0123', pick('profile', 'monitor')), '/c/quick-openmpi-0123-monitor+profile');
    assert.equal(quickShimDir('/c', 'openmpi-0123', pick('monitor', 'profile')), '/c/quick-openmpi-0123-monitor+profile');
    assert.equal(quickShimDir('/c', 'mpich-4567', []), '/c/quick-mpich-4567-none');
    const quick = compileArgs('/p/tools/memcheck/memcheck.c', '/w/m.o', '/w/gen', [], '-Og');
    assert.ok(quick.includes('-Og') && !quick.includes('-O2') && quick.includes('-g1'), quick.join(' '));
    // the two sources measured fastest at -O0; monitor.c is not (its always-inline helpers)
    assert.deepEqual(['/p/tools/memcheck/memcheck.c', '/w/gen/mpii_wrappers.c', '/p/tools/monitor/monitor.c', '/p/core/init.c'].map(quickLevel), [
      '-O0',
      '-O0',
      '-Og',
      '-Og',
    ]);
    const full = compileArgs('/p/tools/memcheck/memcheck.c', '/w/m.o', '/w/gen');
    assert.ok(full.includes('-O2') && full.includes('-g'), full.join(' '));
  });

  it('the system cache: /var/cache/mpii unless MPII_SYSTEM_CACHE names another', () => {
    assert.equal(systemCacheRoot({}), '/var/cache/mpii');
    assert.equal(systemCacheRoot({ MPII_SYSTEM_CACHE: '' }), '/var/cache/mpii');
    assert.equal(systemCacheRoot({ MPII_SYSTEM_CACHE: '/shared/mpii' }), '/shared/mpii');
  });
});

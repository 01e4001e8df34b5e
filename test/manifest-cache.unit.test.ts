// The built-in tools' manifests are parsed once per change (kept in mpii's cache through memo.ts):
// a later process gets the same list from the cache, and sees an edited or added tool.yaml at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { ROOT } from './helpers.js';

const MANIFEST_JS = join(ROOT, 'dist', 'src', 'tools', 'manifest.js');

/** The tools' names and descriptions as a fresh process loads them from `toolsDir`. */
async function load(toolsDir: string, cache: string): Promise<Record<string, string>> {
  const script = `import(${JSON.stringify(MANIFEST_JS)}).then((m) => console.log(JSON.stringify(Object.fromEntries(m.builtinManifests(${JSON.stringify(toolsDir)}).map((t) => [t.name, t.description])))))`;
  const r = await execa(process.execPath, ['-e', script], { env: { ...process.env, XDG_CACHE_HOME: cache }, reject: false });
  assert.equal(r.exitCode, 0, r.stderr);
  return JSON.parse(r.stdout) as Record<string, string>;
}

test('a cached manifest list is reused, and an edited or added tool.yaml is seen by the next process', async () => {
  const root = mkdtempSync(join(tmpdir(), 'mpii-manifests-'));
  const tools = join(root, 'tools');
  cpSync(join(ROOT, 'preload', 'tools'), tools, { recursive: true });
  const cache = join(root, 'cache');
  // memo.ts keeps no answer computed from files changed in its last 100 ms (their times may lag
  // the clock): the copy is that new, so load until the list is kept (the event, not a sleep)
  const stored = () => existsSync(join(cache, 'mpii', 'memo')) && readdirSync(join(cache, 'mpii', 'memo')).some((f) => f.startsWith('manifests-'));
  let first = await load(tools, cache);
  for (let tries = 1; !stored() && tries < 100; tries++) first = await load(tools, cache);
  assert.ok(first.profile && first.monitor, JSON.stringify(first));
  assert.ok(stored(), 'the list is kept in the cache');
  assert.deepEqual(await load(tools, cache), first);

  const yaml = join(tools, 'noop', 'tool.yaml');
  writeFileSync(yaml, readFileSync(yaml, 'utf8').replace(/^description: .*$/m, 'description: edited since'));
  assert.equal((await load(tools, cache)).noop, 'edited since');

  mkdirSync(join(tools, 'extra'));
  assert.ok(!existsSync(join(tools, 'extra', 'tool.yaml')));
  writeFileSync(join(tools, 'extra', 'tool.yaml'), 'description: added later\n');
  assert.equal((await load(tools, cache)).extra, 'added later');
});

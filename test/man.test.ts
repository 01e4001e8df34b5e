// The manual page as mpii install puts it where man finds it (the page itself: man.unit.test.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { mpii, ROOT, TEST_ENV } from './helpers.js';

const PAGE = join(ROOT, 'docs', 'mpii.1');
const has = async (cmd: string) => (await execa('sh', ['-c', `command -v ${cmd}`], { reject: false })).exitCode === 0;

describe('mpii man', () => {
  it('mpii install puts it in <prefix>/share/man/man1, where man finds it; mpii uninstall takes it away', { timeout: 300_000 }, async () => {
    const prefix = join(mkdtempSync(join(tmpdir(), 'mpii-man-install-')), 'prefix');
    const installed = join(prefix, 'share', 'man', 'man1', 'mpii.1');
    // separate wrappers: nothing outside the prefix is touched
    const r = await mpii(['install', '--prefix', prefix, '--wrappers', 'separate', '--mpi', 'mpich', '--default-stack', 'count']);
    assert.equal(r.code, 0, r.stderr);
    try {
      assert.equal(readFileSync(installed, 'utf8'), readFileSync(PAGE, 'utf8'));
      if (await has('man')) {
        // man-db looks in <dir>/../share/man for every <dir> of PATH
        const w = await execa('man', ['-w', 'mpii'], { env: { ...TEST_ENV, PATH: `${join(prefix, 'bin')}:${TEST_ENV.PATH}`, MANPATH: '' }, reject: false });
        assert.equal(w.stdout.trim(), installed, w.stderr);
      }
    } finally {
      const u = await mpii(['uninstall', '--prefix', prefix]);
      assert.equal(u.code, 0, u.stderr);
    }
    assert.equal(existsSync(installed), false);
    assert.equal(existsSync(prefix), false, 'every directory the install made is gone');
  });
});

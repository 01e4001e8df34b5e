// The lock that lets one process build a stack's compiled-in shim at a time (src/shim/build-lock.ts),
// and the run's choice of what to do while it is not built (src/shim/background.ts): tested with
// real processes (a live holder, a dead one) and files, no compiler, no MPI.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLock, handOverLock, lockHolder, lockPath, releaseLock, removeDeadWork, waitForLock } from '../src/shim/build-lock.js';
import { backgroundNotice, buildMode } from '../src/shim/background.js';
import { MpiiError } from '../src/errors.js';

const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'mpii-build-lock-'));
  roots.push(d);
  return d;
}
/** The pid of a process that has ended (and been reaped): a stale lock's holder. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('the build lock', () => {
  it('is taken by one process at a time and let go by its holder only', () => {
    const lock = lockPath(tmp(), 'monitor+profile');
    assert.equal(acquireLock(lock), true);
    assert.equal(lockHolder(lock), process.pid);
    assert.equal(acquireLock(lock), false, 'held (by this very process): not taken twice');
    releaseLock(lock, process.pid + 1);
    assert.equal(existsSync(lock), true, 'another pid does not release it');
    releaseLock(lock);
    assert.equal(existsSync(lock), false);
    assert.equal(lockHolder(lock), undefined);
  });

  it('held by a live process (the background build it was handed to) is not taken', async () => {
    const lock = lockPath(tmp(), 'noop');
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      assert.equal(acquireLock(lock), true);
      handOverLock(lock, child.pid!);
      assert.equal(lockHolder(lock), child.pid);
      releaseLock(lock);
      assert.equal(lockHolder(lock), child.pid, 'the run that handed it over no longer holds it');
      assert.equal(acquireLock(lock), false);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.on('exit', r));
    }
    // killed: the lock is stale, and the next build takes it over
    assert.equal(lockHolder(lock), undefined);
    assert.equal(acquireLock(lock), true);
    assert.equal(lockHolder(lock), process.pid);
  });

  it('held by a zombie (a killed build nobody reaped) is stale', async () => {
    const lock = lockPath(tmp(), 'noop');
    // the child is killed and not waited for: a zombie until this process reaps it
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    writeFileSync(lock, `${child.pid}\n`);
    assert.equal(lockHolder(lock), child.pid);
    process.kill(child.pid!, 'SIGKILL');
    for (
      let i = 0;
      i < 200 &&
      !readFileSync(`/proc/${child.pid}/stat`, 'utf8')
        .replace(/^.*\) /s, '')
        .startsWith('Z');
      i++
    ) {
      spawnSync('sleep', ['0.05']); // synchronous: the event loop does not reap it meanwhile
    }
    assert.equal(lockHolder(lock), undefined);
    await new Promise((r) => child.on('exit', r));
  });

  it('left by a process that died, or unreadable, is stale', () => {
    const lock = lockPath(tmp(), 'trace-count');
    writeFileSync(lock, `${deadPid()}\n`);
    assert.equal(lockHolder(lock), undefined);
    assert.equal(acquireLock(lock), true);
    writeFileSync(lock, 'garbage');
    assert.equal(acquireLock(lock), true);
    assert.equal(readFileSync(lock, 'utf8'), `${process.pid}\n`);
    assert.deepEqual(readdirSync(join(lock, '..')), ['.spec-trace-count.lock'], 'no private file left');
  });

  it('is waited for until the holder is gone or the build is there', async () => {
    const lock = lockPath(tmp(), 'noop');
    writeFileSync(lock, `${deadPid()}\n`);
    await waitForLock(lock, () => false, 1); // a dead holder: no wait
    let polls = 0;
    writeFileSync(lock, `${process.pid}\n`);
    await waitForLock(lock, () => ++polls === 3, 1);
    assert.equal(polls, 3);
  });

  it("a killed build leaves a work directory that the next one removes; a live build's stays", () => {
    const dir = tmp();
    const dead = join(dir, `.spec-monitor+profile-${deadPid()}-AbC123`);
    const live = join(dir, `.spec-monitor+profile-${process.pid}-XyZ789`);
    const stray = join(dir, `.spec-noop.lock.${deadPid()}.1.tmp`);
    mkdirSync(join(dead, 'x'), { recursive: true });
    mkdirSync(live);
    writeFileSync(stray, '1\n');
    mkdirSync(join(dir, 'spec-noop'));
    removeDeadWork(dir);
    assert.deepEqual(readdirSync(dir).sort(), [`.spec-monitor+profile-${process.pid}-XyZ789`, 'spec-noop']);
  });
});

describe("a run's stack while its compiled-in shim is not built", () => {
  it('MPII_BUILD chooses between the background (default) and waiting; anything else is one line', () => {
    assert.equal(buildMode({}), 'background');
    assert.equal(buildMode({ MPII_BUILD: '' }), 'background');
    assert.equal(buildMode({ MPII_BUILD: 'background' }), 'background');
    assert.equal(buildMode({ MPII_BUILD: 'wait' }), 'wait');
    assert.throws(
      () => buildMode({ MPII_BUILD: 'now' }),
      (e: unknown) => e instanceof MpiiError && /MPII_BUILD=now is not a build mode/.test(e.message),
    );
  });

  it('the notice says the stack runs chained, why, and what the next run gets', () => {
    assert.equal(
      backgroundNotice('monitor+profile', { state: 'started', pid: 42 }, undefined),
      'mpii: running chained while the compiled-in stack monitor+profile builds in the background (its first run with this shim, pid 42); ' +
        'the next run uses it (MPII_BUILD=wait waits for it)',
    );
    assert.match(backgroundNotice('noop', { state: 'started', pid: 42 }, 93), /\(its first run with this shim; the last build took 93 s, pid 42\)/);
    assert.match(backgroundNotice('noop', { state: 'building', pid: 7 }, 93), /builds in the background \(started by another run, pid 7\)/);
    assert.equal(
      backgroundNotice('trace-count+profile', { state: 'failed', why: 'cc1: out of memory', log: '/x.log' }, 9),
      'mpii: running chained: the compiled-in stack trace-count+profile failed to build in the background (cc1: out of memory); ' +
        '`mpii build --tools trace-count,profile` tries again and shows why',
    );
  });
});

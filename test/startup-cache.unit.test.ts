// The answers a warm `mpii run` takes from its cache instead of working them out again (ldd's
// output, the shim's cache key, parsed configuration files, the program's hash): each is used
// only while everything it was computed from is unchanged. These tests change one input at a
// time and check whether the work is done again; no timing is measured.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cacheRoot, fileIdentity, memoized } from '../src/memo.js';
import { lddPaths, linkedLibraries } from '../src/mpi/detect.js';
import { cacheKey, type Probe } from '../src/shim/shim.js';
import { LOADER_FILES, loadConfigFileCached } from '../src/config/cache.js';
import { programIdentity } from '../src/report/run-info.js';

const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mpii-startup-cache-'));
  roots.push(d);
  return d;
}

/** Files written by a test are "racy" (changed just now) and would not be stored: the clock the
 * memo compares with is moved a second ahead instead of waiting. */
const later = () => BigInt(Date.now() + 1000) * 1_000_000n;

/** Rewrites a file with other bytes of the same size and gives it back its old times: only the
 * change time (and the content) differ. */
function rewriteKeepingTimes(file: string, text: string): void {
  const st = fs.statSync(file);
  assert.equal(Buffer.byteLength(text), st.size);
  fs.writeFileSync(file, text);
  fs.utimesSync(file, st.atime, st.mtime);
}

describe('memoized: when a stored answer is used', () => {
  it('computes once while nothing changes, again when a file changes, is replaced, is removed or appears', () => {
    const dir = tmp();
    const cache = path.join(dir, 'cache');
    const dep = path.join(dir, 'input');
    const absent = path.join(dir, 'absent');
    fs.writeFileSync(dep, 'aaaa');
    let calls = 0;
    const get = () => memoized(cache, 'test', 'k', () => ({ value: ++calls, deps: [dep, absent] }), later);
    assert.equal(get(), 1);
    assert.equal(get(), 1, 'unchanged: the stored answer');
    rewriteKeepingTimes(dep, 'bbbb');
    assert.equal(get(), 2, 'same size and mtime, other bytes: computed again (ctime)');
    assert.equal(get(), 2);
    const other = path.join(dir, 'other');
    fs.writeFileSync(other, 'bbbb');
    fs.renameSync(other, dep);
    assert.equal(get(), 3, 'replaced by another file (inode)');
    fs.writeFileSync(absent, '');
    assert.equal(get(), 4, 'a file that was missing exists now');
    fs.rmSync(dep);
    assert.equal(get(), 5, 'a file removed');
    assert.equal(get(), 5);
  });

  it('a directory among the inputs: adding a file to it computes again', () => {
    const dir = tmp();
    const watched = path.join(dir, 'w');
    fs.mkdirSync(watched);
    let calls = 0;
    const get = () => memoized(path.join(dir, 'cache'), 'test', 'k', () => ({ value: ++calls, deps: [watched] }), later);
    assert.equal(get(), 1);
    assert.equal(get(), 1);
    fs.writeFileSync(path.join(watched, 'new.c'), '');
    assert.equal(get(), 2);
  });

  it('another key is another answer; a stored entry of another key is not taken', () => {
    const dir = tmp();
    const cache = path.join(dir, 'cache');
    let calls = 0;
    const get = (key: string) => memoized(cache, 'test', key, () => ({ value: `${key}${++calls}`, deps: [] }), later);
    assert.equal(get('a'), 'a1');
    assert.equal(get('b'), 'b2');
    assert.equal(get('a'), 'a1');
    // an entry file holding another key (a hash collision, a stale format): not used
    const [file] = fs.readdirSync(path.join(cache, 'memo')).filter((f) => f.startsWith('test-'));
    const entry = JSON.parse(fs.readFileSync(path.join(cache, 'memo', file), 'utf8'));
    const key = entry.key as string;
    entry.key = 'something else';
    fs.writeFileSync(path.join(cache, 'memo', file), JSON.stringify(entry));
    assert.match(get(key), new RegExp(`^${key}3$`));
  });

  it('an input changed while the answer was computed: returned but not stored', () => {
    const dir = tmp();
    const dep = path.join(dir, 'input');
    fs.writeFileSync(dep, 'x');
    let calls = 0;
    // the work "started" before the file's last change (the clock is where the file is)
    const now = () => fs.statSync(dep, { bigint: true }).ctimeNs - 1n;
    const get = () => memoized(path.join(dir, 'cache'), 'test', 'k', () => ({ value: ++calls, deps: [dep] }), now);
    assert.equal(get(), 1);
    assert.equal(get(), 2, 'not stored: computed again');
    assert.equal(
      memoized(path.join(dir, 'cache'), 'test', 'k', () => ({ value: ++calls, deps: [dep] }), later),
      3,
    );
    assert.equal(
      memoized(path.join(dir, 'cache'), 'test', 'k', () => ({ value: ++calls, deps: [dep] }), later),
      3,
      'stored once settled',
    );
  });

  it('a cache that cannot be written or read changes nothing but the work', () => {
    const dir = tmp();
    const blocked = path.join(dir, 'file-not-dir');
    fs.writeFileSync(blocked, '');
    let calls = 0;
    assert.equal(
      memoized(blocked, 'test', 'k', () => ({ value: ++calls, deps: [] }), later),
      1,
    );
    assert.equal(
      memoized(blocked, 'test', 'k', () => ({ value: ++calls, deps: [] }), later),
      2,
    );
    assert.equal(
      memoized(undefined, 'test', 'k', () => ({ value: ++calls, deps: [] }), later),
      3,
    );
    const cache = path.join(dir, 'cache');
    fs.mkdirSync(path.join(cache, 'memo'), { recursive: true });
    memoized(cache, 'test', 'k', () => ({ value: ++calls, deps: [] }), later);
    for (const f of fs.readdirSync(path.join(cache, 'memo'))) fs.writeFileSync(path.join(cache, 'memo', f), '{ not json');
    assert.equal(
      memoized(cache, 'test', 'k', () => ({ value: ++calls, deps: [] }), later),
      5,
      'a damaged entry: computed again',
    );
  });

  it('fileIdentity: missing, and every kind of change', () => {
    const dir = tmp();
    const f = path.join(dir, 'f');
    assert.equal(fileIdentity(f), 'missing');
    fs.writeFileSync(f, 'a');
    const a = fileIdentity(f);
    fs.chmodSync(f, 0o600);
    assert.notEqual(fileIdentity(f), a, 'chmod changes ctime');
  });

  it('cacheRoot: $XDG_CACHE_HOME/mpii, else ~/.cache/mpii', () => {
    assert.equal(cacheRoot({ XDG_CACHE_HOME: '/x' }), '/x/mpii');
    assert.equal(cacheRoot({}), path.join(os.homedir(), '.cache', 'mpii'));
  });
});

/** A stand-in ldd on PATH: logs each run to $LDD_LOG and lists $FAKE_LIB as libmpich.so.12. */
function fakeLdd(dir: string): { env: NodeJS.ProcessEnv; runs: () => number; lib: string; bin: string } {
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const log = path.join(dir, 'ldd.log');
  const lib = path.join(dir, 'lib', 'libmpich.so.12');
  fs.mkdirSync(path.dirname(lib), { recursive: true });
  fs.writeFileSync(lib, 'lib');
  fs.writeFileSync(
    path.join(bin, 'ldd'),
    `#!/bin/sh\necho "$1" >> "$LDD_LOG"\nprintf '\\tlinux-vdso.so.1 (0x00007ffd)\\n\\tlibmpich.so.12 => %s (0x00007f00)\\n' "$FAKE_LIB"\n`,
    { mode: 0o755 },
  );
  const runs = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);
  return { env: { PATH: `${bin}:/usr/bin:/bin`, LDD_LOG: log, FAKE_LIB: lib }, runs, lib, bin };
}

/** Lets every file written so far be "settled" for the memo (ctime more than 100 ms ago). */
const settle = () => new Promise((r) => setTimeout(r, 150));

describe('ldd answers: run again exactly when the program, its libraries or the loader settings change', () => {
  it('a rebuilt program, a changed MPI library, LD_LIBRARY_PATH, another ldd on PATH', async () => {
    const dir = tmp();
    const cache = path.join(dir, 'cache');
    const { env, runs, lib } = fakeLdd(dir);
    const prog = path.join(dir, 'app');
    fs.writeFileSync(prog, 'ELF-1');
    await settle();
    const ask = (e: NodeJS.ProcessEnv = env) => linkedLibraries(prog, 'app', e, cache);
    assert.match(ask(), /libmpich\.so\.12 => /);
    assert.equal(runs(), 1);
    ask();
    assert.equal(runs(), 1, 'warm: ldd not run');
    rewriteKeepingTimes(prog, 'ELF-2');
    await settle();
    ask();
    assert.equal(runs(), 2, 'a rebuilt program (same size and mtime)');
    ask();
    assert.equal(runs(), 2);
    fs.writeFileSync(lib, 'lib, upgraded');
    await settle();
    ask();
    assert.equal(runs(), 3, 'the MPI library ldd found has changed');
    ask({ ...env, LD_LIBRARY_PATH: path.join(dir, 'lib') });
    assert.equal(runs(), 4, 'another LD_LIBRARY_PATH');
    ask({ ...env, LD_PRELOAD: '/x.so' });
    assert.equal(runs(), 5, 'another LD_PRELOAD');
    const other = fakeLdd(path.join(dir, 'other'));
    ask({ ...env, PATH: `${other.bin}:${env.PATH}` });
    assert.equal(runs() + other.runs(), 6, 'another ldd first on PATH');
    ask();
    assert.equal(runs() + other.runs(), 6, 'back to the first: its answer is still stored');
  });

  it('the same program name in another directory is another program', async () => {
    const dir = tmp();
    const cache = path.join(dir, 'cache');
    const { env, runs } = fakeLdd(dir);
    for (const d of ['a', 'b']) {
      fs.mkdirSync(path.join(dir, d));
      fs.writeFileSync(path.join(dir, d, 'app'), 'ELF');
    }
    await settle();
    const cwd = process.cwd();
    try {
      for (const d of ['a', 'b', 'a', 'b']) {
        process.chdir(path.join(dir, d));
        linkedLibraries('./app', './app', env, cache);
      }
    } finally {
      process.chdir(cwd);
    }
    assert.equal(runs(), 2);
  });

  it("lddPaths: the files of ldd's lines, not the virtual ones", () => {
    const out =
      '\tlinux-vdso.so.1 (0x00007ffc)\n\tlibmpi.so.40 => /lib/x86_64-linux-gnu/libmpi.so.40 (0x00007f)\n' +
      '\tlibgone.so.1 => not found\n\t/lib64/ld-linux-x86-64.so.2 (0x00007f)\n';
    assert.deepEqual(lddPaths(out), ['/lib/x86_64-linux-gnu/libmpi.so.40', '/lib64/ld-linux-x86-64.so.2']);
  });
});

describe("the shim's cache key: remembered, worked out again when the MPI changes", () => {
  it('a changed mpi.h or compiler wrapper gives its key again; unchanged, the stored key is used', async () => {
    const dir = tmp();
    const cache = path.join(dir, 'cache');
    const inc = path.join(dir, 'include');
    fs.mkdirSync(inc);
    const header = path.join(inc, 'mpi.h');
    fs.writeFileSync(header, '#define MPI_VERSION 3\n');
    await settle();
    const probe: Probe = { compiler: '/usr/bin/mpicc', incdirs: [inc], libdirs: [], lib: 'mpi', cc: 'gcc', cflags: [], stamp: 'mpicc:1' };
    const first = cacheKey('openmpi', probe, cache);
    assert.equal(cacheKey('openmpi', probe, undefined), first, 'the stored key is the computed one');
    // mark the stored entry: a warm call returns the mark, so it did not hash again
    const memo = path.join(cache, 'memo');
    const [file] = fs.readdirSync(memo).filter((f) => f.startsWith('shim-key-'));
    const entry = JSON.parse(fs.readFileSync(path.join(memo, file), 'utf8'));
    fs.writeFileSync(path.join(memo, file), JSON.stringify({ ...entry, value: 'MARK' }));
    assert.equal(cacheKey('openmpi', probe, cache), 'MARK');
    assert.notEqual(cacheKey('mpich', probe, cache), 'MARK', 'another flavour');
    assert.notEqual(cacheKey('openmpi', { ...probe, stamp: 'mpicc:2' }, cache), 'MARK', 'a changed compiler wrapper');
    rewriteKeepingTimes(header, '#define MPI_VERSION 4\n');
    await settle();
    const after = cacheKey('openmpi', probe, cache);
    assert.notEqual(after, 'MARK', 'a changed mpi.h');
    assert.equal(after, cacheKey('openmpi', probe, undefined));
  });
});

describe('configuration files: parsed once, parsed again when changed', () => {
  it('a changed file, another $HOME, a file with an error every time', async () => {
    const dir = tmp();
    const cache = path.join(dir, 'cache');
    const file = path.join(dir, 'mpii.yaml');
    fs.writeFileSync(file, 'stacks:\n  a: [noop]\n');
    await settle();
    const opts = { builtinAllowed: false, display: './mpii.yaml', home: dir };
    const first = loadConfigFileCached(file, opts, cache);
    assert.deepEqual([...first.stacks.keys()], ['a']);
    const again = loadConfigFileCached(file, opts, cache);
    assert.deepEqual(again, first, 'the stored form equals the parsed one (maps included)');
    rewriteKeepingTimes(file, 'stacks:\n  b: [noop]\n');
    await settle();
    assert.deepEqual([...loadConfigFileCached(file, opts, cache).stacks.keys()], ['b']);
    fs.writeFileSync(file, 'tools:\n  t: { path: ~/t.so }\n');
    await settle();
    assert.equal(loadConfigFileCached(file, opts, cache).tools.get('t')?.path, path.join(dir, 't.so'));
    assert.equal(loadConfigFileCached(file, { ...opts, home: '/elsewhere' }, cache).tools.get('t')?.path, '/elsewhere/t.so', 'another $HOME');
    // the parsed form is the loader's: an upgraded mpii (another load.js) parses again
    const memo = path.join(cache, 'memo');
    const entries = fs.readdirSync(memo).map((f) => JSON.parse(fs.readFileSync(path.join(memo, f), 'utf8')) as { deps: [string, string][] });
    assert.ok(entries.length > 0 && entries.every((e) => LOADER_FILES.every((l) => e.deps.some(([p]) => p === l))));
    assert.ok(
      LOADER_FILES.every((l) => fs.existsSync(l)),
      'the loader files named are the real ones',
    );
    fs.writeFileSync(file, 'stacks: [\n');
    await settle();
    for (let i = 0; i < 2; i++) assert.throws(() => loadConfigFileCached(file, opts, cache), /mpii\.yaml:\d+: YAML syntax error/);
  });
});

describe("the program's hash in the run description", () => {
  it('remembered per program file, hashed again when it is rebuilt', async () => {
    const dir = tmp();
    const cache = path.join(dir, 'cache');
    const prog = path.join(dir, 'app');
    fs.writeFileSync(prog, 'one');
    await settle();
    const a = programIdentity([prog], dir, {}, cache)!;
    assert.equal(a.sha256, '7692c3ad3540bb803c020b3aee66cd8887123234ea0c6e7143c0add73ff431ed');
    assert.equal(programIdentity([prog], dir, {}, cache)!.sha256, a.sha256);
    rewriteKeepingTimes(prog, 'two');
    await settle();
    assert.equal(programIdentity([prog], dir, {}, cache)!.sha256, '3fc4ccfe745870e2c0d99f71f30ff0656c8dedd41cc1d7d3d376b0dbe685e2f3');
  });
});

// The npm package as a user gets it: `npm pack` in a copy of the checkout that has no dist/ (the
// prepack script builds it), `npm install -g --prefix` of the tarball as root with the documented
// command, then jobs run by another user who cannot write the install: a C program on Open MPI
// and MPICH, a Python program (the distribution's mpi4py, Open MPI). Every shim and cache must be
// built under that user's cache directory ($XDG_CACHE_HOME/mpii, else ~/.cache/mpii) and the
// install stay exactly as installed. Then koffi's native module is taken away: the commands that
// need it say what to do in one line, the others still work (docs/package.md).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { execa } from 'execa';
import { ROOT, oneLineError, type Flavor } from './helpers.js';

const USER = 'mpii-pkg-test';
const NP = 2;
// what a clean clone does not have: the build, the dependencies (linked in below), local output
const NOT_IN_A_CLONE = new Set(['node_modules', 'dist', '.git', 'mpii-out', '.venv-mpich', '.node24']);

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every file and directory under `dir` with its size and modification time. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      const s = lstatSync(p);
      out.push(`${relative(dir, p)} ${s.size} ${s.mtimeMs}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

describe('the npm package: pack, install as root, run as another user', { timeout: 2_400_000 }, () => {
  let work: string;
  let prefix: string;
  let pkg: string; // <prefix>/lib/node_modules/mpii
  let home: string;
  let uid: number;
  let gid: number;
  let installed: string[];

  /** `args` run by USER in `cwd` with nothing of root's environment but what is given. */
  const asUser = (cmd: string, args: string[], env: Record<string, string>, cwd = home) =>
    execa(
      'runuser',
      [
        '-u',
        USER,
        '--',
        'env',
        '-i',
        `PATH=${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
        `HOME=${home}`,
        // the generic shim only, as in the other test files (the specialised one is another build),
        // waited for (the first run would start on a quick shim: first-run.test.ts), and no
        // system cache but the one a test names
        'MPII_SPECIALISE=0',
        'MPII_BUILD=wait',
        `MPII_SYSTEM_CACHE=${join(work, 'no-system-cache')}`,
        // the layer's compiled objects (scripts/run-tests.mjs), read-only to USER: its shims are
        // still built and linked in its own cache, without compiling again what the layer did
        ...(process.env.MPII_OBJECT_CACHE ? [`MPII_OBJECT_CACHE=${process.env.MPII_OBJECT_CACHE}`] : []),
        ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
        cmd,
        ...args,
      ],
      { cwd, reject: false, timeout: 900_000 },
    );
  const mpiiAsUser = (args: string[], env: Record<string, string> = {}) => asUser(join(prefix, 'bin', 'mpii'), args, env);

  /** A directory USER owns. */
  const userDir = (p: string) => {
    mkdirSync(p, { recursive: true });
    chownSync(p, uid, gid);
    return p;
  };

  before(async () => {
    if (process.getuid?.() !== 0) throw new Error('test/package.test.ts installs as root and runs as another user: run it as root (docs/testing.md)');
    work = mkdtempSync(join(tmpdir(), 'mpii-package-'));
    chmodSync(work, 0o755); // USER reaches the install and the programs through it
    if ((await execa('id', ['-u', USER], { reject: false })).exitCode !== 0) {
      await execa('useradd', ['--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', '--user-group', USER]);
    }
    uid = Number((await execa('id', ['-u', USER])).stdout);
    gid = Number((await execa('id', ['-g', USER])).stdout);

    // a copy of the checkout as a clone has it: no dist/, so only the prepack script can build it
    const clone = join(work, 'clone');
    cpSync(ROOT, clone, { recursive: true, filter: (p) => p === ROOT || !(dirname(p) === ROOT && (NOT_IN_A_CLONE.has(basename(p)) || p.endsWith('.tgz'))) });
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
    const packed = join(work, 'packed');
    mkdirSync(packed);
    const pack = await execa('npm', ['pack', '--pack-destination', packed], { cwd: clone, reject: false });
    assert.equal(pack.exitCode, 0, pack.stderr);
    const [tarball] = readdirSync(packed);
    assert.match(tarball, /^mpii-\d+\.\d+\.\d+\.tgz$/);

    // the install command of docs/package.md, into an empty prefix
    prefix = join(work, 'prefix');
    const inst = await execa(
      'npm',
      ['install', '-g', '--prefix', prefix, '--allow-scripts=koffi', '--prefer-offline', '--no-audit', '--no-fund', join(packed, tarball)],
      { cwd: work, reject: false, timeout: 300_000 },
    );
    assert.equal(inst.exitCode, 0, inst.stderr);
    pkg = join(prefix, 'lib', 'node_modules', 'mpii');
    installed = snapshot(prefix);
    home = userDir(join(work, 'home'));
  });

  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('holds what a user runs and nothing else', () => {
    const top = readdirSync(pkg)
      .filter((f) => f !== 'node_modules')
      .sort();
    assert.deepEqual(top, ['LICENSE', 'README.md', 'bin', 'config', 'dist', 'docs', 'package.json', 'preload']);
    assert.deepEqual(readdirSync(join(pkg, 'dist')).sort(), ['preload', 'src']);
    assert.deepEqual(readdirSync(join(pkg, 'docs')), ['mpii.1']);
    assert.ok(existsSync(join(pkg, 'dist', 'src', 'cli', 'main.js')));
    assert.ok(existsSync(join(pkg, 'preload', 'spec', 'mpi.yaml')));
    const files = snapshot(pkg)
      .map((l) => l.split(' ')[0])
      .filter((f) => !f.startsWith('node_modules'));
    assert.deepEqual(
      files.filter((f) => /\.test\.|(^|\/)test\/|^bench|\.ts$/.test(f)),
      [],
      'no tests, benchmarks or TypeScript sources',
    );
  });

  it('the user cannot write the install', async () => {
    const w = await asUser('test', ['-w', pkg], {});
    assert.equal(w.exitCode, 1);
  });

  async function cProgram(f: Flavor): Promise<string> {
    const out = join(work, `ring-${f}`);
    await execa(`mpicc.${f}`, ['-o', out, join(ROOT, 'test', 'programs', 'ring.c')]);
    return out;
  }

  /** `mpii run --tools trace-count` of `program` as USER; returns the calls counted per function. */
  async function runAsUser(program: string[], env: Record<string, string>, launcher: string[]): Promise<{ stdout: string; calls: Map<string, number> }> {
    const out = join(home, `out-${Math.random().toString(36).slice(2, 8)}`);
    const r = await mpiiAsUser(['run', '--quiet', '--tools', 'trace-count', '--out', out, ...launcher, ...program], env);
    assert.equal(r.exitCode, 0, r.stderr);
    const rep = await mpiiAsUser(['report', out, '--json'], env);
    assert.equal(rep.exitCode, 0, rep.stderr);
    const rows: { fn: string; total: number }[] = JSON.parse(rep.stdout).traceCount[0].rows;
    return { stdout: r.stdout, calls: new Map(rows.map((x) => [x.fn, x.total])) };
  }

  /** The shim directories (`<flavour>-<key>/libmpii.so`) in a cache. */
  const shims = (cache: string) => readdirSync(cache).filter((d) => existsSync(join(cache, d, 'libmpii.so')));

  it('a C program on Open MPI: the shim is built in ~/.cache/mpii of the user, the install is untouched', async () => {
    const ring = await cProgram('openmpi');
    const r = await runAsUser([ring], {}, ['-np', String(NP), '--oversubscribe']);
    assert.match(r.stdout, /ring ok size=2 token=6/);
    assert.equal(r.calls.get('MPI_Send'), NP * 3);
    const cache = join(home, '.cache', 'mpii');
    assert.deepEqual(
      shims(cache).map((d) => d.split('-')[0]),
      ['openmpi'],
    );
    assert.deepEqual(snapshot(prefix), installed);
    const doctor = await mpiiAsUser(['doctor']);
    assert.match(doctor.stdout, new RegExp(`^ok +mpii in ${esc(pkg)}, Node v`, 'm'));
    assert.match(doctor.stdout, new RegExp(`^ok +shim cache ${esc(cache)} is writable: .*nothing is written in ${esc(pkg)}`, 'm'));
  });

  // one MPI: a shim build in a fresh cache is the slowest step of this file, and which MPI the
  // shim is for changes nothing the package decides (both MPIs' runs are tested from the checkout)
  it('a Python program on Open MPI: all in $XDG_CACHE_HOME/mpii', async () => {
    const xdg = userDir(join(work, 'xdg'));
    const env = { XDG_CACHE_HOME: xdg };
    const homeCache = join(home, '.cache');
    const homeBefore = existsSync(homeCache) ? snapshot(homeCache) : [];
    const py = join(work, 'allreduce.py');
    writeFileSync(
      py,
      [
        'import numpy as np',
        'from mpi4py import MPI',
        'comm = MPI.COMM_WORLD',
        'total = np.zeros(1)',
        'comm.Allreduce(np.array([comm.Get_rank() + 1.0]), total, op=MPI.SUM)',
        'if comm.Get_rank() == 0:',
        '    print(f"allreduce ok size={comm.Get_size()} total={total[0]:g}")',
        '',
      ].join('\n'),
    );
    const p = await runAsUser(['/usr/bin/python3', py], env, ['-np', String(NP), '--oversubscribe']);
    assert.match(p.stdout, /allreduce ok size=2 total=3/);
    assert.equal(p.calls.get('MPI_Allreduce'), NP);

    const cache = join(xdg, 'mpii');
    assert.deepEqual(
      shims(cache).map((d) => d.split('-')[0]),
      ['openmpi'],
    );
    assert.ok(
      readdirSync(cache).some((f) => /^pysite-.*\.so$/.test(f)),
      'the Python call-site helper is built in the cache',
    );
    assert.deepEqual(existsSync(homeCache) ? snapshot(homeCache) : [], homeBefore, 'nothing changed in ~/.cache');
    assert.deepEqual(snapshot(prefix), installed);
  });

  it('a system cache prebuilt by root serves the user, who cannot write it: nothing compiled but a stack it lacks, in the user cache', async () => {
    const system = join(work, 'system-cache');
    const env = { MPII_SYSTEM_CACHE: system };
    // root prebuilds the general shim and one stack's compiled-in shim with the installed mpii
    const mpiiRoot = join(prefix, 'bin', 'mpii');
    const built = await execa(mpiiRoot, ['build', '--system', '--mpi', 'openmpi', '--tools', 'trace-count', '--quiet'], {
      env: { ...process.env, ...env },
      reject: false,
    });
    assert.equal(built.exitCode, 0, built.stderr);
    const [key] = readdirSync(system).filter((d) => existsSync(join(system, d, 'shim.json')));
    assert.match(key ?? '', /^openmpi-[0-9a-f]{16}$/, readdirSync(system).join(' '));
    const prebuilt = snapshot(system);
    assert.equal((await asUser('test', ['-w', system], {})).exitCode, 1, 'the user cannot write it');

    const xdg = userDir(join(work, 'xdg-system'));
    const user = { ...env, XDG_CACHE_HOME: xdg, MPII_SPECIALISE: '1', MPII_BUILD: '' };
    const ring = await cProgram('openmpi');
    const dry = await mpiiAsUser(['run', '--dry-run', '--tools', 'trace-count', '-np', String(NP), '--oversubscribe', ring], user);
    assert.equal(dry.exitCode, 0, dry.stderr);
    assert.equal(/^LD_PRELOAD=(\S+)$/m.exec(dry.stdout)?.[1], join(system, key, 'spec-trace-count', 'libmpii.so'), dry.stdout);
    // the prebuilt stack: nothing to build, nothing to say
    const r = await runAsUser([ring], user, ['-np', String(NP), '--oversubscribe']);
    assert.match(r.stdout, /ring ok size=2 token=6/);
    assert.equal(r.calls.get('MPI_Send'), NP * 3);
    const quiet = await mpiiAsUser(
      ['run', '--quiet', '--tools', 'trace-count', '--out', join(home, 'out-sys'), '-np', String(NP), '--oversubscribe', ring],
      user,
    );
    assert.equal(quiet.exitCode, 0, quiet.stderr);
    assert.doesNotMatch(quiet.stderr, /^mpii:/m, 'nothing built');
    // a stack it lacks: compiled into the user's cache, linked with the system shim's objects
    const mon = await mpiiAsUser(['run', '--quiet', '--tools', 'monitor', '--out', join(home, 'out-mon'), '-np', String(NP), '--oversubscribe', ring], {
      ...user,
      MPII_BUILD: 'wait',
    });
    assert.equal(mon.exitCode, 0, mon.stderr);
    assert.match(mon.stderr, /^mpii: building the stack monitor compiled into one wrapper per function/m);
    assert.ok(existsSync(join(xdg, 'mpii', key, 'spec-monitor', 'libmpii.so')), 'in the user cache');
    assert.deepEqual(
      readdirSync(join(xdg, 'mpii')).filter((d) => existsSync(join(xdg, 'mpii', d, 'shim.json')) || d.startsWith('quick-')),
      [],
      'no general or quick shim of its own',
    );
    assert.deepEqual(snapshot(system), prebuilt, 'the system cache is as root left it');
    // the user asking to write it: one line
    const denied = await mpiiAsUser(['build', '--system', '--mpi', 'openmpi'], user);
    oneLineError(
      { code: denied.exitCode ?? -1, stderr: denied.stderr },
      new RegExp(`cannot write the system shim cache ${esc(system)} .* — prebuild it as root, or set MPII_SYSTEM_CACHE`),
    );
    const doctor = await mpiiAsUser(['doctor'], user);
    assert.match(doctor.stdout, new RegExp(`^ok +system shim cache ${esc(system)}: ${key} prebuilt, read before ${esc(join(xdg, 'mpii'))}$`, 'm'));
  });

  it("koffi's native module missing: pvars says what to do in one line, run still works", async () => {
    const ok = await mpiiAsUser(['pvars', '--mpi', 'openmpi']);
    assert.equal(ok.exitCode, 0, ok.stderr);
    const build = join(pkg, 'node_modules', 'koffi', 'build');
    renameSync(build, `${build}.away`);
    try {
      const r = await mpiiAsUser(['pvars', '--mpi', 'openmpi']);
      oneLineError(
        { code: r.exitCode ?? -1, stderr: r.stderr },
        new RegExp(`koffi's native module does not load .* — install mpii again .*: npm install -g --prefix ${esc(prefix)} --allow-scripts=koffi `),
      );
      assert.equal(r.exitCode, 2);
      const doctor = await mpiiAsUser(['doctor']);
      assert.equal(doctor.exitCode, 1);
      assert.match(doctor.stdout, /^FAIL +koffi's native module does not load/m);
      const ring = await cProgram('openmpi');
      const run = await runAsUser([ring], {}, ['-np', String(NP), '--oversubscribe']);
      assert.match(run.stdout, /ring ok size=2/);
    } finally {
      renameSync(`${build}.away`, build);
    }
  });
});

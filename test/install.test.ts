// `mpii install` / `mpii uninstall` for real, both MPIs: programs built with the integrated
// compiler wrappers (C and Fortran) run the shim under the plain launcher, INJ_IGNORE=1 turns it
// off, `mpii run` on them goes through the tools once, and uninstall leaves every wrapper file
// byte-identical. System mode edits Open MPI's wrapper data in a copy of its data directory
// (OPAL_PKGDATADIR, which Open MPI's wrappers honour) and MPICH's real sysconfdir (a new
// mpii.conf only, removed again); the MPI installation itself is never changed.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, execaSync } from 'execa';
import { FLAVORS, ROOT, TEST_ENV, launcherArgs, mpii, outDir, type Flavor } from './helpers.js';

const LAUNCHER: Record<Flavor, string> = { openmpi: 'mpirun.openmpi', mpich: 'mpiexec.mpich' };
const NP = 2;

const hashDir = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((f) => {
        const p = join(dir, f);
        try {
          return [f, createHash('sha256').update(readFileSync(p)).digest('hex')];
        } catch {
          return [f, 'dir'];
        }
      }),
  );

/** Runs `prog` with the plain launcher in `cwd`; returns output and the profile dir it announced. */
async function plain(f: Flavor, prog: string, cwd: string, env: NodeJS.ProcessEnv = {}) {
  const r = await execa(LAUNCHER[f], [...launcherArgs(f, NP), prog], { env: { ...TEST_ENV, ...env }, cwd, reject: false, timeout: 120_000 });
  assert.equal(r.exitCode, 0, r.stderr);
  const dir = /mpii: profile in (\S+)/.exec(r.stderr)?.[1];
  return { stdout: r.stdout, stderr: r.stderr, dir };
}

async function counts(dir: string): Promise<Map<string, number>> {
  const rep = await mpii(['report', dir, '--json']);
  assert.equal(rep.code, 0, rep.stderr);
  const json = JSON.parse(rep.stdout);
  return new Map(json.traceCount[0].rows.map((x: { fn: string; total: number }) => [x.fn, x.total]));
}

function build(compiler: string, args: string[], out: string, env: NodeJS.ProcessEnv = {}): string {
  execaSync(compiler, [...args, '-o', out], { env: { ...TEST_ENV, ...env } });
  const ldd = execaSync('ldd', [out]).stdout;
  assert.match(ldd, /libmpii\.so => \S+\/lib\/mpii\//, `${out} links the installed shim:\n${ldd}`);
  return out;
}

/** The checks every installed flavour must pass, given its C and Fortran compiler commands. */
async function checkLinked(f: Flavor, cc: string[], fc: string[], work: string, env: NodeJS.ProcessEnv = {}) {
  const ring = build(cc[0], [...cc.slice(1), join(ROOT, 'test', 'programs', 'ring.c')], join(work, `ring-${f}`), env);
  const halo = build(fc[0], [...fc.slice(1), '-cpp', '-DUSE_F08', join(ROOT, 'test', 'programs', 'fortran_halo.F90')], join(work, `halo-${f}`), env);

  // plain launcher: the installed default stack (trace-count) runs, the profile lands in ./mpii-out
  const r = await plain(f, ring, work);
  assert.match(r.stdout, /ring ok size=2 token=6/);
  assert.ok(r.dir && r.dir.startsWith(join(work, 'mpii-out')), r.stderr);
  const c = await counts(r.dir!);
  assert.equal(c.get('MPI_Send'), NP * 3);
  assert.equal(c.get('MPI_Init'), NP);
  // a crash: the images moved into the directory rank 0 named after MPI_Init (one node file for
  // the host) keep every rank's counts
  const crash = build(cc[0], [...cc.slice(1), join(ROOT, 'test', 'programs', 'crash.c')], join(work, `crash-${f}`), env);
  const cr = await execa(LAUNCHER[f], [...launcherArgs(f, NP), crash], { env: { ...TEST_ENV, ...env }, cwd: work, reject: false, timeout: 120_000 });
  assert.notEqual(cr.exitCode, 0);
  const crashed = /mpii: profile in (\S+)/.exec(cr.stderr)?.[1];
  assert.ok(crashed, cr.stderr);
  assert.deepEqual(
    readdirSync(crashed).filter((x) => x.endsWith('.live')),
    [`node-${hostname()}.live`],
  );
  assert.equal((await counts(crashed)).get('MPI_Send'), NP * 100);
  const h = await plain(f, halo, work);
  assert.match(h.stdout, /fortran_halo ok size=2/);
  const hc = await counts(h.dir!);
  assert.equal(hc.get('MPI_Sendrecv'), 2 * NP * 5, 'Fortran calls of the linked-in shim are counted');

  // INJ_IGNORE=1 at run time: everything off, no profile
  const before = readdirSync(join(work, 'mpii-out')).length;
  const ign = await plain(f, ring, work, { INJ_IGNORE: '1' });
  assert.match(ign.stdout, /ring ok/);
  assert.equal(ign.dir, undefined, ign.stderr);
  assert.equal(readdirSync(join(work, 'mpii-out')).length, before);

  // TOOLS in the environment replaces the installed stack
  const mon = await plain(f, ring, work, { TOOLS: 'monitor' });
  const rep = JSON.parse((await mpii(['report', mon.dir!, '--json'])).stdout);
  assert.equal(rep.traceCount.length, 0);
  assert.equal(rep.monitor.length, 1);

  // linked in AND preloaded by mpii run: the tools see each call once
  const out = outDir(`install-double-${f}`);
  const run = await mpii(['run', '--quiet', '--tools', 'trace-count', '--out', out, ...launcherArgs(f, NP), ring]);
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /profile in/);
  assert.equal((await counts(out)).get('MPI_Send'), NP * 3);
}

describe('mpii install --wrappers separate (nothing outside the prefix changes)', () => {
  let prefix: string;
  let work: string;
  before(() => {
    prefix = mkdtempSync(join(tmpdir(), 'mpii-prefix-'));
    rmSync(prefix, { recursive: true });
    work = mkdtempSync(join(tmpdir(), 'mpii-install-work-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('installs both MPIs with <wrapper>-mpii.<mpi> scripts; --dry-run writes nothing', async () => {
    const dry = await mpii(['install', '--prefix', prefix, '--wrappers', 'separate', '--default-stack', 'count', '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^\+libs=-L\S+\/lib\/mpii\/openmpi -Wl,-rpath/m);
    assert.match(dry.stdout, /^\+PROFILE_PRELIB="-L\S+\/lib\/mpii\/mpich/m);
    assert.ok(!existsSync(prefix));
    const r = await mpii(['install', '--prefix', prefix, '--wrappers', 'separate', '--default-stack', 'count']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /0 MPI wrapper files changed/);
    assert.equal(
      readFileSync(join(prefix, 'lib', 'mpii', 'mpich', 'mpii-defaults'), 'utf8')
        .split('\n')
        .find((l) => l.startsWith('TOOLS=')),
      'TOOLS=trace-count',
    );
    const again = await mpii(['install', '--prefix', prefix, '--wrappers', 'separate', '--default-stack', 'count']);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /already installed in .* run `mpii uninstall --prefix/);
  });

  for (const f of FLAVORS) {
    it(`${f}: C and Fortran built with the -mpii wrappers run the shim with the plain launcher`, async () => {
      const bin = join(prefix, 'bin');
      await checkLinked(f, [join(bin, `mpicc-mpii.${f}`)], [join(bin, `mpif90-mpii.${f}`)], work);
    });
  }

  it('mpich: -profile=mpii-static -static-mpi builds with mpii.h and the archive against the static MPICH', async () => {
    const prog = join(work, 'ring-static');
    execaSync('mpicc.mpich', [`-profile=${join(prefix, 'etc', 'mpich', 'mpii-static')}`, '-static-mpi', join(ROOT, 'test', 'programs', 'ring.c'), '-o', prog]);
    assert.doesNotMatch(execaSync('ldd', [prog]).stdout, /libmpich|libmpii/);
    const r = await plain('mpich', prog, work);
    assert.match(r.stdout, /ring ok size=2 token=6/);
    const c = await counts(r.dir!);
    assert.equal(c.get('MPI_Send'), NP * 3);
    assert.equal(c.get('MPI_Bcast'), NP);
    const ign = await plain('mpich', prog, work, { INJ_IGNORE: '1' });
    assert.equal(ign.dir, undefined, ign.stderr);
    const run = await mpii(['run', '-np', '2', prog]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /linked against a static MPI library/);
  });

  it('uninstall removes every file and the prefix', async () => {
    const r = await mpii(['uninstall', '--prefix', prefix]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!existsSync(prefix));
    const none = await mpii(['uninstall', '--prefix', prefix]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /mpii is not installed in .* pass the --prefix you installed with/);
  });
});

describe("mpii install --wrappers system: the MPI's own wrappers link the shim, uninstall restores them byte for byte", () => {
  let prefix: string;
  let work: string;
  let data: string;
  const sysconf = '/etc/mpich';
  let sysconfBefore: Record<string, string> | null;
  let wrappersBefore: Record<string, string>;
  before(() => {
    prefix = mkdtempSync(join(tmpdir(), 'mpii-sysprefix-'));
    work = mkdtempSync(join(tmpdir(), 'mpii-install-sys-'));
    data = join(work, 'openmpi-data');
    cpSync('/usr/share/openmpi', data, { recursive: true, verbatimSymlinks: true });
    sysconfBefore = existsSync(sysconf) ? hashDir(sysconf) : null;
    wrappersBefore = hashDir('/usr/bin');
  });
  after(() => rmSync(work, { recursive: true, force: true }));
  const env = () => ({ OPAL_PKGDATADIR: data });

  it("install changes the Open MPI wrapper data (--dry-run shows the diff first) and adds MPICH's mpii.conf", async () => {
    const dataBefore = hashDir(data);
    const dry = await mpii(['install', '--prefix', prefix, '--default-stack', 'count', '--dry-run'], env());
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`^--- ${data}/mpicc-wrapper-data.txt\\n\\+\\+\\+ ${data}/mpicc-wrapper-data.txt`, 'm'));
    assert.match(dry.stdout, /^-libs=-lmpi$/m);
    assert.deepEqual(hashDir(data), dataBefore, 'a dry run changes nothing');
    const r = await mpii(['install', '--prefix', prefix, '--default-stack', 'count'], env());
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /[1-9]\d* MPI wrapper files changed/);
    assert.match(readFileSync(join(data, 'mpicc-wrapper-data.txt'), 'utf8'), /^libs=-L\S+ -Wl,-rpath,\S+ -lmpii -Wl,--no-as-needed -lmpi$/m);
    assert.ok(existsSync(join(sysconf, 'mpii.conf')));
  });

  it('openmpi: plain mpicc.openmpi / mpif90.openmpi now link the shim', async () => {
    await checkLinked('openmpi', ['mpicc.openmpi'], ['mpif90.openmpi'], work, env());
  });

  it('mpich: mpicc.mpich -profile=mpii / mpif90.mpich -profile=mpii link the shim', async () => {
    await checkLinked('mpich', ['mpicc.mpich', '-profile=mpii'], ['mpif90.mpich', '-profile=mpii'], work);
  });

  it('uninstall refuses a wrapper file changed since, then restores everything byte-identically', async () => {
    const f = join(data, 'mpif90-wrapper-data.txt');
    const installed = readFileSync(f);
    writeFileSync(f, `${installed}# edited by someone\n`);
    const refused = await mpii(['uninstall', '--prefix', prefix]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /mpif90-wrapper-data.txt changed since mpii install .* --force restores the backup anyway/);
    const dry = await mpii(['uninstall', '--prefix', prefix, '--dry-run', '--force']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^\+libs=-lmpi$/m);
    const r = await mpii(['uninstall', '--prefix', prefix, '--force']);
    assert.equal(r.code, 0, r.stderr);
    const orig = hashDir('/usr/share/openmpi');
    assert.deepEqual(hashDir(data), orig, 'Open MPI wrapper data byte-identical to the original');
    assert.deepEqual(existsSync(sysconf) ? hashDir(sysconf) : null, sysconfBefore, 'MPICH sysconfdir as before');
    assert.deepEqual(hashDir('/usr/bin'), wrappersBefore, 'the wrappers themselves never change');
    assert.deepEqual(readdirSync(prefix), [], 'the prefix holds nothing of mpii any more');
    rmSync(prefix, { recursive: true });
  });
});

describe('mpii install: bad input', () => {
  it('an unknown stack, MPI or wrapper mode: one line, exit 2', async () => {
    const p = join(tmpdir(), `mpii-bad-${process.pid}`);
    for (const [args, msg] of [
      [['--default-stack', 'nope'], /unknown stack 'nope'/],
      [['--mpi', 'lam'], /unknown MPI 'lam' for --mpi — use --mpi openmpi, mpich or all/],
      [['--wrappers', 'both', '--default-stack', 'count'], /unknown --wrappers 'both' — use --wrappers system or --wrappers separate/],
      [['--default-stack', 'none'], /no default stack for programs built with the wrappers — pass --default-stack NAME/],
    ] as Array<[string[], RegExp]>) {
      const r = await mpii(['install', '--prefix', p, ...args]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, msg);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.ok(!existsSync(p));
    }
  });
});

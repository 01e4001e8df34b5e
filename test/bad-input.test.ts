// Bad input: one clear line naming the problem and the fix, a non-zero exit, no stack trace.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launcherArgs, mpii, oneLineError, outDir, program } from './helpers.js';
import { writeSyntheticJob } from '../src/profile-file/synthetic.js';

describe('bad input', () => {
  const ring = program('openmpi', 'ring');

  it('unknown tool: names it and suggests the closest', async () => {
    const r = await mpii(['run', '--tools', 'trace-cont', '-np', '2', ring]);
    oneLineError(r, /unknown tool 'trace-cont'.*trace-count/);
    assert.equal(r.code, 2);
  });

  it('missing .so', async () => {
    const r = await mpii(['run', '--tools', '/nonexistent/libtool.so', '-np', '2', ring]);
    oneLineError(r, /\/nonexistent\/libtool\.so/);
  });

  it('a tool .so that is not a shared object for this machine: one line before launch, exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-badso-'));
    const { execaSync } = await import('execa');
    writeFileSync(join(dir, 'text.so'), 'not a library\n');
    writeFileSync(join(dir, 't.c'), 'int mpii_tool_x(void) { return 1; }\n');
    execaSync('cc', ['-c', '-fPIC', '-o', join(dir, 't.o'), join(dir, 't.c')]);
    execaSync('cc', ['-shared', '-fPIC', '-o', join(dir, 'good.so'), join(dir, 't.c')]);
    // the same library claiming another machine (and, second, another word size)
    const lib = readFileSync(join(dir, 'good.so'));
    const foreign = Buffer.from(lib);
    foreign.writeUInt16LE(lib.readUInt16LE(18) === 62 ? 183 : 62, 18);
    writeFileSync(join(dir, 'foreign.so'), foreign);
    const cases: [string, RegExp][] = [
      [join(dir, 'text.so'), /text\.so' is not a shared object \(no ELF header\)/],
      [join(dir, 't.o'), /t\.o' is not a shared object \(an ELF object file/],
      [join(dir, 'foreign.so'), /foreign\.so' is a 64-bit \S+ library, this machine runs 64-bit/],
      [ring, /ring' is not a shared object \(a position-independent executable/],
    ];
    for (const [so, pattern] of cases) {
      const r = await mpii(['run', '--tools', `trace-count,${so}`, '-np', '2', ring]);
      oneLineError(r, pattern);
      assert.match(r.stderr, /— build the tool as a shared library/);
      assert.equal(r.code, 2);
      assert.doesNotMatch(r.stderr, /launcher:/, 'nothing launched');
    }
    const ok = await mpii(['run', '--dry-run', '--tools', join(dir, 'good.so'), '-np', '2', ring]);
    assert.equal(ok.code, 0, ok.stderr);
  });

  it('bad option value', async () => {
    const r = await mpii(['run', '--tools', 'trace-count[top=zero]', '-np', '2', ring]);
    oneLineError(r, /top/);
  });

  it('YAML syntax error names the file and line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-yaml-'));
    writeFileSync(join(dir, 'mpii.yaml'), 'stacks:\n  mine: [trace-count\n  other: []\n');
    const r = await mpii(['run', '-np', '2', ring], {}, dir);
    oneLineError(r, /mpii\.yaml:\d+/);
  });

  it('unknown stack', async () => {
    const r = await mpii(['run', '--stack', 'nope', '-np', '2', ring]);
    oneLineError(r, /nope/);
  });

  it('a program that is not MPI', async () => {
    const r = await mpii(['run', '-np', '2', program('openmpi', 'notmpi')]);
    oneLineError(r, /not an MPI program.*--mpi/);
  });

  it('--copy-shim without --launcher srun', async () => {
    const r = await mpii(['run', '--copy-shim', '-np', '2', ring]);
    oneLineError(r, /--copy-shim copies with Slurm's sbcast and needs --launcher srun — /);
  });

  it('--launcher srun without srun on PATH', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'mpii-nosrun-'));
    symlinkSync(process.execPath, join(bin, 'node'));
    const r = await mpii(['run', '--launcher', 'srun', '--mpi', 'openmpi', '-np', '2', ring], { PATH: bin });
    oneLineError(r, /srun not found on PATH — install Slurm's client/);
  });

  describe('--launcher srun with a Slurm that cannot start the MPI', () => {
    // an srun whose --mpi=list has no pmix, like a Slurm built without PMIx
    const bin = mkdtempSync(join(tmpdir(), 'mpii-fakesrun-'));
    writeFileSync(join(bin, 'srun'), '#!/bin/sh\n[ "$1" = --mpi=list ] || exit 99\nprintf \'MPI plugin types are...\\n\\tnone\\n\\tpmi2\\n\'\n', {
      mode: 0o755,
    });
    const env = { PATH: `${bin}:${process.env.PATH}` };
    it('Open MPI needs the pmix plugin', async () => {
      const r = await mpii(['run', '--launcher', 'srun', '-np', '2', ring], env);
      oneLineError(r, /this Slurm has no pmix MPI plugin \(srun --mpi=list: none, pmi2\), which Open MPI needs — .*drop --launcher srun/);
    });
    it("srun's --export is mpii's", async () => {
      const r = await mpii(['run', '--launcher', 'srun', '--export=NONE', '-np', '2', program('mpich', 'ring')], env);
      oneLineError(r, /mpii sets srun's --export itself — /);
    });
  });

  it('a missing program', async () => {
    const r = await mpii(['run', '-np', '2', './does-not-exist']);
    oneLineError(r, /program '\.\/does-not-exist' not found/);
  });

  it('a statically linked MPI', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-static-'));
    const fake = join(dir, 'static_app');
    // an ELF binary with MPI inside but no shared libmpi: what static linking looks like to ldd
    writeFileSync(join(dir, 's.c'), 'int PMPI_Init(int *a, char ***b) { (void) a; (void) b; return 0; }\nint main(void) { return PMPI_Init(0, 0); }\n');
    const { execaSync } = await import('execa');
    execaSync('cc', ['-o', fake, join(dir, 's.c')]);
    const r = await mpii(['run', '-np', '2', fake]);
    oneLineError(r, /static MPI/);
  });

  it('a program of the MPI-5 standard ABI (libmpi_abi.so) that no installed MPI implements: one line, not "not an MPI program"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-abi-'));
    // a library with the standard ABI's soname, and a program linking it, as mpicc_abi links one
    writeFileSync(join(dir, 'abi.c'), 'int MPI_Init(int *a, char ***b) { (void) a; (void) b; return 0; }\n');
    writeFileSync(join(dir, 'app.c'), 'int MPI_Init(int *a, char ***b);\nint main(void) { return MPI_Init(0, 0); }\n');
    const { execaSync } = await import('execa');
    execaSync('cc', ['-shared', '-fPIC', '-Wl,-soname,libmpi_abi.so.1', '-o', join(dir, 'libmpi_abi.so.1'), join(dir, 'abi.c')]);
    execaSync('cc', ['-o', join(dir, 'abi_app'), join(dir, 'app.c'), join(dir, 'libmpi_abi.so.1'), `-Wl,-rpath,${dir}`]);
    const r = await mpii(['run', '-np', '2', join(dir, 'abi_app')]);
    oneLineError(r, /cannot tell which MPI implements .*libmpi_abi\.so\.1, which .*abi_app would load — install an MPI that implements the standard ABI/);
    assert.doesNotMatch(r.stderr, /not an MPI program/);
  });

  it('no launcher for the MPI', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'mpii-path-'));
    // PATH with the compilers but no launcher: link just what mpii needs
    const { execaSync } = await import('execa');
    for (const t of ['node', 'ldd', 'mpicc.openmpi', 'opal_wrapper', 'sh', 'gcc', 'cc']) {
      const p = execaSync('sh', ['-c', `command -v ${t} || true`]).stdout.trim();
      if (p) execaSync('ln', ['-sf', p, join(bin, t)]);
    }
    const r = await mpii(['run', '-np', '2', ring], { PATH: bin });
    oneLineError(r, /no Open MPI launcher found.*apt-get install/);
  });

  it('no mpirun on PATH at all: the missing launcher is named, not the program', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'mpii-nompirun-'));
    const { execaSync } = await import('execa');
    for (const t of ['node', 'ldd', 'sh']) execaSync('ln', ['-sf', execaSync('sh', ['-c', `command -v ${t}`]).stdout.trim(), join(bin, t)]);
    const script = join(bin, 'job.sh');
    writeFileSync(script, '#!/bin/sh\nexec ./app\n', { mode: 0o755 });
    for (const prog of [program('openmpi', 'notmpi'), script]) {
      const r = await mpii(['run', '-np', '2', prog], { PATH: bin });
      oneLineError(
        r,
        /no MPI launcher on PATH \(no mpirun\.openmpi, .*mpirun.*\).* — install an MPI \(apt-get install -y openmpi-bin.*mpich.*\) or put its bin directory \(the one with mpirun\) on PATH/,
      );
      assert.doesNotMatch(r.stderr, /not an MPI program/);
      assert.equal(r.code, 2);
    }
    // and without ldd: one line, not a crash
    const noLdd = mkdtempSync(join(tmpdir(), 'mpii-noldd-'));
    symlinkSync(process.execPath, join(noLdd, 'node'));
    const r = await mpii(['run', '-np', '2', ring], { PATH: noLdd });
    oneLineError(r, /cannot run ldd .* — put ldd on PATH/);
    assert.equal(r.code, 2);
  });

  it('unknown --mpi', async () => {
    const r = await mpii(['run', '--mpi', 'lam', '-np', '2', ring]);
    oneLineError(r, /unknown MPI 'lam'/);
  });

  it('an output directory that cannot be written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-ro-'));
    // tests run as root, which ignores permission bits: a path under a regular file never works
    writeFileSync(join(dir, 'file'), '');
    const r = await mpii(['run', '--out', join(dir, 'file', 'out'), '-np', '2', ring]);
    oneLineError(r, /cannot write the output directory/);
  });

  it('an output directory that cannot be created (under /proc): an error before launch, no hang', async () => {
    for (const out of ['/proc/mpii-no-such', '/proc/mpii-no-such/a/b', '/proc/self']) {
      const r = await mpii(['run', '--out', out, '-np', '2', ring], {}, undefined, 30_000);
      oneLineError(r, /cannot write the output directory .*— pass --out DIR/);
      assert.equal(r.code, 2);
      assert.doesNotMatch(r.stderr, /launcher:/, 'nothing launched');
    }
  });

  it('a shim cache that cannot be created (XDG_CACHE_HOME under /proc): one line, no hang', async () => {
    for (const args of [
      ['build', '--mpi', 'mpich'],
      ['run', '-np', '2', ring],
    ]) {
      const r = await mpii(args, { XDG_CACHE_HOME: '/proc/mpii-no-such' }, undefined, 30_000);
      oneLineError(r, /cannot create the shim cache \/proc\/mpii-no-such\/mpii .* — set XDG_CACHE_HOME to a directory you can write/);
      assert.equal(r.code, 2);
    }
  });

  it('--out holding a profile: refused, the way out named; --force replaces it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-out-taken-'));
    const file = writeSyntheticJob(dir, 4);
    const before = readFileSync(file);
    const r = await mpii(['run', '--tools', 'trace-count', '--out', dir, '-np', '2', ring]);
    oneLineError(r, /already holds a profile \(profile\.mpii\) — add --force to replace it/);
    assert.equal(r.code, 2);
    assert.deepEqual(readFileSync(file), before, 'the old profile is untouched');
    const dry = await mpii(['run', '--dry-run', '--force', '--tools', 'trace-count', '--out', dir, '-np', '2', ring]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(readFileSync(file), before, '--dry-run --force removes nothing');
    const f = await mpii(['run', '--quiet', '--force', '--tools', 'trace-count', '--out', dir, ...launcherArgs('openmpi', 2), ring]);
    assert.equal(f.code, 0, f.stderr);
    const j = JSON.parse((await mpii(['report', '--json', dir])).stdout);
    assert.equal(j.ranks.length, 2, 'the new 2-rank run replaced the 4-rank one');
  });

  it('a run whose launch fails before any rank starts leaves no directory behind', async () => {
    const base = mkdtempSync(join(tmpdir(), 'mpii-nolaunch-'));
    const r = await mpii(['run', '--tools', 'trace-count', '--out', join(base, 'a', 'b'), '--no-such-launcher-option', '-np', '2', ring]);
    assert.notEqual(r.code, 0);
    assert.deepEqual(readdirSync(base), [], 'neither a nor a/b is left');
    // a directory that was there before stays, and so does the dry run's
    const kept = join(base, 'kept');
    mkdirSync(kept);
    assert.notEqual((await mpii(['run', '--out', kept, '--no-such-launcher-option', '-np', '2', ring])).code, 0);
    assert.equal(existsSync(kept), true);
    assert.equal((await mpii(['run', '--dry-run', '--out', join(base, 'dry'), '-np', '2', ring])).code, 0);
    assert.deepEqual(readdirSync(base), ['kept']);
    // a job that ran and succeeded keeps its directory, even empty (INJ_IGNORE: nothing recorded)
    const ran = await mpii(['run', '--tools', 'trace-count', '--out', join(base, 'ran'), ...launcherArgs('openmpi', 2), ring], { INJ_IGNORE: '1' });
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(readdirSync(base).sort(), ['kept', 'ran']);
  });

  it('mpii report --html FILE that exists: refused, --force replaces it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-html-taken-'));
    writeSyntheticJob(dir, 2);
    const html = join(dir, 'report.html');
    writeFileSync(html, 'mine');
    const r = await mpii(['report', dir, '--html', html]);
    oneLineError(r, /report\.html already exists — add --force to replace it/);
    assert.equal(r.code, 2);
    assert.equal(readFileSync(html, 'utf8'), 'mine');
    const f = await mpii(['report', dir, '--html', html, '--force']);
    assert.equal(f.code, 0, f.stderr);
    assert.match(readFileSync(html, 'utf8'), /^<!doctype html>/i);
  });

  it('mpii report --csv/--prof over files that exist: refused, --force replaces them; under /proc: an error, no hang', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-files-taken-'));
    writeSyntheticJob(dir, 2);
    assert.equal((await mpii(['report', dir, '--csv', join(dir, 'csv'), '--prof', join(dir, 'p', 'x')])).code, 0);
    writeFileSync(join(dir, 'p', 'x.1.prof'), 'mine');
    const r = await mpii(['report', dir, '--prof', join(dir, 'p', 'x')]);
    oneLineError(r, /x\.0\.prof already exists \(and 1 more of the files to write\) — add --force to replace them/);
    assert.equal(readFileSync(join(dir, 'p', 'x.1.prof'), 'utf8'), 'mine');
    oneLineError(await mpii(['report', dir, '--csv', join(dir, 'csv')]), /p2p_count\.csv already exists/);
    assert.equal((await mpii(['report', dir, '--csv', join(dir, 'csv'), '--prof', join(dir, 'p', 'x'), '--force'])).code, 0);
    assert.notEqual(readFileSync(join(dir, 'p', 'x.1.prof'), 'utf8'), 'mine');
    const proc = await mpii(['report', dir, '--csv', '/proc/mpii-no-such/csv'], {}, undefined, 30_000);
    oneLineError(proc, /cannot create \/proc\/mpii-no-such\/csv for --csv/);
  });

  it('mpii report given the profile file reads its directory; a look-alike is a clear error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-report-file-'));
    writeSyntheticJob(dir, 2);
    const byDir = await mpii(['report', '--json', dir]);
    const byFile = await mpii(['report', '--json', join(dir, 'profile.mpii')]);
    assert.equal(byFile.code, 0, byFile.stderr);
    assert.deepEqual(JSON.parse(byFile.stdout), JSON.parse(byDir.stdout));
    // a directory where the profile file should be
    const odd = mkdtempSync(join(tmpdir(), 'mpii-report-odd-'));
    mkdirSync(join(odd, 'profile.mpii'));
    const r = await mpii(['report', odd]);
    oneLineError(r, /profile\.mpii is not a file \(a directory of the profile's name\)/);
    assert.doesNotMatch(r.stderr, /mpii bug/);
    const r2 = await mpii(['report', join(odd, 'profile.mpii')]);
    oneLineError(r2, /holds no mpii profile/);
    assert.doesNotMatch(r2.stderr, /mpii bug/);
    writeFileSync(join(odd, 'notes.txt'), 'x');
    oneLineError(await mpii(['report', join(odd, 'notes.txt')]), /notes\.txt is not an mpii output directory/);
  });

  it('no program at all', async () => {
    const r = await mpii(['run', '-np', '2']);
    oneLineError(r, /no program to run/);
  });

  it('mpii report on an empty directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-empty-'));
    const r = await mpii(['report', dir]);
    oneLineError(r, /holds no mpii profile/);
  });

  it('mpii report on a missing directory', async () => {
    const r = await mpii(['report', outDir('missing')]);
    oneLineError(r, /does not exist/);
  });
});

// Bad input: one clear line naming the problem and the fix, a non-zero exit, no stack trace.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launcherArgs, mpii, outDir, program } from './helpers.js';
import { rankImage, synthRank, writeGathered, writeSyntheticJob } from '../src/profile-file/synthetic.js';
import { readProfile } from '../src/profile-file/read.js';
import { formatSummary, summaryJson } from '../src/report/summary.js';
import { listStacks, listTools, resolveStack } from '../src/config/resolve.js';
import { DEFAULTS_FILE } from '../src/cli/run.js';
import { MpiiError } from '../src/errors.js';
import { checkToolLibraries } from '../src/elf.js';

function oneLineError(r: { code: number; stderr: string }, pattern: RegExp): void {
  assert.notEqual(r.code, 0);
  const lines = r.stderr.trim().split('\n').filter((l) => l.startsWith('mpii:'));
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at .*\.js:\d+/, 'no stack trace');
}

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
    writeFileSync(join(bin, 'srun'), '#!/bin/sh\n[ "$1" = --mpi=list ] || exit 99\nprintf \'MPI plugin types are...\\n\\tnone\\n\\tpmi2\\n\'\n', { mode: 0o755 });
    const env = { PATH: `${bin}:${process.env.PATH}` };
    it('Open MPI needs the pmix plugin', async () => {
      const r = await mpii(['run', '--launcher', 'srun', '-np', '2', ring], env);
      oneLineError(r, /this Slurm has no pmix MPI plugin \(srun --mpi=list: none, pmi2\), which Open MPI needs — .*drop --launcher srun/);
    });
    it('srun\'s --export is mpii\'s', async () => {
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
      oneLineError(r, /no MPI launcher on PATH \(no mpirun\.openmpi, .*mpirun.*\).* — install an MPI \(apt-get install -y openmpi-bin.*mpich.*\) or put its bin directory \(the one with mpirun\) on PATH/);
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
    for (const args of [['build', '--mpi', 'mpich'], ['run', '-np', '2', ring]]) {
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

  describe('mpii report on a damaged profile: one line, exit ≠ 0, no HTML written', () => {
    /** A fresh synthetic 4-rank job with monitor and profile data; returns its profile.mpii. */
    const job = (): { dir: string; file: string; bytes: Buffer } => {
      const dir = mkdtempSync(join(tmpdir(), 'mpii-bad-'));
      const file = writeSyntheticJob(dir, 4);
      return { dir, file, bytes: readFileSync(file) };
    };
    const both = async (dir: string, pattern: RegExp) => {
      oneLineError(await mpii(['report', dir]), pattern);
      const html = join(dir, 'report.html');
      oneLineError(await mpii(['report', dir, '--html', html]), pattern);
      assert.equal(existsSync(html), false);
      oneLineError(await mpii(['report', dir, '--json']), pattern);
    };

    it('truncated', async () => {
      const { dir, file, bytes } = job();
      writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
      await both(dir, /profile\.mpii.*truncated.*re-run the job/);
    });

    it('cut inside the file header', async () => {
      const { dir, file, bytes } = job();
      writeFileSync(file, bytes.subarray(0, 10));
      await both(dir, /not an mpii profile/);
    });

    it('a corrupt record', async () => {
      const { dir, file, bytes } = job();
      const b = Buffer.from(bytes);
      b.writeUInt32LE(77, 16 + 144); // rank 0's first record: an unknown kind
      writeFileSync(file, b);
      await both(dir, /corrupt|unknown record kind 77/);
      b.writeUInt32LE(3, 16 + 144);
      b.writeUInt32LE(0x7fffffff, 16 + 144 + 16); // a name longer than the image
      writeFileSync(file, b);
      await both(dir, /corrupt record/);
    });

    it('garbage over the data', async () => {
      const { dir, file, bytes } = job();
      const b = Buffer.from(bytes);
      for (let i = 200; i < b.length - 100; i += 7) b[i] = (i * 131) & 0xff;
      writeFileSync(file, b);
      const r = await mpii(['report', dir]);
      oneLineError(r, /^mpii: /);
    });

    it('a broken JSON block of a tool', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mpii-bad-json-'));
      writeGathered(dir, 1, (r) => ({ rank: r, size: 1, tools: { 1: 'monitor' }, texts: [{ tool: 1, name: 'memory', text: '{"table_bytes": 8' }],
        counters: [{ tool: 1, name: 'peers', length: 74, entries: [] }] }));
      await both(dir, /monitor's 'memory' block is corrupt/);
    });

    it('a profile from a newer mpii', async () => {
      const { dir, file, bytes } = job();
      const b = Buffer.from(bytes);
      b.writeUInt32LE(99, 8);
      writeFileSync(file, b);
      await both(dir, /written by a newer mpii \(format 99, this one reads \d+\).*upgrade mpii/);
    });

    it('a rank image from a newer mpii', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mpii-bad-newer-'));
      writeGathered(dir, 2, (r) => ({ rank: r, size: 2, tools: { 1: 'noop' } }));
      const file = join(dir, 'profile.mpii');
      const b = readFileSync(file);
      b.writeUInt32LE(7, 16 + 8); // rank 0's image header
      writeFileSync(file, b);
      await both(dir, /rank 0\) was written by a newer mpii \(format 7/);
    });

    it('an empty directory', async () => {
      await both(mkdtempSync(join(tmpdir(), 'mpii-empty-')), /holds no mpii profile/);
    });

    it('--html into a directory that does not exist', async () => {
      const { dir } = job();
      oneLineError(await mpii(['report', dir, '--html', join(dir, 'no', 'such', 'dir', 'r.html')]), /cannot write .*r\.html \(ENOENT\)/);
    });
  });
});

// ---------------------------------------------------------------- fuzzing
// Seeded, so every run tries the same inputs and a failure names one that can be replayed.

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): { next: () => number; int: (n: number) => number; pick: <T>(xs: readonly T[]) => T } {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: (xs) => xs[int(xs.length)] };
}

/** Runs `fn` on each input: it may succeed or throw an MpiiError, nothing else. Returns the failures. */
function expectOnlyMpiiErrors(what: string, inputs: Iterable<[string, () => void]>): { tried: number; rejected: number; failures: string[] } {
  let tried = 0;
  let rejected = 0;
  const failures: string[] = [];
  for (const [label, fn] of inputs) {
    tried++;
    try {
      fn();
    } catch (e) {
      if (e instanceof MpiiError) rejected++;
      else failures.push(`${what} ${label}: ${(e as Error).stack?.split('\n').slice(0, 3).join(' | ') ?? e}`);
    }
  }
  console.log(`fuzz: ${tried} ${what} inputs tried: ${rejected} rejected with an MpiiError, ${tried - rejected - failures.length} accepted, ${failures.length} other failures`);
  return { tried, rejected, failures };
}

const INTERESTING = [0, 1, 2, 3, 4, 7, 8, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff];

/** A damaged copy of `b`: truncations, bit flips, 32-bit words overwritten, bytes inserted or
 * dropped; mostly in the first 512 bytes, where the headers and the first records are. */
function mutate(b: Buffer, r: ReturnType<typeof prng>): { bytes: Buffer; how: string } {
  let out = Buffer.from(b);
  const how: string[] = [];
  const at = () => (r.next() < 0.6 ? r.int(Math.min(out.length, 512)) : r.int(out.length));
  for (let k = 1 + r.int(4); k > 0 && out.length > 0; k--) {
    const op = r.int(5);
    if (op === 0) {
      const n = r.int(out.length);
      out = out.subarray(0, n);
      how.push(`cut@${n}`);
    } else if (op === 1) {
      const i = at();
      const bit = r.int(8);
      out[i] ^= 1 << bit;
      how.push(`flip@${i}.${bit}`);
    } else if (op === 2 && out.length >= 4) {
      const i = Math.min(at() & ~3, out.length - 4);
      const v = r.next() < 0.7 ? r.pick(INTERESTING) : r.int(0x100000000);
      out.writeUInt32LE(v >>> 0, i);
      how.push(`u32@${i}=${v}`);
    } else if (op === 3) {
      const i = at();
      out = Buffer.concat([out.subarray(0, i), Buffer.alloc(1 + r.int(16), r.int(256)), out.subarray(i)]);
      how.push(`insert@${i}`);
    } else {
      const i = at();
      const n = 1 + r.int(16);
      out = Buffer.concat([out.subarray(0, i), out.subarray(i + n)]);
      how.push(`drop@${i}+${n}`);
    }
  }
  return { bytes: out, how: how.join(',') };
}

/** Reads everything of a profile, as the report would: the lazily read counters too. */
function readAll(dir: string, report: boolean): void {
  const p = readProfile(dir);
  for (const rank of p.ranks) {
    for (const c of rank.counters) {
      void c.nonzero.size;
      let n = 0;
      c.forEach(() => { n++; });
      void c.words().entries;
    }
  }
  if (report) {
    summaryJson(p);
    formatSummary(p, {});
  }
}

describe('fuzz (seeded)', () => {
  it('the profile reader: damaged profile.mpii and rank-*.live files give an MpiiError or a profile, nothing else', { timeout: 300_000 }, () => {
    const r = prng(0x6d706969); // "mpii"
    const base = mkdtempSync(join(tmpdir(), 'mpii-fuzz-profile-'));
    const sources: { name: string; file: string; bytes: Buffer }[] = [];
    const gathered = join(base, 'gathered');
    sources.push({ name: 'profile.mpii', file: 'profile.mpii', bytes: readFileSync(writeSyntheticJob(gathered, 4)) });
    sources.push({ name: 'profile.mpii (1 rank)', file: 'profile.mpii', bytes: readFileSync(writeSyntheticJob(join(base, 'one'), 1)) });
    sources.push({ name: 'rank-1.live', file: 'rank-1.live', bytes: rankImage({ ...synthRank(2, 1), state: 'running' }) });
    const work = join(base, 'work');
    mkdirSync(work);
    const N = 2500;
    function* inputs(): Generator<[string, () => void]> {
      for (let i = 0; i < N; i++) {
        const src = sources[i % sources.length];
        const { bytes, how } = mutate(src.bytes, r);
        yield [`#${i} ${src.name} ${how}`, () => {
          for (const f of readdirSync(work)) rmSync(join(work, f), { force: true });
          writeFileSync(join(work, src.file), bytes);
          if (src.file.endsWith('.live')) writeFileSync(join(work, 'rank-0.live'), rankImage({ ...synthRank(2, 0), state: 'running' }));
          readAll(work, i % 5 === 0); // every fifth through the whole text and JSON report too
        }];
      }
    }
    const { tried, rejected, failures } = expectOnlyMpiiErrors('profile', inputs());
    assert.ok(rejected > tried / 10 && rejected < tried, 'the damage is varied: some inputs are refused, some pass');
    assert.deepEqual(failures.slice(0, 10), []);
  });

  it('the YAML configuration: damaged files give an MpiiError or a configuration, nothing else', { timeout: 300_000 }, () => {
    const r = prng(0x79616d6c); // "yaml"
    const defaults = readFileSync(DEFAULTS_FILE, 'utf8');
    const user = [
      'tools:',
      '  mine:',
      '    path: ./libmine.so',
      '    description: my tool',
      '    options:',
      '      level: { type: int, default: 2, min: 0, max: 9 }',
      '      mode: { type: enum, values: [fast, slow], default: fast }',
      'stacks:',
      '  base: &b [trace-count, { profile: { depth: 2, top: 5 } }]',
      '  mon: [monitor, { trace-count: { top: 3 } }]',
      '  both: [memcheck, overlap]',
      'default-stack: mon',
      '',
    ].join('\n');
    const TOKENS = [':', ': ', '-', '- ', '[', ']', '{', '}', ',', '&a ', '*a', '*b', '<<: *b', '!!int ', '!!str ', '!!binary ', '"', "'", '#', '\t', '  ', '\n',
      '|', '>', '? ', '%YAML 1.2\n', '---\n', '...\n', 'null', '~', 'true', 'no', '-1', '1e309', '0x10', '.nan', 'tools', 'stacks', 'default-stack',
      'options', 'type', 'int', 'enum', 'values', 'builtin', 'path', 'min', 'max', 'default', 'trace-count', 'profile', '/', '\\', '\u0000'];
    const mutateText = (t: string): { text: string; how: string } => {
      let lines = t.split('\n');
      const how: string[] = [];
      for (let k = 1 + r.int(3); k > 0; k--) {
        const op = r.int(5);
        const i = r.int(lines.length);
        if (op === 0) { lines.splice(i, 1); how.push(`del ${i}`); }
        else if (op === 1) { lines.splice(i, 0, lines[r.int(lines.length)] ?? ''); how.push(`dup ${i}`); }
        else if (op === 2) {
          const l = lines[i] ?? '';
          const at = r.int(l.length + 1);
          const tok = r.pick(TOKENS);
          lines[i] = l.slice(0, at) + tok + l.slice(at);
          how.push(`ins ${i}:${at} ${JSON.stringify(tok)}`);
        } else if (op === 3) {
          const l = lines[i] ?? '';
          const at = r.int(l.length + 1);
          lines[i] = l.slice(0, at) + l.slice(at + 1 + r.int(4));
          how.push(`cut ${i}:${at}`);
        } else { lines = lines.slice(0, i); how.push(`end ${i}`); }
      }
      return { text: lines.join('\n'), how: how.join(',') };
    };
    const dir = mkdtempSync(join(tmpdir(), 'mpii-fuzz-yaml-'));
    const env = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg') };
    const N = 1500;
    function* inputs(): Generator<[string, () => void]> {
      for (let i = 0; i < N; i++) {
        const onDefaults = i % 3 === 0; // the shipped file (builtins allowed) or a user's mpii.yaml
        const { text, how } = mutateText(onDefaults ? defaults : user);
        yield [`#${i} ${onDefaults ? 'tools.yaml' : 'mpii.yaml'} ${how}`, () => {
          const defaultsFile = join(dir, 'tools.yaml');
          writeFileSync(defaultsFile, onDefaults ? text : defaults);
          writeFileSync(join(dir, 'mpii.yaml'), onDefaults ? '' : text);
          const req = { env, cwd: dir, defaultsFile };
          listTools(req);
          listStacks(req);
          resolveStack({ ...req, stack: r.pick([undefined, 'base', 'mon', 'both', 'count']) });
        }];
      }
    }
    const { tried, rejected, failures } = expectOnlyMpiiErrors('yaml', inputs());
    assert.ok(rejected > tried / 10 && rejected < tried, 'the damage is varied: some inputs are refused, some pass');
    assert.deepEqual(failures.slice(0, 10), []);
  });

  it('--tools strings and tool options: an MpiiError or a stack, nothing else', { timeout: 300_000 }, () => {
    const r = prng(0x746f6f6c); // "tool"
    const dir = mkdtempSync(join(tmpdir(), 'mpii-fuzz-tools-'));
    writeFileSync(join(dir, 'text.so'), 'not a library');
    const env = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg') };
    const TOKENS = ['noop', 'trace-count', 'profile', 'monitor', 'memcheck', 'overlap', 'trace-cont', 'x', '[', ']', '=', ';', ',', ',', ' ', '',
      'top', 'depth', 'sample', 'sites', 'mode', 'matrix', 'prof', 'strict', 'fatal', 'pending', 'chain-threshold', 'heap-min',
      '5', '0', '-1', '1e3', '99999999999999999999', '0x10', 'NaN', 'true', 'false', 'yes', 'adaptive', 'paging', 'all', 'off',
      './text.so', '/nonexistent/lib.so', 'lib.so', '~/x.so', '/', '.', '..', '\\', '"', "'", '%', '\u00e9', '\n', '\u0000', '[]', '[=]', '[a=b=c]'];
    const N = 3000;
    function* inputs(): Generator<[string, () => void]> {
      for (let i = 0; i < N; i++) {
        const n = 1 + r.int(10);
        let spec = '';
        for (let k = 0; k < n; k++) spec += r.pick(TOKENS);
        yield [`#${i} ${JSON.stringify(spec)}`, () => {
          checkToolLibraries(resolveStack({ tools: spec, env, cwd: dir, defaultsFile: DEFAULTS_FILE }).tools);
        }];
        // the same tokens as $TOOLS (colon-separated, no options)
        const envSpec = spec.replace(/,/g, ':');
        yield [`#${i} TOOLS=${JSON.stringify(envSpec)}`, () => {
          resolveStack({ env: { ...env, TOOLS: envSpec }, cwd: dir, defaultsFile: DEFAULTS_FILE });
        }];
      }
    }
    const { tried, rejected, failures } = expectOnlyMpiiErrors('tools', inputs());
    assert.deepEqual(failures.slice(0, 10), []);
  });

  it('the tool library check: damaged ELF files give an MpiiError or pass, nothing else', { timeout: 300_000 }, async () => {
    const r = prng(0x656c6621); // "elf!"
    const dir = mkdtempSync(join(tmpdir(), 'mpii-fuzz-elf-'));
    writeFileSync(join(dir, 't.c'), 'int mpii_tool_x(void) { return 1; }\n');
    const { execaSync } = await import('execa');
    execaSync('cc', ['-shared', '-fPIC', '-o', join(dir, 'good.so'), join(dir, 't.c')]);
    const good = readFileSync(join(dir, 'good.so'));
    const file = join(dir, 'lib.so');
    function* inputs(): Generator<[string, () => void]> {
      for (let i = 0; i < 2000; i++) {
        const { bytes, how } = mutate(good, r);
        yield [`#${i} ${how}`, () => {
          writeFileSync(file, bytes);
          checkToolLibraries([{ name: 'lib.so', kind: 'external', path: file }]);
        }];
      }
    }
    const { tried, rejected, failures } = expectOnlyMpiiErrors('ELF', inputs());
    // only the ELF header and the dynamic section are read: most damage elsewhere passes
    assert.ok(rejected > 0 && rejected < tried, 'some inputs are refused, some pass');
    assert.deepEqual(failures.slice(0, 10), []);
  });
});

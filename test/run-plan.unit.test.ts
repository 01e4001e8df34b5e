// `mpii run`'s plan (src/run/plan.ts) and the choice of its shim (src/run/shim-choice.ts), from
// made-up facts: the MPI detected, the shim built, the launcher found are given, so no MPI, no
// compiler and no job. What --dry-run prints is describePlan's lines (test/shim.test.ts runs it
// for real on both MPIs).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveStack } from '../src/config/resolve.js';
import { mpirunLauncher } from '../src/launch/adapters.js';
import { parseRunArgs } from '../src/launch/args.js';
import type { Detected } from '../src/mpi/detect.js';
import type { FlavorName, ShimFlavor } from '../src/mpi/flavors.js';
import { describePlan, planRun, type RunFacts } from '../src/run/plan.js';
import { chooseShim, type ShimChoice } from '../src/run/shim-choice.js';
import type { Shim } from '../src/shim/shim.js';
import type { ToolManifest } from '../src/tools/manifest.js';
import { ROOT } from './helpers.js';

const HOME = mkdtempSync(join(tmpdir(), 'mpii-plan-'));
const DEFAULTS = join(ROOT, 'config', 'tools.yaml');

const shimOf = (flavor: ShimFlavor, dir = '/cache/k1'): Shim => ({
  flavor,
  mpiVersion: flavor === 'openmpi' ? 'Open MPI v4.1.2' : 'MPICH Version: 4.0',
  home: dir,
  library: `${dir}/libmpii.so`,
  archive: `${dir}/libmpii.a`,
  includeDir: `${dir}/include`,
  functions: 405,
  fromCache: true,
});

function facts(argv: string[], o: { env?: NodeJS.ProcessEnv; flavor?: FlavorName; python?: Detected['python']; shim?: Partial<ShimChoice> } = {}): RunFacts {
  const env = { HOME, ...o.env };
  const args = parseRunArgs(argv, env);
  const flavor = o.flavor ?? 'openmpi';
  const stack = resolveStack({ tools: args.tools, env, cwd: HOME, defaultsFile: DEFAULTS });
  const launcherPath = flavor === 'openmpi' ? '/usr/bin/mpirun.openmpi' : '/usr/bin/mpirun.mpich';
  return {
    args,
    env,
    cwd: '/work',
    host: 'node1',
    pid: 4242,
    cacheDir: '/cache',
    stack,
    mpi: { flavor, how: 'ldd: libmpi.so.40', program: args.program!, python: o.python },
    launcher: mpirunLauncher(flavor, launcherPath, args.launcherArgs, env),
    outDir: '/work/out',
    shim: { shim: shimOf(flavor), chained: '--chained', ...o.shim },
  };
}

describe('the plan of a run', () => {
  it('a C program on Open MPI: the ranks variables in order, the launcher command, the files, the dry-run lines', () => {
    const plan = planRun(facts(['--chained', '--tools', 'trace-count[top=3]', '--out', 'out', '-np', '2', './app', '5']));
    assert.deepEqual(Object.keys(plan.vars), ['LD_PRELOAD', 'TOOLS', 'MPII_OUT', 'MPII_RUN_MARK', 'MPII_OPT_1', 'MPII_REPORT_OPTIONS']);
    assert.equal(plan.vars.LD_PRELOAD, '/cache/k1/libmpii.so');
    assert.equal(plan.vars.MPII_OPT_1, 'top=3');
    assert.equal(plan.runMark, '/work/out/.mpii-run-node1-4242');
    assert.equal(plan.launch.command, '/usr/bin/mpirun.openmpi');
    assert.deepEqual(plan.launch.args.slice(0, 4), ['-x', 'LD_PRELOAD=/cache/k1/libmpii.so', '-x', 'TOOLS=trace-count']);
    assert.deepEqual(plan.launch.args.slice(-4), ['-np', '2', './app', '5']);
    assert.deepEqual(plan.links, []);
    assert.equal(plan.background, undefined);
    assert.deepEqual(plan.runInfo, {
      command: ['./app', '5'],
      launcher: 'mpirun.openmpi',
      launcherArgs: ['-np', '2'],
      cwd: '/work',
      mpi: 'Open MPI v4.1.2',
      flavor: 'openmpi',
      tools: [{ name: 'trace-count', options: { top: 3 } }],
    });
    assert.equal(plan.banner, 'mpii: Open MPI, launcher: mpirun.openmpi, tools: trace-count, out: /work/out');
    const lines = describePlan(plan);
    assert.deepEqual(lines.slice(0, 3), [
      '# MPI: Open MPI (ldd: libmpi.so.40); shim /cache/k1/libmpii.so (cached)',
      '# tools: trace-count (from --tools); chained (--chained)',
      'LD_PRELOAD=/cache/k1/libmpii.so',
    ]);
    assert.ok(lines.includes(`MPII_REPORT_OPTIONS='{"trace-count":{"top":3}}'`), lines.join('\n'));
    assert.match(lines.at(-1)!, /^\/usr\/bin\/mpirun\.openmpi -x LD_PRELOAD=\/cache\/k1\/libmpii\.so -x TOOLS=trace-count .* -np 2 \.\/app 5$/);
  });

  it('MPICH: the variables as -genv NAME VALUE', () => {
    const plan = planRun(facts(['--tools', 'noop', '-np', '2', './app'], { flavor: 'mpich' }));
    assert.deepEqual(plan.launch.args.slice(0, 3), ['-genv', 'LD_PRELOAD', '/cache/k1/libmpii.so']);
  });

  it("the user's LD_PRELOAD stays after the shim; INJ_IGNORE and INJ_DEBUG are passed on when set; --pvar names once each", () => {
    const plan = planRun(
      facts(['--tools', 'noop', '--pvar', 'a,b', '--pvar', 'a', '-np', '2', './app'], { env: { LD_PRELOAD: '/usr/lib/libfoo.so', INJ_DEBUG: '-2' } }),
    );
    assert.equal(plan.vars.LD_PRELOAD, '/cache/k1/libmpii.so:/usr/lib/libfoo.so');
    assert.equal(plan.vars.INJ_DEBUG, '-2');
    assert.equal(plan.vars.INJ_IGNORE, undefined);
    assert.equal(plan.vars.MPII_PVARS, 'a,b');
  });

  it('a stack of built-in tools: compiled in when its shim is cached; else chained, its shim built in the background', () => {
    const manifests = [{ name: 'noop' } as ToolManifest];
    const specialised = planRun(facts(['--tools', 'noop', './app'], { shim: { specialise: manifests, chained: undefined } }));
    assert.match(specialised.describe[1], /; specialised: compiled into one wrapper per function$/);
    const first = planRun(
      facts(['--tools', 'noop', './app'], {
        shim: { specialise: manifests, chained: 'the compiled-in stack noop builds in the background', background: manifests },
      }),
    );
    assert.equal(first.background?.stack, 'noop');
    assert.equal(first.background?.shim.library, '/cache/k1/libmpii.so');
  });

  it('a Python program: its call-site helper, the ABI mpi4py chose, the MPI library under the soname the extension wants', () => {
    const python = {
      include: '/usr/include/python3.12',
      abi: 'openmpi',
      abiLink: { soname: 'libmpi.so.12', target: '/usr/lib/x86_64-linux-gnu/libmpi.so.40' },
    };
    const f = { ...facts(['--tools', 'noop', '-np', '2', 'python3', 'app.py'], { python, env: { LD_LIBRARY_PATH: '/opt/lib', MPI4PY_RC_THREADS: '0' } }) };
    const plan = planRun({ ...f, pythonSites: { library: '/cache/pysite.so' } });
    assert.equal(plan.vars.MPII_PYSITE, '/cache/pysite.so');
    assert.equal(plan.vars.MPI4PY_RC_THREADS, '0');
    assert.equal(plan.vars.MPI4PY_MPIABI, 'openmpi');
    assert.equal(plan.vars.LD_LIBRARY_PATH, '/cache/abi-names:/opt/lib');
    assert.deepEqual(plan.links, [{ path: '/cache/abi-names/libmpi.so.12', target: '/usr/lib/x86_64-linux-gnu/libmpi.so.40' }]);
    assert.deepEqual(plan.notes, ['the extension needs libmpi.so.12, which this system names libmpi.so.40: the ranks find it in /cache/abi-names']);
    // the user's choices win: their MPII_PYSITE (empty: none), their MPI4PY_MPIABI
    const theirs = planRun({ ...facts(['python3', 'app.py'], { python, env: { MPII_PYSITE: '', MPI4PY_MPIABI: 'mpich' } }), pythonSites: { given: '' } });
    assert.equal(theirs.vars.MPII_PYSITE, '');
    assert.equal(theirs.vars.MPI4PY_MPIABI, 'mpich');
    const none = planRun({ ...facts(['python3', 'app.py'], { python: { include: undefined } }), pythonSites: { problem: 'no Python.h' } });
    assert.equal(none.vars.MPII_PYSITE, undefined);
    assert.deepEqual(none.notes, ["call sites show mpi4py's C frames, not Python lines: no Python.h"]);
  });

  it('--copy-shim: the ranks load the copies, the plan names what is copied where', () => {
    const plan = planRun({ ...facts(['--tools', 'noop', './app']), job: { jobId: '77', nodes: 2 } });
    assert.equal(plan.copies?.files.length, 1);
    const [from, to] = plan.copies!.files[0];
    assert.equal(from, '/cache/k1/libmpii.so');
    assert.equal(plan.vars.LD_PRELOAD, to);
    assert.ok(plan.describe.includes(`# --copy-shim: sbcast ${from} ${to}`));
  });

  it('is pure: the same facts make the same plan, and planning makes no file', () => {
    const f = facts(['--tools', 'noop', '--out', '/work/out', './app']);
    assert.deepEqual(planRun(f), planRun(f));
    assert.equal(existsSync(f.outDir), false);
  });
});

describe('the shim a run uses', () => {
  const tools = resolveStack({ tools: 'noop', env: { HOME }, cwd: HOME, defaultsFile: DEFAULTS }).tools;
  const builds: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'mpii-choice-'));
  const build = async (flavor: ShimFlavor, quiet: boolean, _env: NodeJS.ProcessEnv, _force: boolean, specialise?: ToolManifest[], quick?: ToolManifest[]) => {
    const names = (ms: ToolManifest[]) => ms.map((m) => m.name).join(',');
    builds.push(`${flavor}${specialise ? `+${names(specialise)}` : ''}${quick ? ` quick[${names(quick)}]` : ''}${quiet ? ' quiet' : ''}`);
    return shimOf(flavor, dir);
  };
  // the general shim is cached unless a test says otherwise
  const cached = async () => ({ cached: true, key: 'mpich-0123' });
  const notCached = async () => ({ cached: false, key: 'mpich-0123' });
  const o = { quiet: false, dryRun: false, chained: false };

  it('--chained and MPII_SPECIALISE=0: the general shim, chained, and why', async () => {
    builds.length = 0;
    assert.equal((await chooseShim('openmpi', { ...o, chained: true }, tools, {}, build, cached)).chained, '--chained');
    assert.equal((await chooseShim('openmpi', o, tools, { MPII_SPECIALISE: '0' }, build, cached)).chained, 'MPII_SPECIALISE=0');
    assert.deepEqual(builds, ['openmpi', 'openmpi']);
  });

  it('not cached: chained now, built in the background (a dry run starts nothing); MPII_BUILD=wait builds it first', async () => {
    builds.length = 0;
    const run = await chooseShim('mpich', o, tools, {}, build, cached);
    assert.equal(run.chained, 'the compiled-in stack noop builds in the background');
    assert.deepEqual(
      run.background?.map((m) => m.name),
      ['noop'],
    );
    const dry = await chooseShim('mpich', { ...o, dryRun: true }, tools, {}, build, cached);
    assert.equal(dry.chained, 'the compiled-in stack noop is not built yet: a run builds it in the background');
    assert.equal(dry.background, undefined);
    const wait = await chooseShim('mpich', o, tools, { MPII_BUILD: 'wait' }, build, cached);
    assert.equal(wait.chained, undefined);
    assert.deepEqual(builds, ['mpich', 'mpich quiet', 'mpich+noop']);
    await assert.rejects(chooseShim('mpich', { ...o, chained: true }, tools, { MPII_BUILD: 'later' }, build, cached), /MPII_BUILD=later is not a build mode/);
  });

  it('the first run on an MPI: a quick shim of the stack now, the general shim then the stack in the background', async () => {
    builds.length = 0;
    const run = await chooseShim('mpich', o, tools, {}, build, notCached);
    assert.equal(run.general, 'mpich-0123', 'the general shim of that key is built first');
    assert.deepEqual(
      run.background?.map((m) => m.name),
      ['noop'],
      'then the compiled-in stack',
    );
    assert.match(run.chained!, /first run on this MPI: a quick shim/);
    const chained = await chooseShim('mpich', { ...o, chained: true }, tools, {}, build, notCached);
    assert.equal(chained.general, 'mpich-0123');
    assert.deepEqual(chained.background, [], '--chained: no compiled-in stack to build after it');
    const dry = await chooseShim('mpich', { ...o, dryRun: true }, tools, {}, build, notCached);
    assert.equal(dry.background, undefined, 'a dry run starts nothing');
    assert.equal(dry.general, undefined);
    // MPII_BUILD=wait waits for the general shim and the stack, as on any run
    const wait = await chooseShim('mpich', o, tools, { MPII_BUILD: 'wait' }, build, notCached);
    assert.equal(wait.general, undefined);
    assert.deepEqual(builds, ['mpich quick[noop]', 'mpich quick[noop]', 'mpich quick[noop] quiet', 'mpich+noop']);
  });

  it('the first run of an external tool alone: a quick shim with no built-in tool', async () => {
    builds.length = 0;
    const none = resolveStack({ tools: '', env: { HOME }, cwd: HOME, defaultsFile: DEFAULTS }).tools;
    const run = await chooseShim('openmpi', o, none, {}, build, notCached);
    assert.deepEqual(builds, ['openmpi quick[]']);
    assert.deepEqual(run.background, []);
  });
});

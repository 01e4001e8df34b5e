// MPI_T both ways. The shim as an MPI_T provider: the Inria report's two monitoring programs
// (phases with flush; per-peer counts with MPI_Allreduce) run unchanged under mpii on MPICH and
// give Open MPI's per-phase .prof files; any MPI_T client sees the library's variables unchanged
// plus the tools'. The library's variables in mpii: `mpii pvars`/`cvars` (koffi), `run --pvar`.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, execaSync } from 'execa';
import { FLAVORS, ROOT, TEST_ENV, launcherArgs, ompiMonitoring, mpii, outDir, program, shimInfo, type Flavor } from './helpers.js';
import type { PvarInfo } from '../src/mpit/library.js';
import { parseProf } from './monitor-jobs.js';

const NP = 4; // the report's examples run on 4 processes

/** mpii's phase file against Open MPI's: the same user messages (E, histogram apart from the
 *  library's internal messages, which Open MPI adds to it), one-sided and collective lines, and
 *  the same D blocks for the communicators both know. */
function sameAsOpenMpi(ours: string, theirs: string, where: string): void {
  const o = parseProf(ours);
  const t = parseProf(theirs);
  const peers = new Set([...(o.lines.get('E')?.keys() ?? []), ...(t.lines.get('E')?.keys() ?? [])]);
  for (const p of peers) {
    const a = o.lines.get('E')?.get(p);
    const b = t.lines.get('E')?.get(p);
    assert.ok(a && b, `${where}: E line to ${p} in one file only`);
    assert.deepEqual({ bytes: a.bytes, msgs: a.msgs }, { bytes: b.bytes, msgs: b.msgs }, `${where}: E → ${p}`);
    const extra = b.hist!.map((v, i) => v - a.hist![i]);
    assert.ok(
      extra.every((v) => v >= 0),
      `${where}: histogram to ${p}`,
    );
    assert.equal(
      extra.reduce((x, y) => x + y, 0),
      t.lines.get('I')?.get(p)?.msgs ?? 0,
      `${where}: histogram to ${p} beyond internal messages`,
    );
  }
  for (const letter of ['S', 'R', 'C']) {
    assert.deepEqual(
      [...(o.lines.get(letter) ?? new Map()).entries()].sort(),
      [...(t.lines.get(letter) ?? new Map()).entries()].sort(),
      `${where}: ${letter} lines`,
    );
  }
  for (const name of ['MPI_COMM_WORLD', 'MPI_COMM_SELF']) {
    assert.deepEqual(o.comms.get(name), t.comms.get(name), `${where}: D block of ${name}`);
  }
}

function compile(f: Flavor, name: string, defines: string[], tag: string): string {
  const dir = join(tmpdir(), `mpii-test-programs-${process.getuid?.() ?? 0}`, f);
  mkdirSync(dir, { recursive: true });
  const out = join(dir, `${name}-${tag}`);
  execaSync(`mpicc.${f}`, ['-O2', '-g', ...defines, '-o', out, join(ROOT, 'test', 'programs', `${name}.c`)]);
  return out;
}

/** Runs the phases program under mpii + monitor; returns the directory holding prof/. */
async function phasesUnderMpii(f: Flavor, extraTools = ''): Promise<string> {
  const cwd = mkdtempSync(join(tmpdir(), `mpii-phases-${f}-`));
  mkdirSync(join(cwd, 'prof'));
  const r = await mpii(
    ['run', '--quiet', '--tools', `monitor${extraTools}`, '--out', join(cwd, 'out'), ...launcherArgs(f, NP), program(f, 'mpit_phases')],
    {},
    cwd,
  );
  assert.equal(r.code, 0, r.stderr + r.stdout);
  return cwd;
}

describe("the report's example 1: phases flushed through MPI_T (pml_monitoring_flush)", () => {
  it("MPICH under mpii writes per-phase .prof files equal to what Open MPI's monitoring writes for each phase", async () => {
    const ours = await phasesUnderMpii('mpich');
    const files = readdirSync(join(ours, 'prof')).sort();
    // two phases, four ranks; the stop after the name was unset writes nothing
    assert.deepEqual(files, [0, 1, 2, 3].map((r) => `phase_1.${r}.prof`).concat([0, 1, 2, 3].map((r) => `phase_2.${r}.prof`)));
    // the report's sample (§8.5.1): rank 0 sent rank 1 27 messages of 4 bytes, histogram bin 3
    const p1 = readFileSync(join(ours, 'prof', 'phase_1.0.prof'), 'utf8');
    assert.match(
      p1,
      /^# POINT TO POINT\nE\t0\t1\t108 bytes\t27 msgs sent\t0,0,0,27,(0,){61}0\n# OSC\n# COLLECTIVES\nD\tMPI_COMM_WORLD\tprocs: 0,1,2,3\nO2A\t0\t0 bytes\t0 msgs sent\nA2O\t0\t0 bytes\t0 msgs sent\nA2A\t0\t0 bytes\t0 msgs sent\n/,
    );

    // Open MPI: its own monitoring driven by the same program where this build registers the
    // flush variable; where it does not (Debian's 4.1.4), each phase's traffic alone, flushed
    // by Open MPI at MPI_Finalize (pml_monitoring_enable_output 3), is what the phase must give.
    const native = mkdtempSync(join(tmpdir(), 'mpii-phases-native-'));
    mkdirSync(join(native, 'prof'));
    const direct = await execa('mpirun.openmpi', [...launcherArgs('openmpi', NP), '--mca', 'pml_monitoring_enable', '2', program('openmpi', 'mpit_phases')], {
      env: TEST_ENV,
      cwd: native,
      reject: false,
    });
    const flushWorks = direct.exitCode === 0 && existsSync(join(native, 'prof', 'phase_2.0.prof'));
    if (!flushWorks) {
      assert.match(direct.stdout, /cannot find monitoring MPI_T "pml_monitoring_flush" pvar/);
      for (const k of [1, 2]) {
        const only = compile('openmpi', 'mpit_phases', [`-DONLY_PHASE=${k}`], `only${k}`);
        const r = await ompiMonitoring(NP, only, join(native, 'prof', `phase_${k}`));
        assert.equal(r.exitCode, 0, r.stderr);
      }
    }
    for (const k of [1, 2]) {
      for (let rank = 0; rank < NP; rank++) {
        const name = `phase_${k}.${rank}.prof`;
        sameAsOpenMpi(readFileSync(join(ours, 'prof', name), 'utf8'), readFileSync(join(native, 'prof', name), 'utf8'), name);
      }
    }
  });

  it('Open MPI under mpii (its build lacks the flush variable) writes the same files as MPICH under mpii', async () => {
    const a = await phasesUnderMpii('mpich');
    const b = await phasesUnderMpii('openmpi');
    for (const name of readdirSync(join(a, 'prof'))) {
      assert.equal(readFileSync(join(b, 'prof', name), 'utf8'), readFileSync(join(a, 'prof', name), 'utf8'), name);
    }
    assert.equal(readdirSync(join(b, 'prof')).length, 2 * NP);
  });

  it("the run's report keeps the whole run and names the flushed phases; a started flush cancels the finalize output", async () => {
    const cwd = await phasesUnderMpii('mpich', '[prof=final]');
    assert.ok(!existsSync(join(cwd, 'final.0.prof')), 'option prof is cancelled once a flush handle was started');
    const rep = await mpii(['report', join(cwd, 'out')]);
    assert.equal(rep.code, 0, rep.stderr);
    assert.match(rep.stdout, /2 phases flushed through MPI_T: prof\/phase_1\.<rank>\.prof, prof\/phase_2\.<rank>\.prof/);
    // whole run: phase 1 (27 + 3×26), phase 2 (7 + 3×6) and the ring after the name was unset (5 + 3×4)
    assert.match(rep.stdout, /point-to-point\s+147\s/);
  });
});

describe("monitor option prof: Open MPI's finalize output", () => {
  it('without MPI_T use it writes at MPI_Finalize exactly what mpii report --prof writes from the profile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-final-'));
    const out = join(dir, 'out');
    const r = await mpii([
      'run',
      '--quiet',
      '--tools',
      `monitor[prof=${join(dir, 'final')}]`,
      '--out',
      out,
      ...launcherArgs('mpich', 3),
      program('mpich', 'monitor_coll'),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await mpii(['report', out, '--prof', join(dir, 'ts', 'final')])).code, 0);
    for (const rank of [0, 1, 2]) {
      assert.equal(readFileSync(join(dir, `final.${rank}.prof`), 'utf8'), readFileSync(join(dir, 'ts', `final.${rank}.prof`), 'utf8'));
    }
    assert.match((await mpii(['report', out])).stdout, /at MPI_Finalize: \S+final\.<rank>\.prof/);
  });
});

describe("the report's example 2: per-peer counts (pml_monitoring_messages_count) and MPI_Allreduce", () => {
  for (const f of FLAVORS) {
    it(`${f}: the counts the report specifies, with the communicator passed either way`, async () => {
      for (const args of [[], ['--standard'], ['mpii_monitor_p2p_count']]) {
        const r = await mpii([
          'run',
          '--quiet',
          '--tools',
          'monitor',
          '--out',
          outDir(`counts-${f}`),
          ...launcherArgs(f, NP),
          program(f, 'mpit_counts'),
          ...args,
        ]);
        assert.equal(r.code, 0, r.stderr + r.stdout);
        // rank 0 sent 27 messages to rank 1, every other rank 26 to its successor (test_pvar_access)
        assert.match(r.stdout, /^rank 0 counts: 0 27 0 0$/m);
        assert.match(r.stdout, /^rank 1 counts: 0 0 26 0$/m);
        assert.match(r.stdout, /^rank 3 counts: 26 0 0 0$/m);
        assert.match(r.stdout, /^max counts: 26 27 26 26$/m);
      }
    });
  }

  it('without the monitor tool MPICH has no such variable: the program says so itself', async () => {
    const r = await mpii([
      'run',
      '--quiet',
      '--tools',
      'trace-count',
      '--out',
      outDir('counts-none'),
      ...launcherArgs('mpich', 2),
      program('mpich', 'mpit_counts'),
    ]);
    assert.notEqual(r.code, 0);
    assert.match(r.stdout, /cannot find monitoring MPI_T "pml_monitoring_messages_count" pvar/);
  });
});

/** pvar lines of the client: index -> the line */
function pvarLines(out: string): Map<number, string> {
  return new Map([...out.matchAll(/^pvar (\d+) (.*)$/gm)].map((m) => [Number(m[1]), m[2]]));
}

describe("any MPI_T client: the library's variables unchanged, the tools' appended", () => {
  for (const f of FLAVORS) {
    it(`${f}: same library indices and names, tool variables after them in category "mpii", counters per handle`, async () => {
      const plain = await execa(`mpirun.${f}`, [...launcherArgs(f, 2), program(f, 'mpit_client')], { env: TEST_ENV, reject: false });
      assert.equal(plain.exitCode, 0, plain.stderr);
      const r = await mpii([
        'run',
        '--quiet',
        '--tools',
        'overlap[mode=paging],monitor',
        '--out',
        outDir(`client-${f}`),
        ...launcherArgs(f, 2),
        program(f, 'mpit_client'),
        '--counter',
        'mpii_overlap_sends_converted',
      ]);
      assert.equal(r.code, 0, r.stderr);
      const before = /^before init: (\d+)$/m.exec(plain.stdout)![1];
      assert.match(r.stdout, new RegExp(`^before init: ${before}$`, 'm'), 'before MPI_Init: the library alone');
      const lib = pvarLines(plain.stdout);
      const all = pvarLines(r.stdout);
      const libCount = Number(before);
      for (const [i, line] of lib) assert.equal(all.get(i), line, `library variable ${i}`);
      for (const line of plain.stdout.split('\n').filter((l) => /^pvar \d+: get_info failed$/.test(l))) assert.ok(r.stdout.includes(line));
      const ours = [...all.keys()].filter((i) => i >= libCount).sort((a, b) => a - b);
      assert.ok(ours.length >= 15 + 27, `${ours.length} tool variables`);
      assert.deepEqual(
        ours,
        ours.map((_, k) => libCount + k),
        "contiguous after the library's",
      );
      for (const i of ours) assert.match(all.get(i)!, /lookup=ok$/);
      // monitor publishes from its init, overlap once MPI_Init returned: monitor's come first
      assert.match(all.get(libCount)!, /^mpii_monitor_flush class=\d+ bind=none readonly=0 continuous=0/);
      assert.ok([...all.values()].some((l) => /^mpii_overlap_sends_converted class=\d+ bind=none readonly=0 continuous=0/.test(l)));
      assert.ok([...all.values()].some((l) => /^mpii_monitor_p2p_count .*bind=comm readonly=1/.test(l)));
      assert.ok([...all.values()].some((l) => /^pml_monitoring_flush .*bind=none readonly=0/.test(l)));
      const cat = /^category (\d+) mpii pvars=(.*)$/m.exec(r.stdout);
      assert.ok(cat, r.stdout);
      assert.deepEqual(cat[2].split(',').map(Number), ours);
      assert.match(r.stdout, new RegExp(`^mpii category: ${cat[1]}$`, 'm'));
      // library categories list the same library indices as without mpii
      for (const m of plain.stdout.matchAll(/^category (\d+) (\S+) pvars=(.*)$/gm)) assert.ok(r.stdout.includes(m[0]), m[0]);
      // started: 3 sends; stopped: still 3; restarted +1: 4; reset: 0; +1: 1; readreset: 1 then 0
      assert.match(r.stdout, /^counter mpii_overlap_sends_converted: 3 3 4 0 1 1 0$/m);
    });
  }

  for (const f of FLAVORS) {
    it(`${f}: a process that calls MPI_T but never MPI_Init gets the library's answers through the preloaded shim`, async () => {
      const { library } = await shimInfo(f);
      const env = { ...TEST_ENV, OMPI_MCA_rmaps_base_oversubscribe: '1' };
      const plain = await execa(program(f, 'mpit_client'), ['--no-init'], { env, reject: false });
      const shimmed = await execa(program(f, 'mpit_client'), ['--no-init'], { env: { ...env, LD_PRELOAD: library, TOOLS: 'monitor' }, reject: false });
      assert.equal(plain.exitCode, 0, plain.stderr);
      assert.equal(shimmed.exitCode, 0, shimmed.stderr);
      assert.equal(shimmed.stdout, plain.stdout);
      assert.match(shimmed.stdout, /^mpii category: none$/m);
    });
  }

  it("INJ_IGNORE=1: no tool variables, the library's alone", async () => {
    const r = await mpii(
      ['run', '--quiet', '--tools', 'monitor', '--out', outDir('client-ignore'), ...launcherArgs('mpich', 2), program('mpich', 'mpit_client')],
      { INJ_IGNORE: '1' },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /^pvar /m);
    assert.match(r.stdout, /^mpii category: none$/m);
  });
});

describe("mpii run --pvar: the library's variables sampled on every rank", () => {
  it('Open MPI: at each MPI_T flush and at MPI_Finalize, into the profile and the report', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'mpii-pvar-'));
    mkdirSync(join(cwd, 'prof'));
    const out = join(cwd, 'out');
    const r = await mpii(
      [
        'run',
        '--tools',
        'monitor',
        '--pvar',
        'pml_ob1_unexpected_msgq_length',
        '--pvar=mpool_hugepage_bytes_allocated',
        '--out',
        out,
        ...launcherArgs('openmpi', NP),
        program('openmpi', 'mpit_phases'),
      ],
      {},
      cwd,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /MPI library variables \(mpii run --pvar\), per rank:\n {2}at flush prof\/phase_1\n {4}pml_ob1_unexpected_msgq_length +total \d+, min \d+ \(rank \d\), max \d+ \(rank \d\) — sums of 4 values per rank/,
    );
    assert.match(r.stderr, /at MPI_Finalize\n {4}pml_ob1_unexpected_msgq_length/);
    const json = JSON.parse((await mpii(['report', out, '--json'])).stdout);
    const samples = json.mpit.pvars as { at: string; name: string; ranks: { rank: number; values: number[] }[] }[];
    assert.deepEqual(
      samples.map((s) => `${s.at} ${s.name}`),
      [
        'prof/phase_1 pml_ob1_unexpected_msgq_length',
        'prof/phase_1 mpool_hugepage_bytes_allocated',
        'prof/phase_2 pml_ob1_unexpected_msgq_length',
        'prof/phase_2 mpool_hugepage_bytes_allocated',
        'finalize pml_ob1_unexpected_msgq_length',
        'finalize mpool_hugepage_bytes_allocated',
      ],
    );
    for (const s of samples) {
      assert.equal(s.ranks.length, NP);
      for (const x of s.ranks) assert.equal(x.values.length, s.name.startsWith('pml_ob1') ? NP : 1);
    }
  });

  it('a variable the run does not offer after MPI_Init is skipped with one line from rank 0', async () => {
    const out = outDir('pvar-skip');
    const r = await mpii(['run', '--quiet', '--pvar', 'coll_monitoring_o2a_count', '--out', out, ...launcherArgs('openmpi', 2), program('openmpi', 'ring')]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr.split('\n').filter((l) => /coll_monitoring_o2a_count: not offered in this run/.test(l)).length, 1, r.stderr);
  });
});

function oneLineError(r: { code: number; stderr: string }, pattern: RegExp, code = 2): void {
  assert.equal(r.code, code, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], pattern);
}

describe('mpii pvars / mpii cvars', () => {
  it('Open MPI: its performance variables with class, type, binding, verbosity; --json; a filter', async () => {
    const r = await mpii(['pvars', '--mpi', 'openmpi', 'ob1']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Open MPI \d[\w.]* \(\/\S+libmpi\.so[\d.]*\): 2 of \d+ performance variables$/m);
    assert.match(r.stdout, /^pml_ob1_unexpected_msgq_length +size +MPI_UNSIGNED\w* +MPI_Comm +\w+\/\w+ +ro,cont +Number of unexpected messages/m);
    const j = JSON.parse((await mpii(['pvars', '--mpi', 'openmpi', '--json', '*monitoring*'])).stdout);
    const flush = (j.pvars as PvarInfo[]).find((v) => v.name === 'pml_monitoring_flush')!;
    assert.deepEqual(
      { class: flush.class, type: flush.type, binding: flush.binding, readonly: flush.readonly },
      { class: 'generic', type: 'MPI_CHAR', binding: 'none', readonly: false },
    );
    assert.ok((j.pvars as PvarInfo[]).every((v) => v.name.includes('monitoring')));
  });

  it('MPICH: no performance variables (said so), hundreds of control variables', async () => {
    const p = await mpii(['pvars', '--mpi', 'mpich']);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, /^MPICH \d[\w.]* \(\S+libmpich\.so[\d.]*\): 0 performance variables\n\(MPICH \d[\w.]* registers none/);
    const cj = await mpii(['cvars', '--mpi', 'mpich', '--json']);
    assert.equal(cj.code, 0, cj.stderr);
    const c = JSON.parse(cj.stdout);
    assert.ok(c.cvars.length > 100);
    const v = c.cvars.find((x: { name: string }) => x.name === 'MPIR_CVAR_ASYNC_PROGRESS');
    assert.deepEqual({ type: v.type, binding: v.binding }, { type: 'MPI_INT', binding: 'none' });
    assert.match(v.verbosity, /^(user|tuner|mpidev)\/(basic|detail|all)$/);
    const t = await mpii(['cvars', '--mpi', 'openmpi', 'pml_monitoring_enable']);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /^pml_monitoring_enable +MPI_INT +none +\w+ +\w+\/\w+ +Enable the monitoring at the PML level/m);
  });

  it('bad input: an unknown MPI, a filter that matches nothing', async () => {
    oneLineError(await mpii(['pvars', '--mpi', 'lam']), /^mpii: unknown MPI 'lam' for --mpi — use --mpi openmpi, mpich, abi, abi:mpich or abi:openmpi$/);
    oneLineError(
      await mpii(['pvars', '--mpi', 'openmpi', 'no_such_thing']),
      /^mpii: no performance variable of Open MPI \d[\w.]* matches 'no_such_thing' — mpii pvars without a filter lists all \d+$/,
      1,
    );
  });

  it('an MPI built without MPI_T, and one whose MPI_T_init_thread fails: one clear line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-nompit-'));
    writeFileSync(join(dir, 'none.c'), 'int MPI_Init(int *c, char ***v) { (void) c; (void) v; return 0; }\n');
    writeFileSync(join(dir, 'fails.c'), 'int MPI_T_init_thread(int r, int *p) { (void) r; *p = 0; return 56; }\nint MPI_T_finalize(void) { return 0; }\n');
    for (const n of ['none', 'fails']) execaSync('cc', ['-shared', '-fPIC', '-o', join(dir, `lib${n}.so`), join(dir, `${n}.c`)]);
    oneLineError(
      await mpii(['pvars', '--mpi', 'openmpi'], { MPII_MPI_LIBRARY: join(dir, 'libnone.so') }),
      /^mpii: \S+libnone\.so has no MPI_T interface \(MPI_T_init_thread is missing\): this MPI was built without the MPI tool information interface — /,
    );
    oneLineError(
      await mpii(['cvars', '--mpi', 'openmpi'], { MPII_MPI_LIBRARY: join(dir, 'libfails.so') }),
      /^mpii: MPI_T_init_thread failed in \S+libfails\.so \(error 56 MPI_T_ERR_CANNOT_INIT\) — /,
    );
    const ring = program('openmpi', 'ring');
    oneLineError(await mpii(['run', '--pvar', 'x', '-np', '2', ring], { MPII_MPI_LIBRARY: join(dir, 'libnone.so') }), /has no MPI_T interface/);
  });

  it('a library that prints on stdout and crashes at exit does not take mpii down (it is asked in a child process)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-crashy-'));
    writeFileSync(
      join(dir, 'crashy.c'),
      [
        '#include <signal.h>',
        '#include <stdio.h>',
        '__attribute__((constructor)) static void hello(void) { puts("crashy MPI says hello"); }',
        '__attribute__((destructor)) static void crash(void) { raise(SIGSEGV); }',
        'int MPI_T_init_thread(int r, int *p) { *p = r; return 0; }',
        'int MPI_T_finalize(void) { return 0; }',
        'int MPI_T_pvar_get_num(int *n) { *n = 0; return 0; }',
        'int MPI_T_pvar_get_info(void) { return 1; }',
        '',
      ].join('\n'),
    );
    execaSync('cc', ['-shared', '-fPIC', '-o', join(dir, 'libcrashy.so'), join(dir, 'crashy.c')]);
    const r = await mpii(['pvars', '--mpi', 'openmpi'], { MPII_MPI_LIBRARY: join(dir, 'libcrashy.so') });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Open MPI \d[\w.]* \(\S+libcrashy\.so\): 0 performance variables/m);
    assert.doesNotMatch(r.stdout, /crashy MPI says hello/);
  });

  it('a library that crashes before its answer is asked again; one that always crashes: one clear line after three attempts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-flaky-'));
    // each call appends a line to the log; the first CRASHES calls die by SIGSEGV
    writeFileSync(
      join(dir, 'flaky.c'),
      [
        '#include <signal.h>',
        '#include <stdio.h>',
        '#include <stdlib.h>',
        'int MPI_T_init_thread(int r, int *p) {',
        '  FILE *f = fopen(getenv("FLAKY_LOG"), "a+");',
        '  int calls = 0;',
        '  for (int c; (c = fgetc(f)) != EOF;) calls += c == 0x0a;',
        '  fputs("call\\n", f);',
        '  fclose(f);',
        '  if (calls < atoi(getenv("FLAKY_CRASHES"))) raise(SIGSEGV);',
        '  *p = r;',
        '  return 0;',
        '}',
        'int MPI_T_finalize(void) { return 0; }',
        'int MPI_T_cvar_get_num(int *n) { *n = 0; return 0; }',
        'int MPI_T_cvar_get_info(void) { return 1; }',
        '',
      ].join('\n'),
    );
    execaSync('cc', ['-shared', '-fPIC', '-o', join(dir, 'libflaky.so'), join(dir, 'flaky.c')]);
    const calls = (log: string) => readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
    const env = (crashes: number, log: string) => ({ MPII_MPI_LIBRARY: join(dir, 'libflaky.so'), FLAKY_CRASHES: String(crashes), FLAKY_LOG: log });
    const once = await mpii(['cvars', '--mpi', 'openmpi'], env(1, join(dir, 'once.log')));
    assert.equal(once.code, 0, once.stderr);
    assert.match(once.stdout, /^Open MPI \d[\w.]* \(\S+libflaky\.so\): 0 control variables$/m);
    assert.equal(once.stderr, '');
    assert.equal(calls(join(dir, 'once.log')), 2);
    oneLineError(
      await mpii(['cvars', '--mpi', 'openmpi'], env(99, join(dir, 'always.log'))),
      /^mpii: asking \S+libflaky\.so for its MPI_T variables crashed 3 times \(killed by SIGSEGV\) — check the Open MPI installation \(mpii doctor\)$/,
    );
    assert.equal(calls(join(dir, 'always.log')), 3);
  });
});

describe('mpii run --pvar: bad input', () => {
  const ompi = () => program('openmpi', 'ring');
  it('an unknown name suggests the closest; on MPICH, says it has none at all', async () => {
    oneLineError(
      await mpii(['run', '--pvar', 'pml_ob1_unexpected', '-np', '2', ompi()]),
      /^mpii: --pvar pml_ob1_unexpected: Open MPI \d[\w.]* has no performance variable of that name — did you mean pml_ob1_unexpected_msgq_length\?/,
    );
    oneLineError(
      await mpii(['run', '--pvar', 'posted_recvq', '-np', '2', program('mpich', 'ring')]),
      /^mpii: --pvar posted_recvq: MPICH \d[\w.]* has no MPI_T performance variables at all — /,
    );
  });
  it("a variable mpii cannot sample: text, bound to a window; one of mpii's own; an empty name", async () => {
    oneLineError(
      await mpii(['run', '--pvar', 'pml_monitoring_flush', '-np', '2', ompi()]),
      /^mpii: --pvar pml_monitoring_flush: its type is MPI_CHAR, and mpii samples numbers only/,
    );
    oneLineError(
      await mpii(['run', '--pvar', 'osc_rdma_put_retry_count', '-np', '2', ompi()]),
      /^mpii: --pvar osc_rdma_put_retry_count: it is bound to MPI_Win objects, and mpii binds variables to MPI_COMM_WORLD or to nothing/,
    );
    oneLineError(await mpii(['run', '--pvar', 'mpii_monitor_p2p_count', '-np', '2', ompi()]), /one of mpii's own variables/);
    oneLineError(await mpii(['run', '--pvar', ',', '-np', '2', ompi()]), /^mpii: --pvar needs a variable name/);
  });
});

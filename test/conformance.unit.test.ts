// The pure parts of bench/conformance.mjs (MPICH's test suite under every tool, docs/conformance.md):
// reading a testlist and a Makefile.am, MPICH's pass rule, and the results it resumes from and
// summarises. Made-up inputs only: no MPI job here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './helpers.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- plain JavaScript that tsc does not type: its exports are used as the runner uses them
const cf: any = await import(pathToFileURL(join(ROOT, 'bench', 'conformance.mjs')).href);

test('a testlist: process counts, keys, and the entries runtests (or we) would not run', () => {
  const text = [
    '# comment line',
    'sendrecv2 2',
    'sendrecv2 2 env=MPIR_CVAR_ASYNC_PROGRESS=1',
    'sendself 1 arg=-type=MPI_INT arg=-sendcnt=8  # trailing comment',
    'noprocs',
    'big 8',
    'scancel 2 xfail=ticket2266',
    'large_message 3 mem=6.5',
    'ext 2 strict=false',
    'rqfree 4 resultTest=TestAllowWarnings timeLimit=30',
    '@mpix@ mpixonly 2',
    'sub/prog 2',
    '',
  ].join('\n');
  const { entries, skipped } = cf.parseTestlist(text, { strict: true });
  assert.deepEqual(
    entries.map((e: { name: string; np: number }) => `${e.name}:${e.np}`),
    ['sendrecv2:2', 'sendrecv2:2', 'sendself:1', 'noprocs:2', 'rqfree:4'],
  );
  assert.deepEqual(entries[1].env, ['MPIR_CVAR_ASYNC_PROGRESS=1']);
  assert.deepEqual(entries[2].args, ['-type=MPI_INT', '-sendcnt=8']);
  assert.equal(entries[4].resultTest, 'TestAllowWarnings');
  assert.equal(entries[4].timeLimit, '30');
  assert.deepEqual(
    skipped.map((s: { name: string; why: string }) => `${s.name}: ${s.why}`),
    [
      'big: 8 processes (more than 4)',
      'scancel: xfail=ticket2266',
      'large_message: mem=6.5 GB (more than 4)',
      'ext: strict=false (non-MPICH MPI: strict mode)',
      'mpixonly: configure substitution (@…@)',
      'sub/prog: subdirectory entry',
    ],
  );
  // without strict mode (an MPICH-derived MPI) the strict=false entry runs
  assert.ok(cf.parseTestlist('ext 2 strict=false').entries.length === 1);
});

test('test ids: the first entry of a program is dir/name, later variants only when asked', () => {
  const entries = cf.parseTestlist('a 2\na 2 arg=-x\nb 1\na 4').entries;
  assert.deepEqual(
    cf.testIds('pt2pt', entries).map((t: { id: string }) => t.id),
    ['pt2pt/a', 'pt2pt/b'],
  );
  assert.deepEqual(
    cf.testIds('pt2pt', entries, true).map((t: { id: string; np: number }) => `${t.id}:${t.np}`),
    ['pt2pt/a:2', 'pt2pt/a#2:2', 'pt2pt/b:1', 'pt2pt/a#3:4'],
  );
});

test("a Makefile.am: each program's sources, -D flags and -l libraries, make variables dropped", () => {
  const mk = [
    'noinst_PROGRAMS = a \\',
    '    irecv_any',
    'irecv_any_CPPFLAGS = -DTEST_NB $(AM_CPPFLAGS)',
    'irecv_any_SOURCES  = recv_any.c',
    'mutex_bench_SOURCES = mutex_bench.c \\',
    '    mcs_mutex.c mcs_mutex.h',
    'strided_LDADD = $(LDADD) -lm',
  ].join('\n');
  assert.deepEqual(cf.parseMakefileAm(mk), {
    irecv_any: { sources: ['recv_any.c'], flags: ['-DTEST_NB'], ldadd: [] },
    mutex_bench: { sources: ['mutex_bench.c', 'mcs_mutex.c'], flags: [], ldadd: [] },
    strided: { sources: [], flags: [], ldadd: ['-lm'] },
  });
});

test("MPICH's pass rule: exit 0, ' No Errors', no stray output; the resultTest variants", () => {
  const j = (output: string, status: number | null = 0, extra = {}) => cf.judge({ output, status, ...extra });
  assert.equal(j(' No Errors\n').verdict, 'pass');
  assert.equal(j('No errors\n\n').verdict, 'pass');
  assert.deepEqual(j(' No Errors\n', 1), { verdict: 'fail', why: 'exit 1' });
  assert.deepEqual(j('Found 3 errors\n'), { verdict: 'fail', why: 'no "No Errors"' });
  assert.deepEqual(j('', 15), { verdict: 'fail', why: 'exit 15, no "No Errors"' });
  assert.deepEqual(j('rank 1: got -1 expected 2\n No Errors\n'), { verdict: 'fail', why: '1 stray output line(s)' });
  assert.deepEqual(j(' No Errors\n', null, { timedOut: true }), { verdict: 'fail', why: 'time limit' });
  assert.deepEqual(j(' No Errors\n', null, { signal: 'SIGSEGV' }), { verdict: 'fail', why: 'signal SIGSEGV' });
  assert.equal(j('Test Skipped\n').verdict, 'skip');
  // a warning line fails TestNormal, not TestAllowWarnings
  assert.equal(j('WARNING: x\n No Errors\n').verdict, 'fail');
  assert.equal(j('WARNING: x\n No Errors\n', 0, { resultTest: 'TestAllowWarnings' }).verdict, 'pass');
  // a tool's findings (and their backtraces) are not the program's output, but are told apart
  const finding = '[vm:4811] memcheck: rank 1: received data never read: 1200 B\n    backtrace: eagerdt+0x26c2\n';
  assert.deepEqual(j(`${finding} No Errors\n`), { verdict: 'findings', why: '1 finding(s) reported by the tool' });
  assert.equal(j(`${finding}Read -1, expected 40000, errno = 14\n No Errors\n`).verdict, 'fail');
  assert.equal(j(`${finding}`, 1).verdict, 'fail');
  // memcheck's hints are advice: a run with only hints passes (counted); with an error too, findings
  const hint =
    '[vm:4811] memcheck: rank 1: hint: received data never read: 1200 B of 4800 B at 0x1000; MPI_Recv called at eagerdt+0x26c2\n    backtrace: eagerdt+0x26c2\n';
  assert.deepEqual(j(`${hint}${hint} No Errors\n`), { verdict: 'pass', why: '2 hint(s) reported by the tool' });
  const error = '[vm:4811] memcheck: rank 0: error: send buffer overrun: 8 B past the end of its allocation\n    backtrace: x+0x1\n';
  assert.deepEqual(j(`${hint}${error} No Errors\n`), { verdict: 'findings', why: '1 finding(s) reported by the tool, 1 hint(s)' });
  // mpii's own messages are output like any other
  assert.equal(j("MPII 0: no rank's host shares the output directory\n No Errors\n").verdict, 'fail');
  // the tests that must fail
  assert.equal(j('MPI_ERR_OTHER\n', 1, { resultTest: 'TestErrFatal' }).verdict, 'pass');
  assert.equal(j(' No Errors\n', 0, { resultTest: 'TestStatus' }).verdict, 'fail');
  assert.equal(j(' No Errors\n', 1, { resultTest: 'TestStatusNoErrors' }).verdict, 'pass');
  assert.equal(j('', 1, { resultTest: 'TestStatusNoErrors' }).verdict, 'fail');
});

test('the first error lines skip blanks and " No Errors", at most n', () => {
  assert.deepEqual(cf.firstLines('\n No Errors\n-----\na\n\nb\nc\n', 2), ['a', 'b']);
});

test('configurations: plain first, every stack compiled-in and chained, memcheck chained only', () => {
  const ids = cf.configurations().map((c: { id: string }) => c.id);
  assert.equal(ids[0], 'plain');
  assert.ok(ids.includes('overlap[mode=paging] compiled') && ids.includes('overlap[mode=paging] chained'));
  assert.ok(ids.includes('memcheck chained') && !ids.includes('memcheck compiled'));
  assert.ok(ids.includes('monitor,profile compiled'));
  assert.equal(ids.length, 1 + 9 * 2 - 1);
});

test('--short: pt2pt, datatype and rma under overlap (both forms), memcheck and monitor,profile, after plain', () => {
  const ids = cf
    .configurations()
    .map((c: { id: string }) => c.id)
    .filter((id: string) => cf.SHORT.configs.test(id));
  assert.deepEqual(ids, ['plain', 'memcheck chained', 'overlap compiled', 'overlap chained', 'monitor,profile compiled']);
  assert.deepEqual(cf.SHORT.dirs, ['pt2pt', 'datatype', 'rma']);
});

test('resume: one result per MPI, program and configuration; a later line wins, a torn line is ignored', () => {
  const lines = [
    JSON.stringify({ mpi: 'mpich', id: 'pt2pt/a', config: 'plain', verdict: 'fail' }),
    JSON.stringify({ mpi: 'mpich', id: 'pt2pt/a', config: 'plain', verdict: 'pass' }),
    JSON.stringify({ mpi: 'openmpi', id: 'pt2pt/a', config: 'plain', verdict: 'pass' }),
    '{"mpi":"mpich","id":"pt2pt/b","con',
  ].join('\n');
  const m = cf.loadResults(lines);
  assert.equal(m.size, 2);
  assert.equal(m.get(cf.resultKey({ mpi: 'mpich', id: 'pt2pt/a', config: 'plain' })).verdict, 'pass');
  assert.equal(m.has(cf.resultKey({ mpi: 'mpich', id: 'pt2pt/b', config: 'plain' })), false);
});

test('the table: passing plain, run, passing under the tool (with findings), regressions, flaky plain not counted', () => {
  const r = (id: string, config: string, verdict: string, extra = {}) => ({
    mpi: 'mpich',
    id,
    config,
    verdict,
    np: 2,
    why: verdict === 'pass' ? '' : 'exit 12',
    ...extra,
  });
  const results = [
    r('d/a', 'build', 'pass'),
    r('d/b', 'build', 'pass'),
    r('d/c', 'build', 'pass'),
    r('d/e', 'build', 'pass'),
    r('d/f', 'build', 'pass'),
    r('d/n', 'build', 'fail'),
    r('d/a', 'plain', 'pass'),
    r('d/b', 'plain', 'pass'),
    r('d/c', 'plain', 'pass'),
    r('d/e', 'plain', 'fail'),
    r('d/f', 'plain', 'pass'),
    r('d/a', 'overlap chained', 'pass'),
    r('d/b', 'overlap chained', 'fail', { rerunTool: 'fail', rerunPlain: 'pass', lines: ['MPI_Pack: Invalid argument'] }),
    r('d/c', 'overlap chained', 'fail', { rerunTool: 'pass', rerunPlain: 'fail' }),
    // failed once under the tool, passed on its rerun: still a regression, counted apart too
    r('d/f', 'overlap chained', 'fail', { rerunTool: 'pass', rerunPlain: 'pass' }),
    r('d/b', 'memcheck chained', 'fail', { rerunTool: 'findings', rerunPlain: 'pass' }),
    r('d/a', 'memcheck chained', 'findings', { why: '1 finding(s) reported by the tool', lines: ['[vm:1] memcheck: rank 0: x'] }),
    // a result for a program that fails plain is not the tool's
    r('d/e', 'overlap chained', 'fail'),
    r('d/a', 'noop compiled', 'pass'),
    // another MPI's results are not counted
    { ...r('d/b', 'noop compiled', 'fail'), mpi: 'openmpi' },
  ];
  const s = cf.summarise(results, 'mpich', ['plain', 'noop compiled', 'overlap chained', 'memcheck chained']);
  assert.deepEqual(s.head, {
    mpi: 'mpich',
    selected: 6,
    built: 5,
    notBuilt: 1,
    ranPlain: 5,
    passingPlain: 4,
    failingPlain: 1,
    skippedPlain: 0,
    slowPlain: [],
    plainLimitMs: Infinity,
  });
  assert.deepEqual(s.rows, [
    { config: 'noop compiled', passingPlain: 4, run: 1, passing: 1, findings: 0, regressions: 0, intermittent: 0, flakyPlain: 0 },
    { config: 'overlap chained', passingPlain: 4, run: 4, passing: 1, findings: 0, regressions: 2, intermittent: 1, flakyPlain: 1 },
    { config: 'memcheck chained', passingPlain: 4, run: 2, passing: 1, findings: 1, regressions: 1, intermittent: 1, flakyPlain: 0 },
  ]);
  assert.deepEqual(
    s.regressions.map((x: { id: string; config: string }) => `${x.id} ${x.config}`),
    ['d/b overlap chained', 'd/f overlap chained', 'd/b memcheck chained'],
  );
  const text = cf.formatSummary(s, 'MPICH');
  assert.match(text, /^overlap chained +\| +4 \| +4 \| +1 \(0\) \| +2 \(1\) \| +1$/m);
  assert.match(text, /^memcheck chained +\| +4 \| +2 \| +1 \(1\) \| +1 \(1\) \| +0$/m);
  assert.match(text, /REGRESSION d\/b \(mpich, memcheck chained, 2 processes\): exit 12; passed with findings on the rerun \(intermittent\)/);
  assert.match(text, /^FINDINGS d\/a \(mpich, memcheck chained, 2 processes\): 1 finding\(s\) reported by the tool: \[vm:1\] memcheck: rank 0: x$/m);
  assert.match(text, /REGRESSION d\/f .*: exit 12; passed on the rerun \(intermittent\)/);
  assert.match(text, /REGRESSION d\/b \(mpich, overlap chained, 2 processes\): exit 12; reproduced on the rerun\n {4}MPI_Pack: Invalid argument/);
  // only the selected programs
  assert.equal(cf.summarise(results, 'mpich', ['plain'], new Set(['d/a'])).head.passingPlain, 1);
});

test('--plain-limit: a program passing plain slower than the limit is left to the whole run, and the summary says which', () => {
  const r = (id: string, config: string, ms: number) => ({ mpi: 'mpich', id, config, verdict: 'pass', np: 4, why: '', ms });
  const results = [r('rma/slow', 'plain', 26_000), r('rma/fast', 'plain', 900), r('rma/fast', 'overlap chained', 1100), r('rma/edge', 'plain', 5000)];
  assert.equal(cf.SHORT.plainSeconds, 5);
  assert.equal(cf.tooSlow(results[0], 5000), true);
  assert.equal(cf.tooSlow(results[3], 5000), false);
  const s = cf.summarise(results, 'mpich', ['plain', 'overlap chained'], undefined, 5000);
  assert.equal(s.head.passingPlain, 3);
  assert.deepEqual(s.head.slowPlain, ['rma/slow']);
  // the table counts only the programs run under the tools
  assert.equal(s.rows[0].passingPlain, 2);
  assert.match(cf.formatSummary(s), /^left to the whole run: 1 passing plain in over 5 s \(--plain-limit\): rma\/slow$/m);
  // without a limit every passing program is the tools'
  assert.equal(cf.summarise(results, 'mpich', ['plain', 'overlap chained']).rows[0].passingPlain, 3);
});

test('the job pool runs every task, at most `jobs` at a time, on slots 0..jobs-1', async () => {
  let running = 0;
  let peak = 0;
  const slots = new Set<number>();
  const done: number[] = [];
  const tasks = [0, 1, 2, 3, 4].map((i) => async (slot: number) => {
    running++;
    peak = Math.max(peak, running);
    slots.add(slot);
    await new Promise((r) => setImmediate(r));
    done.push(i);
    running--;
  });
  await cf.pool(tasks, 2);
  assert.deepEqual(done.sort(), [0, 1, 2, 3, 4]);
  assert.equal(peak, 2);
  assert.deepEqual([...slots].sort(), [0, 1]);
});

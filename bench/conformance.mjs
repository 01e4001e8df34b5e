#!/usr/bin/env node
// bench/conformance.mjs - MPICH's own test suite (test/mpi) as the yardstick: every program that
// passes plain must pass under every tool. Builds the programs of a user's checkout without
// autotools (testlist + Makefile.am + a mpitestconf.h of our own), runs each plain and under each
// tool configuration, and prints per MPI and configuration: passing plain, passing under it, and
// every regression with its first error lines. See docs/conformance.md.
//
//   MPICH_TESTS=/path/to/mpich/test/mpi node bench/conformance.mjs [options]
//
// Results are appended to a JSONL file (one line per program x MPI x configuration) and skipped
// when already there, so an interrupted run resumes where it stopped.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FLAVORS, MPII, env as baseEnv, lpad, pad, which } from './common.mjs';

export const DEFAULT_DIRS = ['pt2pt', 'coll', 'comm', 'datatype', 'rma', 'attr', 'errhan', 'group', 'info', 'init', 'topo', 'io'];
export const MAX_NP = 4;
/** runtests' default: entries that declare more memory (GB) are skipped */
export const MEMORY_GB = 4;

/**
 * `--short`, the run before a change to preload/ lands: the directories whose programs have caught
 * a tool (point-to-point, datatypes, one-sided) under the stacks that change data movement or
 * guard memory: about a third of the programs under 4 of the 17 tool configurations. Its results
 * go to a file per commit.
 */
export const SHORT = {
  dirs: ['pt2pt', 'datatype', 'rma'],
  configs: /^(plain|overlap compiled|overlap chained|memcheck chained|monitor,profile compiled)$/,
  /** a program whose plain run took longer is left to the whole run: on 2 cores, MPICH's 4-process
   *  one-sided programs, whose ranks busy-poll oversubscribed (rma/fetch_and_op_int: 26 s plain
   *  alone, 0.3 s on 4 cores), would take 40 of the short run's minutes */
  plainSeconds: 5,
};

/** The tool stacks, in the order they run; each with a compiled-in and a chained form unless `chainedOnly`. */
export const STACKS = [
  { tools: 'noop' },
  { tools: 'trace-count' },
  { tools: 'monitor' },
  { tools: 'profile' },
  { tools: 'memcheck', chainedOnly: true },
  { tools: 'overlap[mode=paging]' },
  { tools: 'overlap[mode=chaining]' },
  { tools: 'overlap' },
  { tools: 'monitor,profile' },
];

/** Every configuration: `plain` first, then each stack compiled-in and chained. */
export function configurations(stacks = STACKS) {
  const out = [{ id: 'plain' }];
  for (const s of stacks) {
    if (!s.chainedOnly) out.push({ id: `${s.tools} compiled`, tools: s.tools, chained: false });
    out.push({ id: `${s.tools} chained`, tools: s.tools, chained: true });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// testlist and Makefile.am

/**
 * Parses one directory's testlist (`name nprocs [key=value…]`, `#` comments). Returns the entries
 * to run and the ones skipped with the reason (runtests' rules: xfail, mem, strict=false in strict
 * mode; ours: more than maxNp processes, @…@ substitutions we cannot make, subdirectories).
 */
export function parseTestlist(text, { maxNp = MAX_NP, strict = false, memoryGb = MEMORY_GB } = {}) {
  const entries = [];
  const skipped = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const words = line.split(/\s+/);
    const name = words[0];
    if (line.includes('@')) {
      skipped.push({
        name: line
          .replace(/@[^@]*@/g, '')
          .trim()
          .split(/\s+/)[0],
        why: 'configure substitution (@…@)',
      });
      continue;
    }
    if (name.includes('/')) {
      skipped.push({ name, why: 'subdirectory entry' });
      continue;
    }
    const e = { name, np: 2, args: [], env: [], resultTest: undefined, xfail: undefined, strict: undefined, mem: undefined, timeLimit: undefined };
    if (words.length > 1) {
      if (!/^\d+$/.test(words[1])) {
        skipped.push({ name, why: `process count '${words[1]}' is not a number` });
        continue;
      }
      e.np = Number(words[1]);
    }
    for (const kv of words.slice(2)) {
      const m = /^([^=]+)=(.*)$/.exec(kv);
      if (!m) continue;
      const [, k, v] = m;
      if (k === 'arg') e.args.push(v);
      else if (k === 'env') e.env.push(v);
      else if (k in e) e[k] = v;
    }
    if (e.np > maxNp) skipped.push({ name, why: `${e.np} processes (more than ${maxNp})` });
    else if (e.xfail) skipped.push({ name, why: `xfail=${e.xfail}` });
    else if (e.mem && Number(e.mem) > memoryGb) skipped.push({ name, why: `mem=${e.mem} GB (more than ${memoryGb})` });
    else if (strict && String(e.strict).toLowerCase() === 'false') skipped.push({ name, why: 'strict=false (non-MPICH MPI: strict mode)' });
    else entries.push(e);
  }
  return { entries, skipped };
}

/**
 * The test ids of a directory's entries: the first entry of each program is `dir/name`, a later one
 * (other arguments or environment) `dir/name#2`, `#3`… `variants` false keeps the first only.
 */
export function testIds(dir, entries, variants = false) {
  const seen = new Map();
  const out = [];
  for (const e of entries) {
    const k = (seen.get(e.name) ?? 0) + 1;
    seen.set(e.name, k);
    if (k > 1 && !variants) continue;
    out.push({ ...e, dir, id: k === 1 ? `${dir}/${e.name}` : `${dir}/${e.name}#${k}` });
  }
  return out;
}

/** Per program of a Makefile.am: its `_SOURCES`, `_CPPFLAGS`/`_CFLAGS` and `_LDADD` (make variables dropped). */
export function parseMakefileAm(text) {
  const joined = text.replace(/\\\n/g, ' ');
  const progs = {};
  const clean = (v) => v.split(/\s+/).filter((w) => w && !/\$[({]/.test(w) && !w.startsWith('@'));
  for (const raw of joined.split('\n')) {
    const m = /^\s*([A-Za-z0-9_]+?)_(SOURCES|CPPFLAGS|CFLAGS|LDADD)\s*\+?=\s*(.*)$/.exec(raw);
    if (!m) continue;
    const [, name, kind, value] = m;
    const p = (progs[name] ??= { sources: [], flags: [], ldadd: [] });
    if (kind === 'SOURCES') p.sources.push(...clean(value).filter((s) => /\.(c|cc|cxx|cpp)$/.test(s)));
    else if (kind === 'LDADD') p.ldadd.push(...clean(value).filter((s) => s.startsWith('-l')));
    else p.flags.push(...clean(value));
  }
  return progs;
}

// ---------------------------------------------------------------------------------------------
// The pass rule (runtests' check_result and its resultTest variants), on stdout and stderr together

/** A tool's report of a finding (`[host:pid] memcheck: rank 0: …`, then its `    backtrace:` line). */
const FINDING = /^\[[^\]]+\] (memcheck|overlap|monitor|profile|trace-count|noop): rank \d+: /;
/** memcheck's hints (`…: rank 0: hint: …`): waste, not errors: a run with only these passes. */
const HINT = /^\[[^\]]+\] memcheck: rank \d+: hint: /;

/**
 * MPICH's rule: exit 0, a line ` No Errors`, and no stray output (TestNormal: any other line fails,
 * except MPI_Abort/`WARNING:` lines under TestAllowWarnings). `Test Skipped` is a skip. The
 * resultTest= variants expect a non-zero exit (TestStatus, TestErrFatal; TestStatusNoErrors also
 * "No Errors"). Returns { verdict: 'pass'|'fail'|'skip'|'findings', why }.
 */
export function judge({ output, status, signal = null, timedOut = false, resultTest }) {
  if (timedOut) return { verdict: 'fail', why: 'time limit' };
  // A tool's findings (and their backtraces) are not the program's output: a run whose result is
  // right but where the tool reported something is 'findings' (false positives on a correct
  // program), not a changed result; memcheck's hints (data received and never read) are advice,
  // not errors: a run with only hints passes, the count in its `why`.
  let noErrors = false;
  let skipped = false;
  let stray = 0;
  let warnings = 0;
  let findings = 0;
  let hints = 0;
  for (const line of output.split('\n')) {
    if (line === '') continue;
    if (HINT.test(line)) hints++;
    else if (FINDING.test(line)) findings++;
    else if (/^\s+backtrace:/.test(line)) continue;
    else if (/^\s*No [Ee]rrors\s*$/.test(line) && !noErrors) noErrors = true;
    else if (/^\s*Test Skipped\s*$/.test(line)) skipped = true;
    else if (/^(MPICH: |WARNING: |(Abort.*)?application called MPI_Abort)/.test(line)) warnings++;
    else if (/(FORTRAN STOP|requesting checkpoint|checkpoint completed)\s*$/.test(line)) continue;
    else stray++;
  }
  const bad = status !== 0 || signal !== null;
  const exitWhy = signal ? `signal ${signal}` : `exit ${status}`;
  switch (resultTest ?? 'TestNormal') {
    case 'TestStatus':
    case 'TestErrFatal':
      return bad ? { verdict: 'pass', why: '' } : { verdict: 'fail', why: 'exit 0 where a failure was expected' };
    case 'TestStatusNoErrors':
      if (!noErrors) return { verdict: 'fail', why: 'no "No Errors"' };
      if (stray) return { verdict: 'fail', why: `${stray} stray output line(s)` };
      return bad ? { verdict: 'pass', why: '' } : { verdict: 'fail', why: 'exit 0 where a failure was expected' };
    default: {
      if (!noErrors && !skipped) return { verdict: 'fail', why: bad ? `${exitWhy}, no "No Errors"` : 'no "No Errors"' };
      const strayN = stray + (resultTest === 'TestAllowWarnings' ? 0 : warnings);
      if (strayN) return { verdict: 'fail', why: `${strayN} stray output line(s)${bad ? `, ${exitWhy}` : ''}` };
      if (bad) return { verdict: 'fail', why: exitWhy };
      if (skipped && !noErrors) return { verdict: 'skip', why: 'Test Skipped' };
      if (findings) return { verdict: 'findings', why: `${findings} finding(s) reported by the tool${hints ? `, ${hints} hint(s)` : ''}` };
      return { verdict: 'pass', why: hints ? `${hints} hint(s) reported by the tool` : '' };
    }
  }
}

/** The first lines worth reading in a failed run's output: not blank, not " No Errors", not a launcher's ---- rule. */
export function firstLines(output, n = 5) {
  return output
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() && !/^\s*No [Ee]rrors\s*$/.test(l) && !/^-+$/.test(l))
    .slice(0, n)
    .map((l) => (l.length > 240 ? `${l.slice(0, 240)}…` : l));
}

// ---------------------------------------------------------------------------------------------
// Results: resume and the table

/** A result's key: one line per MPI x program x configuration. */
export const resultKey = (r) => `${r.mpi}\t${r.id}\t${r.config}`;

/** The results of a JSONL file's text, by key (a later line wins; a torn last line is ignored). */
export function loadResults(text) {
  const byKey = new Map();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line);
      if (r && r.mpi && r.id && r.config) byKey.set(resultKey(r), r);
    } catch {
      // an interrupted write: that run is simply done again
    }
  }
  return byKey;
}

/**
 * A tool run's final class, from its first run and the reruns: 'pass', 'findings' (the result is
 * right, the tool reported findings), 'regression' (fails under the tool, passes plain again), or
 * 'flaky-plain' (the plain rerun failed too: not counted).
 */
export function classify(r) {
  if (r.verdict === 'pass' || r.verdict === 'findings') return r.verdict;
  if (r.rerunPlain && r.rerunPlain !== 'pass') return 'flaky-plain';
  return 'regression';
}

/** A regression whose rerun under the tool gave the right result. */
const passedOnRerun = (r) => r.rerunTool === 'pass' || r.rerunTool === 'findings';

/**
 * The table of one MPI: for each configuration run, the programs passing plain, how many of them
 * have a result under it, how many pass, regressions (and how many of them passed on the rerun
 * under the tool) and flaky-plain ones. `results` is a Map or an
 * array of result records; `ids`, a Set, keeps the programs selected.
 */
export function summarise(results, mpi, configIds, ids = undefined, plainLimitMs = Infinity) {
  const all = [...(results instanceof Map ? results.values() : results)].filter((r) => r.mpi === mpi && (!ids || ids.has(r.id)));
  const plain = new Map(all.filter((r) => r.config === 'plain').map((r) => [r.id, r]));
  const passing = [...plain.values()].filter((r) => r.verdict === 'pass');
  // the programs run under the tools: those passing plain within the limit (--plain-limit)
  const passingPlain = new Set(passing.filter((r) => !tooSlow(r, plainLimitMs)).map((r) => r.id));
  const builds = all.filter((r) => r.config === 'build');
  const head = {
    mpi,
    selected: builds.length || plain.size,
    built: builds.filter((r) => r.verdict === 'pass').length,
    notBuilt: builds.filter((r) => r.verdict !== 'pass').length,
    ranPlain: plain.size,
    passingPlain: passing.length,
    failingPlain: [...plain.values()].filter((r) => r.verdict === 'fail').length,
    skippedPlain: [...plain.values()].filter((r) => r.verdict === 'skip').length,
    slowPlain: passing.filter((r) => tooSlow(r, plainLimitMs)).map((r) => r.id),
    plainLimitMs,
  };
  const rows = [];
  const regressions = [];
  const withFindings = [];
  for (const config of configIds) {
    if (config === 'plain') continue;
    const under = all.filter((r) => r.config === config && passingPlain.has(r.id));
    if (!under.length) continue;
    const row = { config, passingPlain: passingPlain.size, run: under.length, passing: 0, findings: 0, regressions: 0, intermittent: 0, flakyPlain: 0 };
    for (const r of under) {
      const c = classify(r);
      if (c === 'pass') row.passing++;
      else if (c === 'findings') {
        row.passing++;
        row.findings++;
        withFindings.push(r);
      } else if (c === 'flaky-plain') row.flakyPlain++;
      else {
        row.regressions++;
        if (passedOnRerun(r)) row.intermittent++;
        regressions.push(r);
      }
    }
    rows.push(row);
  }
  return { head, rows, regressions, withFindings };
}

/** Whether a program's passing plain run took longer than the limit: it is not run under the tools. */
export const tooSlow = (plainResult, limitMs) => (plainResult?.ms ?? 0) > limitMs;

/** The text of one MPI's summary: a header, the table, each regression with its first lines. */
export function formatSummary({ head, rows, regressions, withFindings = [] }, label = head.mpi) {
  const out = [];
  out.push(`=== ${label} ===`);
  out.push(
    `programs selected ${head.selected}, built ${head.built}, not built ${head.notBuilt}; run plain ${head.ranPlain}: ` +
      `passing ${head.passingPlain}, failing ${head.failingPlain}, skipped ${head.skippedPlain}`,
  );
  if (head.slowPlain?.length)
    out.push(
      `left to the whole run: ${head.slowPlain.length} passing plain in over ${head.plainLimitMs / 1000} s (--plain-limit): ${head.slowPlain.join(' ')}`,
    );
  if (rows.length) {
    const w = Math.max(13, ...rows.map((r) => r.config.length));
    out.push(`${pad('configuration', w)} | passing plain |   run | passing under it (with findings) | regressions (passed on rerun) | flaky plain`);
    out.push(`${'-'.repeat(w)}-|---------------|-------|----------------------------------|------------------------------|------------`);
    for (const r of rows) {
      const ok = `${r.passing} (${r.findings})`;
      const reg = `${r.regressions} (${r.intermittent})`;
      out.push(`${pad(r.config, w)} | ${lpad(r.passingPlain, 13)} | ${lpad(r.run, 5)} | ${lpad(ok, 32)} | ${lpad(reg, 28)} | ${lpad(r.flakyPlain, 11)}`);
    }
  } else out.push('(no tool configuration run yet)');
  for (const r of regressions) {
    const again =
      r.rerunTool === undefined
        ? ''
        : passedOnRerun(r)
          ? `; ${r.rerunTool === 'pass' ? 'passed' : 'passed with findings'} on the rerun (intermittent)`
          : '; reproduced on the rerun';
    out.push(`REGRESSION ${r.id} (${r.mpi}, ${r.config}, ${r.np} processes): ${r.why}${again}`);
    for (const l of r.lines ?? []) out.push(`    ${l}`);
  }
  for (const r of withFindings) out.push(`FINDINGS ${r.id} (${r.mpi}, ${r.config}, ${r.np} processes): ${r.why}${r.lines?.length ? `: ${r.lines[0]}` : ''}`);
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Building (everything below touches the machine)

const MPITESTCONF = `/* mpitestconf.h written by mpii's bench/conformance.mjs in place of configure's */
#define HAVE_STDARG_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_MEMORY_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_PTHREAD_H 1
#define HAVE_STRDUP 1
#define HAVE_USLEEP 1
#define HAVE_GETRUSAGE 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_LONG_INT 1
#define HAVE__BOOL 1
#define HAVE_FLOAT__COMPLEX 1
#define HAVE_DOUBLE__COMPLEX 1
#define HAVE_LONG_DOUBLE__COMPLEX 1
#define USE_LONG_DOUBLE_COMPLEX 1
#define HAVE_ATOMIC 1
#define HAVE_H_ADDR_LIST 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_IO 1
#define HAVE_MPI_SPAWN 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_MPI_TYPE_CREATE_STRUCT 1
#define HAVE_MPI2_COMBINERS 1
#define POINTERINT_t long
#define THREAD_PACKAGE_INVALID 0
#define THREAD_PACKAGE_NONE 1
#define THREAD_PACKAGE_POSIX 2
#define THREAD_PACKAGE_SOLARIS 3
#define THREAD_PACKAGE_WIN 4
#define THREAD_PACKAGE_ARGOBOTS 5
#define THREAD_PACKAGE_QTHREADS 6
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
`;
// An MPI not derived from MPICH is tested the way configure's --enable-strictmpi would: no MPIX_
const STRICT = '#define USE_STRICT_MPI 1\n#define ENABLE_STRICTMPI 1\n';
const DTPOOLSCONF =
  '#define HAVE_STDLIB_H 1\n#define HAVE_STRING_H 1\n#define HAVE_LIMITS_H 1\n#define HAVE_STDINT_H 1\n#define HAVE_SYS_TYPES_H 1\n#define HAVE_STRDUP 1\n#define HAVE_MEMSET 1\n';

const HELLO = '#include <mpi.h>\nint main(int argc, char **argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }\n';

/** The jobs running now: stopped with the runner (each job is a process group of its own, see below). */
const live = new Set();

/** Kills a job: its process group, and the descendants that left it (each Open MPI or MPICH rank has its own). */
function killTree(pid, sig) {
  const tree = descendants(pid);
  for (const p of [-pid, ...tree]) {
    try {
      process.kill(p, sig);
    } catch {
      // already gone
    }
  }
  return tree;
}

/** Ctrl-C or a kill stops the jobs too: they are in process groups of their own, the signal does not reach them. */
function stopJobsOnSignal() {
  for (const [sig, n] of [
    ['SIGINT', 2],
    ['SIGTERM', 15],
    ['SIGHUP', 1],
  ]) {
    process.on(sig, () => {
      for (const pid of live) killTree(pid, 'SIGKILL');
      process.exit(128 + n);
    });
  }
}

/** Runs a command to completion (async), capturing both streams; kills its process tree at the time limit. */
export function runCommand(argv, { cwd, env, timeoutMs }) {
  return new Promise((resolveRun) => {
    const t0 = Date.now();
    const child = spawn(argv[0], argv.slice(1), { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid) live.add(child.pid);
    const cap = 4 << 20;
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      if (out.length < cap) out += d;
    });
    child.stderr.on('data', (d) => {
      if (err.length < cap) err += d;
    });
    let timedOut = false;
    const killGroup = (sig) => {
      try {
        process.kill(-child.pid, sig);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      // Open MPI's mpirun puts each rank in a process group of its own: the launcher's descendants
      // are found now, while they still hang under it
      const tree = killTree(child.pid, 'SIGTERM');
      setTimeout(() => {
        killGroup('SIGKILL');
        for (const pid of tree) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }, 3000).unref();
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      live.delete(child.pid);
      resolveRun({ status: 127, signal: null, stdout: out, stderr: `${err}${e.message}\n`, timedOut, ms: Date.now() - t0 });
    });
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      live.delete(child.pid);
      killGroup('SIGKILL'); // ranks a launcher left behind in the group
      resolveRun({ status, signal, stdout: out, stderr: err, timedOut, ms: Date.now() - t0 });
    });
  });
}

/** The pids below `root` in the process tree (from /proc), deepest last. */
function descendants(root) {
  const children = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so the fields after the last ')'
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(d));
    } catch {
      // exited meanwhile
    }
  }
  const out = [];
  const walk = (pid) => {
    for (const c of children.get(pid) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** A pool of `jobs` workers over `tasks` (async functions), in order. */
export async function pool(tasks, jobs) {
  let next = 0;
  const worker = async (slot) => {
    while (next < tasks.length) {
      const t = tasks[next++];
      await t(slot);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, (_, i) => worker(i)));
}

const mtimeOf = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);

/** The build directory of one MPI: headers, the MTest and DTPools libraries, and a hello program. */
function prepareMpi(fl, testsDir, cacheDir, cflags) {
  const dir = join(cacheDir, fl.name);
  const inc = join(dir, 'include');
  mkdirSync(inc, { recursive: true });
  const isMpich = spawnSync(fl.cc, ['-show'], { encoding: 'utf8' }).stdout.includes('mpich');
  const conf = MPITESTCONF + (isMpich ? '' : STRICT);
  const writeIfChanged = (p, text) => {
    if (!existsSync(p) || readFileSync(p, 'utf8') !== text) writeFileSync(p, text);
  };
  writeIfChanged(join(inc, 'mpitestconf.h'), conf);
  // generated by MPICH's autogen from its bindings; runtests' own autogen makes it empty when absent
  if (!existsSync(join(testsDir, 'include', 'mtest_mpix.h'))) writeIfChanged(join(inc, 'mtest_mpix.h'), '');
  // dtpools_internal.h includes "../dtpoolsconf.h": a copy of its headers with the conf beside them
  const dtpSrc = join(testsDir, 'dtpools');
  const dtpInc = join(dir, 'dtpools', 'include');
  const haveDtp = existsSync(join(dtpSrc, 'src'));
  if (haveDtp) {
    mkdirSync(dtpInc, { recursive: true });
    for (const f of readdirSync(join(dtpSrc, 'include'))) if (f.endsWith('.h')) copyFileSync(join(dtpSrc, 'include', f), join(dtpInc, f));
    writeIfChanged(join(dir, 'dtpools', 'dtpoolsconf.h'), DTPOOLSCONF);
  }
  const incFlags = [`-I${inc}`, `-I${join(testsDir, 'include')}`, ...(haveDtp ? [`-I${dtpInc}`] : [])];
  const lib = (name, sources, extra = []) => {
    const a = join(dir, `lib${name}.a`);
    const stamp = JSON.stringify({ cc: fl.cc, cflags, incFlags, extra, sources, times: [...sources, join(inc, 'mpitestconf.h')].map(mtimeOf) });
    if (existsSync(a) && existsSync(`${a}.stamp`) && readFileSync(`${a}.stamp`, 'utf8') === stamp) return a;
    const objs = [];
    for (const src of sources) {
      const o = join(dir, 'obj', `${name}-${src.split('/').pop().replace(/\.c$/, '.o')}`);
      mkdirSync(dirname(o), { recursive: true });
      const r = spawnSync(fl.cc, [...cflags, ...incFlags, ...extra, '-c', src, '-o', o], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${fl.cc} -c ${src} failed: ${(r.stderr || '').split('\n').find((l) => /error/.test(l)) ?? r.stderr}`);
      objs.push(o);
    }
    rmSync(a, { force: true });
    const ar = spawnSync('ar', ['rcs', a, ...objs], { encoding: 'utf8' });
    if (ar.status !== 0) throw new Error(`ar failed: ${ar.stderr}`);
    writeFileSync(`${a}.stamp`, stamp);
    return a;
  };
  // run_mpitests.c is the main() of the tests written as `int run(const char *arg)` (MPICH 4.2 on):
  // in the archive, the linker takes it only for a program with no main of its own
  const util = ['mtest.c', 'mtest_common.c', 'mtest_single.c', 'dtypes.c', 'run_mpitests.c'].map((f) => join(testsDir, 'util', f)).filter(existsSync);
  const libs = [lib('mtest', util)];
  if (haveDtp) {
    const dsrc = readdirSync(join(dtpSrc, 'src'))
      .filter((f) => f.endsWith('.c'))
      .map((f) => join(dtpSrc, 'src', f));
    libs.push(lib('dtpools', dsrc, ['-DDTP_MPI_DATATYPE=MPI_INT']));
  }
  const hello = join(dir, 'hello');
  if (!existsSync(hello)) {
    writeFileSync(`${hello}.c`, HELLO);
    spawnSync(fl.cc, [`${hello}.c`, '-o', hello]);
  }
  return { dir, incFlags, libs, hello, strict: !isMpich };
}

/** Builds one program (incrementally: its recorded command and sources' times must match). Returns { ok, why, exe }. */
async function buildProgram(fl, prep, testsDir, dir, name, makefile, cflags) {
  const spec = makefile[name.replace(/[^A-Za-z0-9_]/g, '_')] ?? {};
  const sources = (spec.sources?.length ? spec.sources : [`${name}.c`]).map((s) => join(testsDir, dir, s));
  const exe = join(prep.dir, 'bin', dir, name);
  const missing = sources.find((s) => !existsSync(s));
  if (missing) return { ok: false, why: `no source ${missing.slice(testsDir.length + 1)}`, exe };
  const argv = [
    fl.cc,
    ...cflags,
    ...prep.incFlags,
    `-I${join(testsDir, dir)}`,
    ...(spec.flags ?? []),
    ...sources,
    '-o',
    exe,
    ...prep.libs,
    ...(spec.ldadd ?? []),
    '-lm',
  ];
  const stamp = JSON.stringify({ argv, times: [...sources, ...prep.libs].map(mtimeOf) });
  const stampFile = `${exe}.stamp`;
  if (existsSync(stampFile)) {
    const old = JSON.parse(readFileSync(stampFile, 'utf8'));
    if (old.stamp === stamp && (!old.ok || existsSync(exe))) return { ok: old.ok, why: old.why, exe };
  }
  mkdirSync(dirname(exe), { recursive: true });
  const r = await runCommand(argv, { cwd: dirname(exe), env: baseEnv, timeoutMs: 300_000 });
  const ok = r.status === 0;
  const lines = r.stderr.split('\n');
  const errLine = (
    lines.find((l) => /error|undefined reference/i.test(l) && !/collect2|ld returned/.test(l)) ??
    lines.find((l) => l.trim()) ??
    `exit ${r.status}`
  ).replaceAll(`${testsDir}/`, '');
  const why = ok ? '' : errLine.slice(0, 300);
  writeFileSync(stampFile, JSON.stringify({ stamp, ok, why }));
  return { ok, why, exe };
}

// ---------------------------------------------------------------------------------------------
// Running

function launchArgv(fl, cfg, t, exe, outDir) {
  const np = ['-np', String(t.np), ...fl.extra];
  if (cfg.id === 'plain') return [fl.run, ...np, exe, ...t.args];
  const mpii = ['node', MPII, 'run', '--quiet', '--mpi', fl.name, '--tools', cfg.tools, ...(cfg.chained ? ['--chained'] : []), '--out', outDir, '--force'];
  return [...mpii, ...np, exe, ...t.args];
}

async function runOne(fl, cfg, t, exe, slotDir, timeoutMs) {
  rmSync(slotDir, { recursive: true, force: true });
  mkdirSync(slotDir, { recursive: true });
  const env = { ...baseEnv };
  delete env.MPII_SPECIALISE; // compiled-in is mpii's default; chained is asked with --chained
  // Open MPI 4.1's session directory /tmp/ompi.<host>.<uid> is shared by every job of the user, and
  // two mpiruns starting at once race on it ("mkdir … File exists"): each slot has its own
  if (fl.ompi) env.OMPI_MCA_orte_tmpdir_base = slotDir;
  for (const kv of t.env) {
    const i = kv.indexOf('=');
    if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  const r = await runCommand(launchArgv(fl, cfg, t, exe, join(slotDir, 'mpii-out')), { cwd: slotDir, env, timeoutMs });
  const output = `${r.stdout}\n${r.stderr}`;
  const j = judge({ output, status: r.status, signal: r.signal, timedOut: r.timedOut, resultTest: t.resultTest });
  // the program's own lines (stdout: what it checked) before the launcher's and the MPI's (stderr)
  return {
    verdict: j.verdict,
    why: j.why,
    ms: r.ms,
    lines: j.verdict === 'fail' || j.verdict === 'findings' ? firstLines(`${r.stdout}\n${r.stderr}`) : undefined,
  };
}

function parseArgs(argv) {
  const o = {
    tests: process.env.MPICH_TESTS,
    mpis: undefined,
    dirs: DEFAULT_DIRS,
    programs: undefined,
    configs: undefined,
    jobs: Number(process.env.JOBS ?? 2),
    timeout: 60,
    results: undefined,
    cache: join(homedir(), '.cache', 'mpii-conformance'),
    fresh: false,
    json: false,
    variants: false,
    buildOnly: false,
    cflags: ['-O2', '-w'],
    plainLimit: Infinity,
  };
  const need = (i) => {
    if (argv[i + 1] === undefined) fail(`${argv[i]} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--tests') o.tests = need(i++);
    else if (a === '--mpi') o.mpis = need(i++).split(',');
    else if (a === '--dirs') o.dirs = need(i++).split(',');
    else if (a === '--programs') o.programs = new RegExp(need(i++));
    else if (a === '--configs') o.configs = new RegExp(need(i++));
    else if (a === '--jobs') o.jobs = Number(need(i++));
    else if (a === '--timeout') o.timeout = Number(need(i++));
    else if (a === '--plain-limit') o.plainLimit = Number(need(i++));
    else if (a === '--results') o.results = need(i++);
    else if (a === '--cache') o.cache = need(i++);
    else if (a === '--fresh') o.fresh = true;
    else if (a === '--json') o.json = true;
    else if (a === '--variants') o.variants = true;
    else if (a === '--build-only') o.buildOnly = true;
    else if (a === '--no-plain') o.noPlain = true;
    else if (a === '--report') o.reportOnly = true;
    else if (a === '--short') o.short = true;
    else if (a === '-h' || a === '--help') {
      console.log(
        readFileSync(new URL(import.meta.url))
          .toString()
          .split('\n')
          .filter((l) => l.startsWith('//'))
          .slice(0, 12)
          .join('\n')
          .replace(/^\/\/ ?/gm, ''),
      );
      console.log(
        'options: --tests DIR --mpi openmpi,mpich --dirs a,b --programs REGEX --configs REGEX --jobs N --timeout S --plain-limit S --results FILE --cache DIR --fresh --json --variants --build-only --no-plain --report (see docs/conformance.md)',
      );
      process.exit(0);
    } else fail(`unknown option ${a} (see --help)`);
  }
  if (!(o.jobs >= 1 && o.jobs <= 2)) fail(`--jobs/JOBS must be 1 or 2 (got ${o.jobs}): this machine has 2 cores`);
  if (!(o.timeout > 0)) fail('--timeout must be a number of seconds');
  if (!(o.plainLimit > 0)) fail('--plain-limit must be a number of seconds');
  if (o.short) {
    if (!argv.includes('--dirs')) o.dirs = SHORT.dirs;
    if (!argv.includes('--plain-limit')) o.plainLimit = SHORT.plainSeconds;
    o.configs ??= SHORT.configs;
    o.results ??= join(o.cache, `short-${mpiiCommit()}.jsonl`);
  }
  o.results ??= join(o.cache, 'results.jsonl');
  return o;
}

/** The mpii commit under test (`-dirty` when preload/ or src/ differ from it): a short run's results file. */
function mpiiCommit() {
  const git = (...args) => spawnSync('git', ['-C', resolve(dirname(MPII), '..'), ...args], { encoding: 'utf8' }).stdout?.trim() ?? '';
  const head = git('rev-parse', '--short', 'HEAD') || 'unknown';
  return git('status', '--porcelain', '--', 'preload', 'src') ? `${head}-dirty` : head;
}

/** Plain results do not depend on mpii: a new short run's file starts with the plain results of
 *  the newest results file in the cache (the whole run's or an earlier short run's). */
function seedPlain(cache, to) {
  if (existsSync(to)) return;
  const files = existsSync(cache) ? readdirSync(cache).filter((f) => f === 'results.jsonl' || /^short-.*\.jsonl$/.test(f)) : [];
  const newest = files
    .map((f) => join(cache, f))
    .filter((f) => resolve(f) !== resolve(to))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (!newest) return;
  const plain = readFileSync(newest, 'utf8')
    .split('\n')
    .filter((l) => /"config":"(plain|build)"/.test(l));
  if (plain.length) writeFileSync(to, `${plain.join('\n')}\n`);
}

/** MPI_VERSION.MPI_SUBVERSION of an MPI's mpi.h: the suite's MTEST_HAVE_MIN_MPI_VERSION checks up to it are compiled in. */
function mpiStandard(fl) {
  const r = spawnSync(fl.cc, ['-E', '-dM', '-x', 'c', '-'], { input: '#include <mpi.h>\n', encoding: 'utf8' });
  const v = (name) => new RegExp(`#define ${name} (\\d+)`).exec(r.stdout ?? '')?.[1] ?? '?';
  return `${v('MPI_VERSION')}.${v('MPI_SUBVERSION')}`;
}

function fail(msg) {
  console.error(`conformance: ${msg}`);
  process.exit(2);
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const t0 = Date.now();
  stopJobsOnSignal();
  if (!o.tests)
    fail(
      'no MPICH test suite given: set MPICH_TESTS=/path/to/test/mpi or pass --tests DIR (the test/mpi folder of the MPICH source repository, https://github.com/pmodels/mpich, any 4.x tag or main)',
    );
  const testsDir = resolve(o.tests);
  if (!existsSync(join(testsDir, 'util', 'mtest.c')) || !existsSync(join(testsDir, 'include', 'mpitest.h')))
    fail(`${testsDir} is not MPICH's test/mpi folder (no util/mtest.c and include/mpitest.h): get it from https://github.com/pmodels/mpich (test/mpi)`);
  const flavors = FLAVORS.filter((fl) => (!o.mpis || o.mpis.includes(fl.name)) && which(fl.cc) && which(fl.run));
  if (!flavors.length)
    fail(`no MPI to test: ${o.mpis ? `${o.mpis.join(',')} not installed` : 'neither mpicc.openmpi/mpirun.openmpi nor mpicc.mpich/mpirun.mpich found'}`);
  const configs = configurations().filter((c) => c.id === 'plain' || !o.configs || o.configs.test(c.id));
  mkdirSync(dirname(resolve(o.results)), { recursive: true });
  if (o.fresh) rmSync(o.results, { force: true });
  if (o.short) seedPlain(o.cache, o.results);
  const results = loadResults(existsSync(o.results) ? readFileSync(o.results, 'utf8') : '');
  const record = (r) => {
    results.set(resultKey(r), r);
    appendFileSync(o.results, `${JSON.stringify(r)}\n`);
  };
  const log = (m) => process.stderr.write(`# [${((Date.now() - t0) / 1000).toFixed(0)} s] ${m}\n`);
  const phases = [];
  const phase = async (name, body) => {
    const p0 = Date.now();
    const n = await body();
    phases.push({ phase: name, seconds: Math.round((Date.now() - p0) / 1000), runs: n });
    log(`${name}: ${n} run(s) in ${Math.round((Date.now() - p0) / 1000)} s`);
  };

  // the tests of each MPI (strict mode, and so the skipped entries, differ between them)
  const perMpi = [];
  for (const fl of flavors) {
    const prep = prepareMpi(fl, testsDir, o.cache, o.cflags);
    const tests = [];
    for (const dir of o.dirs) {
      const list = ['testlist.in', 'testlist'].map((f) => join(testsDir, dir, f)).find(existsSync);
      if (!list) fail(`${dir}: no testlist.in or testlist in ${testsDir}/${dir}`);
      const { entries } = parseTestlist(readFileSync(list, 'utf8'), { strict: prep.strict });
      const mk = existsSync(join(testsDir, dir, 'Makefile.am')) ? parseMakefileAm(readFileSync(join(testsDir, dir, 'Makefile.am'), 'utf8')) : {};
      for (const t of testIds(dir, entries, o.variants)) if (!o.programs || o.programs.test(t.id)) tests.push({ ...t, makefile: mk });
    }
    perMpi.push({ fl, prep, tests });
    log(`${fl.label}: mpi.h says MPI ${mpiStandard(fl)}: the suite's checks for that version and older are compiled in`);
  }

  if (!o.reportOnly) {
    await phase('build', async () => {
      const tasks = [];
      for (const m of perMpi) {
        const built = new Map();
        for (const t of m.tests) {
          tasks.push(async () => {
            const key = `${t.dir}/${t.name}`;
            if (!built.has(key)) built.set(key, buildProgram(m.fl, m.prep, testsDir, t.dir, t.name, t.makefile, o.cflags));
            const b = await built.get(key);
            t.exe = b.ok ? b.exe : undefined;
            const prev = results.get(resultKey({ mpi: m.fl.name, id: t.id, config: 'build' }));
            if (!prev || prev.verdict !== (b.ok ? 'pass' : 'fail') || prev.why !== b.why)
              record({ mpi: m.fl.name, id: t.id, dir: t.dir, config: 'build', verdict: b.ok ? 'pass' : 'fail', why: b.why });
          });
        }
      }
      await pool(tasks, o.jobs);
      for (const m of perMpi) log(`${m.fl.label}: ${m.tests.filter((t) => t.exe).length} of ${m.tests.length} programs built`);
      return tasks.length;
    });
    if (o.buildOnly) return finish();

    const slot = (fl, s) => join(o.cache, fl.name, 'run', `slot${s}`);
    const timeoutMs = o.timeout * 1000;
    for (const cfg of configs) {
      await phase(cfg.id, async () => {
        const tasks = [];
        for (const m of perMpi) {
          const todo = m.tests.filter((t) => {
            if (!t.exe || results.has(resultKey({ mpi: m.fl.name, id: t.id, config: cfg.id }))) return false;
            if (cfg.id === 'plain') return !o.noPlain;
            const plain = results.get(resultKey({ mpi: m.fl.name, id: t.id, config: 'plain' }));
            return plain?.verdict === 'pass' && !tooSlow(plain, o.plainLimit * 1000);
          });
          if (!todo.length) continue;
          // the stack's shim is built once, here, outside any test's time limit
          if (cfg.tools) await runOne(m.fl, cfg, { np: 1, args: [], env: [] }, m.prep.hello, slot(m.fl, 'warm'), 900_000);
          for (const t of todo) {
            tasks.push(async (s) => {
              const base = { mpi: m.fl.name, id: t.id, dir: t.dir, config: cfg.id, np: t.np, args: t.args.length ? t.args : undefined };
              const r = await runOne(m.fl, cfg, t, t.exe, slot(m.fl, s), timeoutMs);
              const rec = { ...base, ...r };
              if (cfg.tools && r.verdict !== 'pass' && r.verdict !== 'findings') {
                // a regression is rerun once under the tool and once plain
                rec.rerunTool = (await runOne(m.fl, cfg, t, t.exe, slot(m.fl, s), timeoutMs)).verdict;
                rec.rerunPlain = (await runOne(m.fl, { id: 'plain' }, t, t.exe, slot(m.fl, s), timeoutMs)).verdict;
              }
              record(rec);
              if (r.verdict !== 'pass' && r.verdict !== 'findings')
                log(`${m.fl.name} ${cfg.id} ${t.id}: ${r.verdict} (${r.why})${rec.rerunTool ? ` rerun: tool ${rec.rerunTool}, plain ${rec.rerunPlain}` : ''}`);
            });
          }
        }
        await pool(tasks, o.jobs);
        return tasks.length;
      });
    }
  }
  return finish();

  function finish() {
    const configIds = configs.map((c) => c.id);
    const wall = Math.round((Date.now() - t0) / 1000);
    const tables = perMpi.map((m) => summarise(results, m.fl.name, configIds, new Set(m.tests.map((t) => t.id)), o.plainLimit * 1000));
    if (o.json) {
      console.log(
        JSON.stringify(
          {
            tables: tables.map((t) => ({
              ...t,
              regressions: t.regressions.map(({ mpi, id, config, np, why, lines, rerunTool, rerunPlain }) => ({
                mpi,
                id,
                config,
                np,
                why,
                lines,
                rerunTool,
                rerunPlain,
              })),
              withFindings: t.withFindings.map(({ mpi, id, config, np, why, lines }) => ({ mpi, id, config, np, why, lines })),
            })),
            phases,
            wallSeconds: wall,
          },
          null,
          2,
        ),
      );
    } else {
      perMpi.forEach((m, i) => console.log(`${formatSummary(tables[i], m.fl.label)}\n`));
      for (const p of phases) console.log(`phase ${pad(p.phase, 32)} ${lpad(p.runs, 5)} run(s) ${lpad(p.seconds, 6)} s`);
      console.log(`wall time ${wall} s; results in ${o.results}`);
    }
    const regressions = tables.reduce((n, t) => n + t.regressions.length, 0);
    process.exitCode = regressions ? 1 : 0;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((e) => {
    console.error(`conformance: ${e.message}`);
    process.exit(1);
  });
}

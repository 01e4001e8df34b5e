// bench/peers.mjs - mpii against its peers, side by side in one run (issue 24, item 5):
//   mpii's `profile` against mpiP (LLNL's PMPI profiler; as it comes, and with -k 0: no call sites), and
//   mpii's `noop` layer against PnMPI's no-op module (`empty`: every MPI function passed on),
// on the same programs, same MPI, same launcher, interleaved:
//   1. the paired 8-byte ping-pong (bench/pingpong_paired.c): every run's figure is the median of
//      its pairs' (MPI_ chunk / PMPI_ chunk) ratios, so it holds the tool's cost per call pair
//      and not the machine's state; all three tools intercept MPI_ and none PMPI_;
//   2. one real program nobody here wrote: LAMMPS (Debian's lmp, Open MPI), the Lennard-Jones
//      benchmark of test/apps/in.lj, its own "Loop time"; and bench/sor.c (red-black SOR with
//      halo exchanges, both MPIs), its median time per iteration. Ratios to the plain run of the
//      same round.
// The repository holds no third-party code: the peers' sources come from the user, as checkouts
// of their public repositories (see bench/README.md, "peers.mjs"), and are built once per MPI by
// bench/peers/build.sh into $XDG_CACHE_HOME/mpii/peers/<mpi>-<sources> (or PEERS_DIR/<mpi>):
//   PEERS_SRC=DIR             DIR/mpiP and DIR/PnMPI
//   MPIP_SRC=DIR PNMPI_SRC=DIR  each one's checkout (either alone: only that peer)
//   PEERS_DIR=DIR             peers built before (DIR/<mpi>/lib/libmpiP.so, lib/libpnmpi.so,
//                             modules/empty.so, pnmpi.conf); sources given too: missing ones built there
// With none of these it says so in one line and measures nothing. A peer that does not build on
// an MPI is named and left out; the rest still runs.
//
//   npm run build && PEERS_SRC=~/src node bench/peers.mjs
//   MPI=openmpi RUNS=9 PAIRS=150 APP_RUNS=5 MPIP_SRC=~/src/mpiP node bench/peers.mjs
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { env, flavorHeader, forEachFlavor, log, lpad, median, mpiiRun, pad, quantile, ROOT, run, runRetry, shuffle } from './common.mjs';

const RUNS = Number(process.env.RUNS ?? 9); // paired ping-pong runs per configuration
const PAIRS = Number(process.env.PAIRS ?? 150);
const APP_RUNS = Number(process.env.APP_RUNS ?? 5); // rounds of each real program (0: none)
const SOR_N = Number(process.env.SOR_N ?? 512);

/** A source checkout named by `variable` (or PEERS_SRC/`sub`), checked to exist. */
function sourceDir(variable, sub) {
  const dir = process.env[variable] || (process.env.PEERS_SRC && join(process.env.PEERS_SRC, sub));
  if (!dir) return undefined;
  if (!existsSync(dir)) {
    if (!process.env[variable]) return undefined; // PEERS_SRC may hold only one of them
    console.error(`peers.mjs: ${variable}=${dir} does not exist — give the directory of a checkout (bench/README.md, "peers.mjs")`);
    process.exit(2);
  }
  return dir;
}
const SRC = { mpip: sourceDir('MPIP_SRC', 'mpiP'), pnmpi: sourceDir('PNMPI_SRC', 'PnMPI') };
if (!SRC.mpip && !SRC.pnmpi && !process.env.PEERS_DIR) {
  console.log(
    'peers.mjs: skipped: no peers given — set PEERS_SRC=DIR holding checkouts of https://github.com/LLNL/mpiP and https://github.com/LLNL/PnMPI (git clone --recursive), or MPIP_SRC/PNMPI_SRC, or PEERS_DIR (bench/README.md, "peers.mjs")',
  );
  process.exit(0);
}

const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-peers-'));
let outs = 0;
const freshOut = () => join(tmp, `out-${outs++}`);

/** What identifies a checkout: its commit when it is a git checkout (and whether files differ from
 * it), else its path and modification time. */
function sourceId(dir) {
  const git = (args) => spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  const head = git(['rev-parse', 'HEAD']);
  if (head.status === 0) return `${head.stdout.trim()}${git(['status', '--porcelain']).stdout.trim() ? '+changes' : ''}`;
  return `${dir}:${statSync(dir).mtimeMs}`;
}

/** Where this MPI's peers are built: named by the sources and the build script, so other
 * sources build anew. */
function peersDir(fl) {
  if (process.env.PEERS_DIR) return join(process.env.PEERS_DIR, fl.name);
  const h = createHash('sha256');
  for (const d of [SRC.mpip, SRC.pnmpi]) h.update(d ? sourceId(d) : '-').update('\n');
  h.update(readFileSync(join(ROOT, 'bench', 'peers', 'build.sh')));
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mpii', 'peers', `${fl.name}-${h.digest('hex').slice(0, 12)}`);
}

/** The peers of one MPI, built from the given sources when missing; `why` says why one is left out. */
function peers(fl) {
  const dir = peersDir(fl);
  const mpip = join(dir, 'lib', 'libmpiP.so');
  const pnmpi = join(dir, 'lib', 'libpnmpi.so');
  const build = { mpip: SRC.mpip && !existsSync(mpip) ? SRC.mpip : '-', pnmpi: SRC.pnmpi && !existsSync(pnmpi) ? SRC.pnmpi : '-' };
  if (build.mpip !== '-' || build.pnmpi !== '-') {
    log(`${fl.label}: building ${[build.mpip, build.pnmpi].filter((d) => d !== '-').join(' and ')} into ${dir} (a few minutes)`);
    const r = spawnSync('sh', [join(ROOT, 'bench', 'peers', 'build.sh'), fl.name, dir, build.mpip, build.pnmpi], { env, encoding: 'utf8' });
    if (r.status !== 0) log(`${fl.label}: bench/peers/build.sh failed:\n${(r.stderr || '').trim()}`);
  }
  const why = (src, variable) => (src ? 'could not be built here (see the log above)' : `not given (${variable}, PEERS_SRC) and not built in ${dir}`);
  return {
    mpip: existsSync(mpip) ? mpip : undefined,
    pnmpi: existsSync(pnmpi) ? { lib: pnmpi, modules: join(dir, 'modules'), conf: join(dir, 'pnmpi.conf') } : undefined,
    why: { mpip: why(SRC.mpip, 'MPIP_SRC'), pnmpi: why(SRC.pnmpi, 'PNMPI_SRC') },
  };
}

/** Launcher arguments that set variables in every rank (as mpii's adapters do). */
const envArgs = (fl, vars) => Object.entries(vars).flatMap(([k, v]) => (fl.ompi ? ['-x', `${k}=${v}`] : ['-genv', k, v]));

/** The configurations of one MPI: argv builders for a program with its arguments. */
function configs(fl, p) {
  const np = ['-np', '2', ...fl.extra];
  const mpii = (tools) => (prog) => mpiiRun(freshOut(), tools, ...np, ...prog);
  const list = [
    { name: 'plain', argv: (prog) => [fl.run, ...np, ...prog] },
    { name: 'mpii profile', argv: mpii('profile') },
    { name: 'mpii noop', argv: mpii('noop') },
  ];
  if (p.mpip) {
    // mpiP as it comes (call sites one frame deep, as mpii's profile), and with -k 0: no call
    // sites, no stack walk per call, the least mpiP can cost
    for (const [name, opts] of [
      ['mpiP', ''],
      ['mpiP -k 0', ' -k 0'],
    ]) {
      let out = '';
      list.push({
        name,
        argv: (prog) => {
          out = freshOut();
          mkdirSync(out);
          return [fl.run, ...envArgs(fl, { LD_PRELOAD: p.mpip, MPIP: `-f ${out}${opts}` }), ...np, ...prog];
        },
        // mpiP really was there: it wrote its report
        check: () => readdirSync(out).some((f) => f.endsWith('.mpiP')) || `mpiP wrote no report into ${out}: not loaded?`,
      });
    }
  }
  if (p.pnmpi) {
    list.push({
      name: 'PnMPI empty',
      argv: (prog) => [fl.run, ...envArgs(fl, { LD_PRELOAD: p.pnmpi.lib, PNMPI_LIB_PATH: p.pnmpi.modules, PNMPI_CONF: p.pnmpi.conf }), ...np, ...prog],
      // PnMPI really was there: its start-up banner names the module it loaded
      check: (r) => /empty/.test(r.stdout + r.stderr) || 'PnMPI did not name the empty module: not loaded?',
    });
  }
  return list;
}

/** Runs every configuration once (warm-up: builds the shim if needed) and checks the peers. */
function warm(cfgs, prog) {
  for (const c of cfgs) {
    const r = runRetry(c.argv(prog));
    const ok = c.check ? c.check(r) : true;
    if (ok !== true) throw new Error(`${c.name}: ${ok}`);
  }
}

const fmt = (x, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : '-');

/** The paired ping-pong: RUNS runs per configuration, interleaved; median of the runs' ratios. */
function pingpong(fl, cfgs, exe) {
  const prog = [exe, String(PAIRS), '1000', '8'];
  const runs = new Map(cfgs.map((c) => [c.name, []]));
  warm(cfgs, prog);
  for (let i = 0; i < RUNS; i++) {
    for (const c of shuffle(cfgs)) {
      const m = /direct_ns=([\d.]+) stack_ns=([\d.]+) ratio=([\d.]+)/.exec(runRetry(c.argv(prog)).stdout);
      if (!m) throw new Error(`${c.name}: no ratio in the output of bench/pingpong_paired.c`);
      runs.get(c.name).push({ direct: Number(m[1]), stack: Number(m[2]), ratio: Number(m[3]) });
    }
    log(`${fl.label}: ping-pong round ${i + 1}/${RUNS}`);
  }
  const lines = [
    `paired 8-byte ping-pong, -np 2, ${RUNS} runs x ${PAIRS} pairs of 1000 round trips per configuration; per run the median of (MPI_ chunk / PMPI_ chunk)`,
  ];
  lines.push(`  ${pad('configuration', 14)} ${lpad('ratio', 7)} ${lpad('[q1–q3]', 15)} ${lpad('ns added', 9)}  per half round trip`);
  const row = {};
  for (const c of cfgs) {
    const rs = runs.get(c.name);
    const ratios = rs.map((r) => r.ratio);
    const added = median(rs.map((r) => (r.ratio - 1) * r.direct));
    row[c.name] = { ratio: median(ratios), added };
    lines.push(
      `  ${pad(c.name, 14)} ${lpad(fmt(median(ratios)) + 'x', 7)} ${lpad(`[${fmt(quantile(ratios, 0.25))}–${fmt(quantile(ratios, 0.75))}]`, 15)} ${lpad(fmt(added, 1), 9)}`,
    );
  }
  const vs = (a, b) =>
    row[a] && row[b]
      ? `${a} adds ${fmt(row[a].added, 1)} ns, ${b} ${fmt(row[b].added, 1)} ns (${fmt(row[b].added / row[a].added, 1)}x mpii's)`
      : `${b}: not built`;
  lines.push(`  profile vs mpiP: ${vs('mpii profile', 'mpiP')}`);
  lines.push(`  profile vs mpiP -k 0 (mpiP without call sites): ${vs('mpii profile', 'mpiP -k 0')}`);
  lines.push(`  no-op layer vs PnMPI: ${vs('mpii noop', 'PnMPI empty')}`);
  return lines;
}

/** A real program: APP_RUNS interleaved rounds; its own time; ratios to plain of the same round. */
function app(fl, cfgs, title, prog, parse) {
  const times = new Map(cfgs.map((c) => [c.name, []]));
  warm(cfgs, prog);
  for (let i = 0; i < APP_RUNS; i++) {
    for (const c of shuffle(cfgs)) {
      const r = runRetry(c.argv(prog));
      const t = parse(r.stdout);
      if (!Number.isFinite(t)) throw new Error(`${title}: no time in the output under ${c.name}`);
      times.get(c.name).push(t);
    }
    log(`${fl.label}: ${title} round ${i + 1}/${APP_RUNS}`);
  }
  const plain = times.get('plain');
  const lines = [`${title}: ${APP_RUNS} interleaved rounds; median of the program's time, ratio to plain (median of per-round ratios)`];
  for (const c of cfgs) {
    const ts = times.get(c.name);
    const ratios = ts.map((t, i) => t / plain[i]);
    lines.push(
      `  ${pad(c.name, 14)} ${lpad(fmt(median(ts), 4), 10)}  ${lpad(fmt(median(ratios)) + 'x', 7)} [${fmt(quantile(ratios, 0.25))}–${fmt(quantile(ratios, 0.75))}]`,
    );
  }
  return lines;
}

forEachFlavor(tmp, (fl) => {
  const p = peers(fl);
  const cfgs = configs(fl, p);
  const exe = join(tmp, `pingpong-paired-${fl.name}`);
  run([fl.cc, '-O2', '-o', exe, join(ROOT, 'bench', 'pingpong_paired.c')]);
  const sor = join(tmp, `sor-${fl.name}`);
  run([fl.cc, '-O2', '-o', sor, join(ROOT, 'bench', 'sor.c'), '-lm']);
  console.log(flavorHeader(fl));
  if (!p.mpip) console.log(`mpiP: ${p.why.mpip}; left out`);
  if (!p.pnmpi) console.log(`PnMPI: ${p.why.pnmpi}; left out`);
  for (const l of pingpong(fl, cfgs, exe)) console.log(l);
  if (APP_RUNS > 0)
    for (const l of app(fl, cfgs, `bench/sor.c sendrecv n=${SOR_N}, -np 2, ms per iteration`, [sor, 'sendrecv', String(SOR_N), '20'], (out) =>
      Number(/median_ms=([\d.]+)/.exec(out)?.[1]),
    ))
      console.log(l);
  const lmp = spawnSync('sh', ['-c', 'command -v lmp'], { encoding: 'utf8' }).stdout.trim();
  const lmpFlavor = lmp && /libmpi\.so\.40/.test(spawnSync('ldd', [lmp], { encoding: 'utf8' }).stdout) ? 'openmpi' : lmp ? 'mpich' : '';
  if (APP_RUNS > 0 && lmp && lmpFlavor === fl.name) {
    for (const l of app(
      fl,
      cfgs,
      'LAMMPS (Debian lmp) Lennard-Jones, 32,000 atoms, 100 steps, -np 2, Loop time s',
      [lmp, '-log', 'none', '-in', join(ROOT, 'test', 'apps', 'in.lj')],
      (out) => Number(/Loop time of ([\d.]+)/.exec(out)?.[1]),
    ))
      console.log(l);
  } else if (!lmp) console.log('LAMMPS: no lmp on PATH (apt-get install lammps), left out');
  console.log('');
  return 0;
});

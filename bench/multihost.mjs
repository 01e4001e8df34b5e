// bench/multihost.mjs - small-message latency between two "hosts" made of network namespaces
// (scripts/netns-hosts.sh, root needed): plain TCP between the namespaces against MPI ping-pong
// over TCP, Open MPI with its default binding and with --bind-to none, and each MPI under mpii
// (empty stack) beside the same launch without it. Interleaved rounds, medians of half round trips.
// Why the default binding is slow: see README, "Multi-host".
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MPII, ROOT, env, installedFlavors, log, lpad, median, pad, run, shuffle } from './common.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const NAME = `mpiibh${process.pid % 10000}`;
const HOSTS = join(ROOT, 'scripts', 'netns-hosts.sh');
const RSH = join(ROOT, 'scripts', 'netns-rsh');
const work = mkdtempSync(join(tmpdir(), 'mpii-bench-mh-'));
const ips = run([HOSTS, 'up', '2', NAME]).stdout.trim().split('\n');
env.PMIX_MCA_gds = 'hash';

function tcpBaseline(n) {
  // a TCP_NODELAY ping-pong of 8 bytes in Python: what the kernel path between namespaces costs
  const py = join(work, 'tcp.py');
  writeFileSync(
    py,
    [
      'import socket, sys, time',
      'mode, host, n = sys.argv[1], sys.argv[2], int(sys.argv[3])',
      'if mode == "s":',
      '    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((host, 5999)); s.listen(1)',
      '    c, _ = s.accept(); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)',
      '    for _ in range(n + 100): c.sendall(c.recv(8))',
      'else:',
      '    c = socket.create_connection((host, 5999)); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)',
      '    for _ in range(100): c.sendall(b"x" * 8); c.recv(8)',
      '    t = time.perf_counter()',
      '    for _ in range(n): c.sendall(b"x" * 8); c.recv(8)',
      '    print((time.perf_counter() - t) / n / 2 * 1e9)',
    ].join('\n'),
  );
  const server = spawn('ip', ['netns', 'exec', `${NAME}1`, 'python3', py, 's', ips[1], String(n)], { stdio: 'ignore' });
  spawnSync('sleep', ['0.5']);
  const r = run(['ip', 'netns', 'exec', `${NAME}0`, 'python3', py, 'c', ips[1], String(n)]);
  server.kill();
  return Number(r.stdout.trim());
}

try {
  const hf = join(work, 'hosts');
  writeFileSync(hf, ips.map((ip) => `${ip} slots=1\n`).join(''));
  writeFileSync(`${hf}.mpich`, ips.map((ip) => `${ip}:1\n`).join(''));
  const configs = [{ name: 'plain TCP (Python, TCP_NODELAY)', fn: () => tcpBaseline(5000) }];
  for (const fl of installedFlavors()) {
    const pp = join(work, `pingpong-${fl.name}`);
    run([fl.cc, '-O2', '-o', pp, join(ROOT, 'bench', 'pingpong.c')]);
    const launch = fl.ompi
      ? (bind) => ['--hostfile', hf, '--mca', 'plm_rsh_agent', RSH, '--mca', 'btl', 'tcp,self', ...bind, '-np', '2']
      : // UCX (MPICH's ch4:ucx) would find the peer's shared memory on the same kernel: TCP only
        () => [
          '-f',
          `${hf}.mpich`,
          '-launcher',
          'ssh',
          '-launcher-exec',
          RSH,
          '-iface',
          `${NAME}br`,
          '-genv',
          'UCX_TLS',
          'tcp',
          '-genv',
          'MPIR_CVAR_NOLOCAL',
          '1',
          '-np',
          '2',
        ];
    const half = (argv) => Number(/half_rtt_ns=([\d.]+)/.exec(run(argv).stdout)[1]);
    if (fl.ompi) configs.push({ name: `${fl.label}, default binding (core 0 on every host)`, fn: () => half([fl.run, ...launch([]), pp, '200']) });
    const bind = fl.ompi ? ['--bind-to', 'none'] : [];
    configs.push({ name: `${fl.label}${fl.ompi ? ', --bind-to none' : ''}`, fn: () => half([fl.run, ...launch(bind), pp, '5000']) });
    configs.push({
      name: `${fl.label}${fl.ompi ? ', --bind-to none' : ''}, mpii empty stack`,
      fn: () => half(['node', MPII, 'run', '--quiet', '--tools', '', '--out', join(work, 'out'), '--force', ...launch(bind), pp, '5000']),
    });
  }
  const times = new Map(configs.map((c) => [c.name, []]));
  for (let r = 1; r <= ROUNDS; r++) {
    log(`round ${r}/${ROUNDS}`);
    for (const c of shuffle(configs)) times.get(c.name).push(c.fn());
  }
  console.log(`8-byte half round trip between two network namespaces, median of ${ROUNDS} interleaved rounds`);
  for (const c of configs) console.log(`  ${pad(c.name, 58)} ${lpad((median(times.get(c.name)) / 1000).toFixed(1), 9)} µs`);
  for (const fl of installedFlavors()) {
    const base = [...times.keys()].find((k) => k.startsWith(fl.label) && !k.includes('mpii') && !k.includes('default'));
    const with_ = [...times.keys()].find((k) => k.startsWith(fl.label) && k.includes('mpii'));
    console.log(`  ${fl.label}: mpii empty stack / without = ${(median(times.get(with_)) / median(times.get(base))).toFixed(2)}×`);
  }
} finally {
  run([HOSTS, 'down', '2', NAME]);
  rmSync(work, { recursive: true, force: true });
}

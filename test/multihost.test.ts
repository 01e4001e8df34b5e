// Multi-host jobs through `mpii run`, both MPIs: two "hosts" made of network namespaces joined by
// veth pairs to a bridge (scripts/netns-hosts.sh, root needed), reached through
// scripts/netns-rsh as Open MPI's rsh agent / hydra's launcher. Each rank must run on its own
// host (own network stack, own host name), go through the tools, and the profile must be gathered
// over MPI (TCP between the namespaces) into one report. Then the same with an output directory
// the hosts do not share (NETNS_PRIVATE_DIR: each host has its own): with mpii on host 1 and
// rank 0 on host 0, rank 1 (which sees the file mpii put there) writes the profile where mpii
// reads it; with mpii on no rank's host, rank 0 writes it on its own host and says where.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, execaSync } from 'execa';
import { MPII, ROOT, TCP_JOB_LIMIT, TEST_ENV, mpii, outDir, program, retryFinalizeHang, type Flavor, type Run } from './helpers.js';
import { readProfile } from '../src/profile-file/read.js';

const HOSTS = join(ROOT, 'scripts', 'netns-hosts.sh');
const RSH = join(ROOT, 'scripts', 'netns-rsh');
const NAME = `mpiimh${process.pid % 10000}`;

// Each namespace is a host of its own to Open MPI, whose orted binds its first rank to core 0:
// both ranks would share one core and take turns every scheduler tick (4 ms latency instead of
// tens of µs, see docs/multihost.md), hence --bind-to none. PMIx's shared-memory store cannot be
// shared between the fake hosts' orteds: the hash store instead. MPICH's UCX would reach the other
// namespace's ranks through shared memory (one kernel): TCP only, and no MPICH shared memory;
// hydra's interface is the bridge here, eth0 inside a namespace.
const LAUNCH: Record<Flavor, (hostfile: string, iface: string) => string[]> = {
  openmpi: (hf) => ['--hostfile', hf, '--mca', 'plm_rsh_agent', RSH, '--bind-to', 'none', '--mca', 'btl', 'tcp,self', '-np', '2'],
  mpich: (hf, iface) => [
    '-f',
    hf,
    '-launcher',
    'ssh',
    '-launcher-exec',
    RSH,
    '-iface',
    iface,
    '-genv',
    'UCX_TLS',
    'tcp',
    '-genv',
    'MPIR_CVAR_NOLOCAL',
    '1',
    '-np',
    '2',
  ],
};
const ENV = { PMIX_MCA_gds: 'hash' };

async function assertRing(out: string, hosts: string[]): Promise<void> {
  const p = readProfile(out);
  assert.equal(p.complete, true);
  assert.deepEqual(
    p.ranks.map((x) => x.host),
    hosts,
    'each rank ran in its own namespace',
  );
  const rep = JSON.parse((await mpii(['report', out, '--json', '--ranks'])).stdout);
  const sends = rep.traceCount[0].rows.find((x: { fn: string }) => x.fn === 'MPI_Send');
  assert.equal(sends.total, 8);
  const r0 = rep.monitor[0].ranks.find((x: { rank: number }) => x.rank === 0);
  assert.deepEqual(r0.peers.find((x: { peer: number }) => x.peer === 1).p2p, { count: 4, bytes: 16 });
}

/** `mpii run`'s arguments for the ring under trace-count + monitor into `out`, one rank per host
 *  (`launch`: the launcher's arguments), with `--quiet` or not. */
const ringArgs = (f: Flavor, out: string, launch: string[], quiet: boolean) => [
  'run',
  ...(quiet ? ['--quiet'] : []),
  '--force',
  '--timeout',
  String(TCP_JOB_LIMIT.seconds),
  '--tools',
  'trace-count,monitor',
  '--out',
  out,
  ...launch,
  program(f, 'ring'),
  '4',
];

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe('multi-host jobs on network namespaces', () => {
  let ips: string[] = [];
  let files = '';
  const hostfile: Record<Flavor, string> = { openmpi: '', mpich: '' };
  before(() => {
    ips = execaSync(HOSTS, ['up', '2', NAME]).stdout.trim().split('\n');
    files = outDir('hf');
    mkdirSync(files, { recursive: true });
    hostfile.openmpi = join(files, 'hosts');
    hostfile.mpich = `${hostfile.openmpi}.mpich`;
    writeFileSync(hostfile.openmpi, ips.map((ip) => `${ip} slots=1\n`).join(''));
    writeFileSync(hostfile.mpich, ips.map((ip) => `${ip}:1\n`).join(''));
    // Open MPI puts rank 0 on mpirun's own host when it is in the hostfile: pin it to host 0
    writeFileSync(join(files, 'ranks'), ips.map((ip, r) => `rank ${r}=${ip} slot=0-1\n`).join(''));
  });
  after(() => {
    execaSync(HOSTS, ['down', '2', NAME]);
  });

  for (const f of ['openmpi', 'mpich'] as Flavor[]) {
    it(`${f}: ring under trace-count + monitor, one rank per host, profile gathered over TCP`, async () => {
      const out = outDir(`multihost-${f}`);
      const r = await retryFinalizeHang(f, () => mpii(ringArgs(f, out, LAUNCH[f](hostfile[f], `${NAME}br`), true), ENV), `${f} ring`);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /ring ok size=2 token=8/);
      assert.doesNotMatch(r.stderr, /shares the output directory/, "rank 0 sees mpii's file: it writes the profile, silently");
      await assertRing(out, [`${NAME}0`, `${NAME}1`]);
    });
  }

  describe('an output directory the hosts do not share', () => {
    let priv = '';
    before(() => {
      priv = mkdtempSync(join(tmpdir(), 'mpii-private-'));
    });
    after(() => {
      for (const d of [priv, hostView(0), hostView(1)]) rmSync(d, { recursive: true, force: true });
    });
    /** what host `i` sees at `priv` (scripts/netns-rsh) */
    const hostView = (i: number) => `${priv}.${NAME}${i}`;

    for (const f of ['openmpi', 'mpich'] as Flavor[]) {
      it(`${f}: mpii on host 1, rank 0 on host 0: rank 1 writes profile.mpii on mpii's host, which reports it`, async () => {
        const out = join(priv, `mine-${f}`);
        const launch = [...LAUNCH[f](hostfile[f], 'eth0'), ...(f === 'openmpi' ? ['--rankfile', join(files, 'ranks')] : [])];
        const command = ['node', MPII, ...ringArgs(f, out, launch, false)];
        // mpii itself runs on host 1, in host 1's view of the private directory
        const r: Run = await retryFinalizeHang(
          f,
          async () => {
            const run = await execa(RSH, [ips[1], `cd ${quote(ROOT)} && ${command.map(quote).join(' ')}`], {
              env: { ...TEST_ENV, ...ENV, NETNS_PRIVATE_DIR: priv },
              reject: false,
              timeout: 300_000,
            });
            return { code: run.exitCode ?? -1, stdout: run.stdout, stderr: run.stderr };
          },
          `${f} mine`,
        );
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /ring ok size=2 token=8/);
        assert.match(r.stderr, /MPI_Send\s+8\s+4\s+4/, 'mpii read the profile on its host and reported it');
        assert.equal(existsSync(join(hostView(0), `mine-${f}`, 'profile.mpii')), false, "nothing written on rank 0's host");
        assert.deepEqual(readdirSync(join(hostView(0), `mine-${f}`)), [], "rank 0's live file removed after the gather");
        await assertRing(join(hostView(1), `mine-${f}`), [`${NAME}0`, `${NAME}1`]);
      });

      it(`${f}: mpii on no rank's host: rank 0 writes profile.mpii on its host and says where`, async () => {
        const out = join(priv, `away-${f}`);
        const launch = LAUNCH[f](hostfile[f], `${NAME}br`);
        const r = await retryFinalizeHang(f, () => mpii(ringArgs(f, out, launch, false), { ...ENV, NETNS_PRIVATE_DIR: priv }), `${f} away`);
        assert.equal(r.code, 0, r.stderr);
        assert.match(
          r.stderr,
          new RegExp(`MPII 0: no rank's host shares the output directory with mpii run's: the profile is written on ${NAME}0, in ${out}/profile\\.mpii`),
        );
        assert.match(r.stderr, new RegExp(`mpii: no profile to report: .*rank 0 wrote profile\\.mpii on its own host .*copy it into ${out} `));
        await assertRing(join(hostView(0), `away-${f}`), [`${NAME}0`, `${NAME}1`]);
      });
    }
  });
});

// Multi-host jobs through `mpii run`, both MPIs: two "hosts" made of network namespaces joined by
// veth pairs to a bridge (scripts/netns-hosts.sh, root needed), reached through
// scripts/netns-rsh as Open MPI's rsh agent / hydra's launcher. Each rank must run on its own
// host (own network stack, own host name), go through the tools, and the profile must be gathered
// over MPI (TCP between the namespaces) into one report.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execaSync } from 'execa';
import { ROOT, mpii, outDir, program, type Flavor } from './helpers.js';
import { readProfile } from '../src/profile/read.js';

const HOSTS = join(ROOT, 'scripts', 'netns-hosts.sh');
const RSH = join(ROOT, 'scripts', 'netns-rsh');
const NAME = `mpiimh${process.pid % 10000}`;

// Each namespace is a host of its own to Open MPI, whose orted binds its first rank to core 0:
// both ranks would share one core and take turns every scheduler tick (4 ms latency instead of
// tens of µs, see README "Multi-host"), hence --bind-to none. PMIx's shared-memory store cannot be
// shared between the fake hosts' orteds: the hash store instead. MPICH's UCX would reach the other
// namespace's ranks through shared memory (one kernel): TCP only, and no MPICH shared memory.
const LAUNCH: Record<Flavor, (hostfile: string) => string[]> = {
  openmpi: (hf) => ['--hostfile', hf, '--mca', 'plm_rsh_agent', RSH, '--bind-to', 'none', '--mca', 'btl', 'tcp,self', '-np', '2'],
  mpich: (hf) => ['-f', hf, '-launcher', 'ssh', '-launcher-exec', RSH, '-iface', `${NAME}br`,
    '-genv', 'UCX_TLS', 'tcp', '-genv', 'MPIR_CVAR_NOLOCAL', '1', '-np', '2'],
};

describe('multi-host jobs on network namespaces', () => {
  let ips: string[] = [];
  const hostfile: Record<Flavor, string> = { openmpi: '', mpich: '' };
  before(() => {
    ips = execaSync(HOSTS, ['up', '2', NAME]).stdout.trim().split('\n');
    hostfile.openmpi = join(outDir('hf'), 'hosts');
    hostfile.mpich = `${hostfile.openmpi}.mpich`;
    execaSync('mkdir', ['-p', join(hostfile.openmpi, '..')]);
    writeFileSync(hostfile.openmpi, ips.map((ip) => `${ip} slots=1\n`).join(''));
    writeFileSync(hostfile.mpich, ips.map((ip) => `${ip}:1\n`).join(''));
  });
  after(() => {
    execaSync(HOSTS, ['down', '2', NAME]);
  });

  for (const f of ['openmpi', 'mpich'] as Flavor[]) {
    it(`${f}: ring under trace-count + monitor, one rank per host, profile gathered over TCP`, async () => {
      const out = outDir(`multihost-${f}`);
      const r = await mpii(['run', '--quiet', '--tools', 'trace-count,monitor', '--out', out, ...LAUNCH[f](hostfile[f]), program(f, 'ring'), '4'],
        { PMIX_MCA_gds: 'hash' });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /ring ok size=2 token=8/);
      const p = readProfile(out);
      assert.equal(p.complete, true);
      assert.deepEqual(p.ranks.map((x) => x.host), [`${NAME}0`, `${NAME}1`], 'each rank ran in its own namespace');
      const rep = JSON.parse((await mpii(['report', out, '--json'])).stdout);
      const sends = rep.traceCount[0].rows.find((x: { fn: string }) => x.fn === 'MPI_Send');
      assert.equal(sends.total, 8);
      const r0 = rep.monitor[0].ranks.find((x: { rank: number }) => x.rank === 0);
      assert.deepEqual(r0.peers.find((x: { peer: number }) => x.peer === 1).p2p, { count: 4, bytes: 16 });
    });
  }
});

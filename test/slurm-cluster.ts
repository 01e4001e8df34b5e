// A real single-node Slurm for the tests (Debian's slurmctld, slurmd and munge, root needed):
// configuration, state, logs and munge's key in a temporary directory, daemons on loopback ports
// of their own, no cgroups (proctrack/linuxproc, task/none: works in containers). stop() shuts
// everything down and waits until no daemon is left.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { execa, execaSync } from 'execa';

export interface SlurmCluster {
  /** the node's name (this host's short name) */
  node: string;
  /** the environment the Slurm commands need (SLURM_CONF), without any outer job's SLURM_* */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  await new Promise((done) => server.close(done));
  return port;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function pidOf(file: string): number | undefined {
  try {
    return Number.parseInt(readFileSync(file, 'utf8'), 10) || undefined;
  } catch {
    return undefined;
  }
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));

/** Waits up to `ms` for `pid` to end, then kills it. */
async function waitGone(pid: number | undefined, ms: number): Promise<void> {
  if (!pid) return;
  for (let t = 0; t < ms && alive(pid); t += 200) await sleep(200);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

function conf(dir: string, node: string, ctldPort: number, slurmdPort: number): string {
  return `# written by test/slurm-cluster.ts
ClusterName=mpiitest
SlurmctldHost=${node}(127.0.0.1)
SlurmctldPort=${ctldPort}
SlurmdPort=${slurmdPort}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=${dir}/munge.sock
StateSaveLocation=${dir}/state
SlurmdSpoolDir=${dir}/spool
SlurmctldPidFile=${dir}/slurmctld.pid
SlurmdPidFile=${dir}/slurmd.pid
SlurmctldLogFile=${dir}/log/slurmctld.log
SlurmdLogFile=${dir}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
NodeName=${node} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
`;
}

export async function startSlurm(): Promise<SlurmCluster> {
  const node = hostname().split('.')[0];
  const dir = mkdtempSync(join(tmpdir(), 'mpii-slurm-'));
  chmodSync(dir, 0o755); // munged wants its socket's directory reachable by everyone
  const priv = join(dir, 'private');
  for (const d of [priv, join(dir, 'state'), join(dir, 'spool'), join(dir, 'log')]) mkdirSync(d);
  chmodSync(priv, 0o700);
  writeFileSync(join(priv, 'munge.key'), randomBytes(1024), { mode: 0o600 });
  writeFileSync(join(dir, 'slurm.conf'), conf(dir, node, await freePort(), await freePort()));
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SLURM')));
  env.SLURM_CONF = join(dir, 'slurm.conf');

  const stop = async () => {
    execaSync('scontrol', ['shutdown'], { env, reject: false, timeout: 20_000 }); // slurmctld and every slurmd
    await waitGone(pidOf(join(dir, 'slurmctld.pid')), 20_000);
    await waitGone(pidOf(join(dir, 'slurmd.pid')), 20_000);
    const munged = pidOf(join(dir, 'munged.pid'));
    if (munged && alive(munged)) process.kill(munged, 'SIGTERM');
    await waitGone(munged, 10_000);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const run = (cmd: string, args: string[]) => execaSync(cmd, args, { env, timeout: 30_000 }); // each forks its daemon
    run('munged', [
      `--socket=${dir}/munge.sock`,
      `--key-file=${priv}/munge.key`,
      `--log-file=${priv}/munged.log`,
      `--pid-file=${dir}/munged.pid`,
      `--seed-file=${priv}/munged.seed`,
    ]);
    run('slurmctld', []);
    run('slurmd', ['-N', node]);
    for (let t = 0; ; t += 500) {
      const state = (await execa('sinfo', ['-h', '-n', node, '-o', '%T'], { env, reject: false, timeout: 10_000 })).stdout.trim();
      if (state === 'idle') break;
      if (t > 60_000) {
        const log = (f: string) => {
          try {
            return readFileSync(join(dir, 'log', f), 'utf8')
              .split('\n')
              .slice(-15)
              .join('\n');
          } catch {
            return '(none)';
          }
        };
        throw new Error(`the Slurm node did not become idle (state '${state}')\nslurmctld.log:\n${log('slurmctld.log')}\nslurmd.log:\n${log('slurmd.log')}`);
      }
      await sleep(500);
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return { node, env, stop };
}

// --copy-shim: for clusters where mpii's cache is not on a filesystem every node shares. Before
// the job, Slurm's sbcast copies the shim and the tools' libraries to node-local /tmp on every
// node of the allocation (under names unique to this job and this mpii, so concurrent runs do not
// meet); after it, one task per node removes them.
import { spawnSync } from 'node:child_process';
import { basename } from 'node:path';
import { MpiiError } from '../errors.js';
import { slurmCommand, slurmFailure } from './srun.js';

export interface SlurmJob {
  jobId: string;
  nodes: number;
}

export interface NodeCopies extends SlurmJob {
  /** [library on this host, its copy on every node] */
  files: [string, string][];
}

/** The allocation mpii runs in (salloc, sbatch): sbcast can only copy to a job's nodes. */
export function currentJob(env: NodeJS.ProcessEnv): SlurmJob {
  const jobId = env.SLURM_JOB_ID ?? env.SLURM_JOBID;
  if (!jobId) {
    throw new MpiiError('--copy-shim needs a Slurm allocation: sbcast copies to the nodes of a job', 'run mpii inside salloc or an sbatch script');
  }
  return { jobId, nodes: Number.parseInt(env.SLURM_JOB_NUM_NODES ?? env.SLURM_NNODES ?? '1', 10) || 1 };
}

/** Where each library goes on the nodes. */
export function planCopies(libraries: string[], job: SlurmJob): NodeCopies {
  const files = [...new Set(libraries)].map((lib, i): [string, string] => [lib, `/tmp/mpii-${job.jobId}-${process.pid}-${i}-${basename(lib)}`]);
  return { ...job, files };
}

export function copyToNodes(c: NodeCopies, env: NodeJS.ProcessEnv): void {
  const sbcast = slurmCommand('sbcast', env);
  for (const [from, to] of c.files) {
    const r = spawnSync(sbcast, ['--force', `--jobid=${c.jobId}`, from, to], { env, encoding: 'utf8', timeout: 300_000 });
    if (r.status !== 0) {
      throw new MpiiError(
        `sbcast could not copy ${from} to ${to} on the nodes (${slurmFailure(r)})`,
        'check that /tmp is writable on the nodes, or drop --copy-shim if the cache is on a shared filesystem',
      );
    }
  }
}

/** Removes the copies; returns a warning when that failed (the job's result stands). */
export function removeFromNodes(c: NodeCopies, env: NodeJS.ProcessEnv): string | undefined {
  const n = String(c.nodes);
  // --overlap: a step still running in the allocation must not keep the clean-up waiting
  const r = spawnSync(
    slurmCommand('srun', env),
    [`--jobid=${c.jobId}`, '--overlap', '--mpi=none', '-N', n, '-n', n, '--ntasks-per-node=1', 'rm', '-f', ...c.files.map(([, to]) => to)],
    { env, encoding: 'utf8', timeout: 120_000 },
  );
  if (r.status === 0) return undefined;
  return `could not remove the copies of the shim from the nodes' /tmp (${c.files.map(([, to]) => to).join(' ')}): ${slurmFailure(r)}`;
}

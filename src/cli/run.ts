// `mpii run`: probe (the stack, the MPI, the launcher, the output directory, the shim), plan
// (pure: src/run/plan.ts), then print the plan (--dry-run) or execute it (src/run/execute.ts,
// which owns the signals and the output directory). docs/architecture.md, "mpii run: plan, then
// execute".
import { join } from 'node:path';
import { ROOT } from '../paths.js';
import { parseRunArgs } from '../launch/args.js';
import { executePlan, withRun } from '../run/execute.js';
import { describePlan, planRun } from '../run/plan.js';
import { probeRun } from '../run/probe.js';
import { buildWithSpinner } from './shim-build.js';
import { cachedGeneral } from '../shim/shim.js';

export const DEFAULTS_FILE = join(ROOT, 'config', 'tools.yaml');

export async function runCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return withRun(async (run) => {
    const args = parseRunArgs(argv, env);
    const plan = planRun(await probeRun(args, env, run, { defaultsFile: DEFAULTS_FILE, build: buildWithSpinner, generalCached: cachedGeneral }));
    if (args.dryRun) {
      for (const line of describePlan(plan)) console.log(line);
      return 0;
    }
    return executePlan(plan, run, env);
  });
}

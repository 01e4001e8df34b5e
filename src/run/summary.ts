// The report `mpii run` prints after the job (unless --quiet): the profile's summary, or one line
// saying why there is none. The job's exit code stands whatever happens here.
import type { ToolInstance } from '../config/resolve.js';
import { ENV } from '../environment.gen.js';
import { MpiiError } from '../errors.js';
import { injIgnored } from './environment.js';
import { elsewhere } from './output-dir.js';
import { toolReportOptions } from './plan.js';

export async function reportAfterJob(code: number, outDir: string, tools: ToolInstance[], env: NodeJS.ProcessEnv): Promise<void> {
  if (injIgnored(env)) {
    process.stderr.write(`mpii: no profile: INJ_IGNORE=${env[ENV.INJ_IGNORE]} switched the tools off on purpose (unset INJ_IGNORE to run them)\n`);
    return;
  }
  try {
    // loaded only now: the job's start does not wait for the report code
    const { readProfile } = await import('../profile-file/read.js');
    const { formatSummary, wantColor } = await import('../report/summary.js');
    const opts = { ...toolReportOptions(tools), color: wantColor(process.stderr, env) };
    process.stderr.write(`${formatSummary(readProfile(outDir), opts)}\n`);
  } catch (e) {
    const hint = code === 0 ? elsewhere(outDir) : '';
    if (e instanceof MpiiError) process.stderr.write(`mpii: no profile to report: ${e.message}${hint}\n`);
    else process.stderr.write(`mpii: could not make the report (${(e as Error).message ?? e}); mpii report ${outDir} tries again\n`);
  }
}

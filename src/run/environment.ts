// The ranks' environment: what `mpii run` hands to every rank (preload/spec/environment.yaml
// declares each variable, who sets it and who reads it).
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { ToolInstance } from '../config/resolve.js';
import { ENV, ENV_INT_DEFAULT, ENV_PASSED_ON } from '../environment.gen.js';
import type { Shim } from '../shim/shim.js';
import { envInt } from './env-int.js';

/** The variables every rank needs; INJ_* are passed on only when the user set them. `place`
 * says where a library of this host is on the nodes (--copy-shim puts copies in their /tmp). */
export function rankEnvironment(
  shim: Shim,
  tools: ToolInstance[],
  outDir: string,
  env: NodeJS.ProcessEnv,
  place: (library: string) => string = (l) => l,
  who: { host: string; pid: number } = { host: hostname(), pid: process.pid },
): Record<string, string> {
  const vars: Record<string, string> = {
    // the user's own preloads stay, after the shim: legacy PMPI tools sit below us
    [ENV.LD_PRELOAD]: [place(shim.library), env.LD_PRELOAD].filter(Boolean).join(':'),
    [ENV.TOOLS]: tools.map((t) => (t.kind === 'external' ? place(t.path!) : t.name)).join(':'),
    [ENV.MPII_OUT]: outDir,
    // the gathered profile is written by a rank that sees this file, so mpii can read it even
    // when rank 0's host shares no filesystem with this one (created by the executor)
    [ENV.MPII_RUN_MARK]: join(outDir, `.mpii-run-${who.host}-${who.pid}`),
  };
  tools.forEach((t, i) => {
    const opts = Object.entries(t.options);
    if (opts.length) vars[`${ENV.MPII_OPT}${i + 1}`] = opts.map(([k, v]) => `${k}=${v}`).join(';');
  });
  for (const k of ENV_PASSED_ON) if (env[k] !== undefined) vars[k] = env[k]!;
  return vars;
}

/** INJ_IGNORE as the shim reads it (preload/spec/environment.yaml: an int, on when not 0). */
export function injIgnored(env: NodeJS.ProcessEnv): boolean {
  return envInt(env[ENV.INJ_IGNORE], ENV_INT_DEFAULT.INJ_IGNORE) !== 0;
}

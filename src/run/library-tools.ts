// The QMPI tools the user asked the MPI library itself to run (MPICH's QMPI_TOOL_LIST control
// variable), as the shim will read them (preload/core/library_tools.c): under mpii's stack they
// run first, as tools 1 to N, on every MPI. Here only for the banner and its note.
import { ENV } from '../environment.gen.js';

/** MPICH's names of the variable, in the order it reads them: the last one set wins. */
const LIST_VARIABLES = [ENV.MPICH_QMPI_TOOL_LIST, ENV.MPIR_PARAM_QMPI_TOOL_LIST, ENV.MPIR_CVAR_QMPI_TOOL_LIST];

export interface ListedTools {
  variable: string;
  names: string[];
}

/** The list the ranks will read from `env`, or undefined. */
export function listedTools(env: NodeJS.ProcessEnv): ListedTools | undefined {
  let found: ListedTools | undefined;
  for (const variable of LIST_VARIABLES) {
    const value = env[variable];
    // set, even empty, it wins (MPICH's reading); a list without a name runs no tool
    if (value !== undefined) found = { variable, names: value.split(':').filter(Boolean) };
  }
  return found?.names.length ? found : undefined;
}

/** A note when only the name nothing reads is set: QMPI_TOOL_LIST, the cvar's `alias` line. */
export function listNameNote(env: NodeJS.ProcessEnv): string | undefined {
  if (!env[ENV.QMPI_TOOL_LIST] || listedTools(env)) return undefined;
  return `${ENV.QMPI_TOOL_LIST} is read neither by MPICH nor by mpii: name the tools in ${ENV.MPIR_CVAR_QMPI_TOOL_LIST} instead`;
}

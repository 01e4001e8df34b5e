// One small adapter per launcher flavour: how to hand environment variables to every rank.
import type { FlavorName } from '../mpi/flavors.js';

export interface LauncherAdapter {
  flavor: FlavorName;
  /** launcher arguments that set `vars` in every rank (and only there) */
  envArgs(vars: Record<string, string>): string[];
}

const openmpi: LauncherAdapter = {
  flavor: 'openmpi',
  envArgs: (vars) => Object.entries(vars).flatMap(([k, v]) => ['-x', `${k}=${v}`]),
};

const mpich: LauncherAdapter = {
  flavor: 'mpich',
  envArgs: (vars) => Object.entries(vars).flatMap(([k, v]) => ['-genv', k, v]),
};

export const ADAPTERS: Record<FlavorName, LauncherAdapter> = { openmpi, mpich };

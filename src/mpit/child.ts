// The process that loads an MPI library for `mpii pvars/cvars` and `mpii run --pvar` (see
// askMpit in library.ts). Argument: {inst, want} as JSON; stdout: {listing} or {error} as JSON.
// Whatever the library does afterwards (MPICH's UCX has crashed at exit on a loaded CI
// machine) happens here, after the answer is written, not in mpii's own process.
import { MpiiError } from '../errors.js';
import { readMpit } from './library.js';

const { inst, want } = JSON.parse(process.argv[2]);
let answer: unknown;
try {
  answer = { listing: await readMpit(inst, want) };
} catch (e) {
  answer =
    e instanceof MpiiError
      ? { error: { message: e.message, fix: e.fix, exitCode: e.exitCode } }
      : { error: { message: `reading MPI_T of ${inst.library} failed: ${(e as Error).message.split('\n')[0]}` } };
}
process.stdout.write(`${JSON.stringify(answer)}\n`, () => process.exit(0));

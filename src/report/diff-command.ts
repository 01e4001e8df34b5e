// `mpii report A B`: what changed from run A to run B.
import { MpiiError } from '../errors.js';
import type { ReportFilter } from './filter.js';

export async function diffCommand(a: string, b: string, _o: object, _f: ReportFilter): Promise<number> {
  throw new MpiiError(`comparing ${a} with ${b} is not implemented yet`);
}

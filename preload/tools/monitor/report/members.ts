// A communicator's members as the monitor labels them in the profile (comm_cache.c,
// mon_format_members): world ranks in the communicator's order, runs written as ranges "a-b" and
// "a-b:step" between single ranks ("0-127", "0-120:8,3"); a list without ranges is what files
// before format 3 hold. Where a member's record names the list by "@<hash>", the list is the one
// its lowest member wrote in full, found by the same hash (FNV-1a, 64 bits, of the text).
import { MpiiError } from '../../../../src/tool-api/index.js';

export interface Members {
  /** world ranks in the communicator's order */
  ranks: Int32Array;
  /** the members joined by commas, as Open MPI's .prof D lines and --json list them */
  list: string;
}

/** Lists longer than this are named by their hash on every member but the lowest (comm_cache.c MEMBERS_BY_HASH). */
export const MEMBERS_BY_HASH = 24;

/** One object per distinct text: every rank of a big job labels MPI_COMM_WORLD the same. */
const known = new Map<string, Members>();

/** The members of a label's text ("@…" references excluded: resolve them first). */
export function parseMembers(text: string): Members {
  const had = known.get(text);
  if (had) return had;
  const out: number[] = [];
  for (const part of text.split(',')) {
    if (part === '') continue;
    const m = /^(-?\d+)(?:-(\d+)(?::(\d+))?)?$/.exec(part);
    if (!m) throw new MpiiError(`the monitor's member list '${part}' is not a rank or a range`, 'the profile file is damaged; re-run the job');
    const a = Number(m[1]);
    if (m[2] === undefined) {
      out.push(a);
      continue;
    }
    const b = Number(m[2]);
    const step = m[3] === undefined ? 1 : Number(m[3]);
    if (step < 1 || b < a) throw new MpiiError(`the monitor's member range '${part}' is empty`, 'the profile file is damaged; re-run the job');
    for (let r = a; r <= b; r += step) out.push(r);
  }
  const ranks = Int32Array.from(out);
  const list = /[-:]\d/.test(text) ? out.join(',') : text; // a list without ranges is its own text
  const m = { ranks, list };
  if (known.size > 1 << 16) known.clear(); // a job of many distinct communicators: no unbounded cache
  known.set(text, m);
  return m;
}

const PRIME = 0x100000001b3n;
const MASK = (1n << 64n) - 1n;

/** "@<16 hex digits>": how the other members name a list of this text. */
export function membersRef(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) h = ((h ^ BigInt(byte)) * PRIME) & MASK;
  return `@${h.toString(16).padStart(16, '0')}`;
}

/** Resolves "@hash" labels against the full lists seen (`lists`: ref -> text). */
export class MemberLists {
  private byRef = new Map<string, string>();
  /** a full list seen in some rank's record */
  add(text: string): void {
    if (text.length > MEMBERS_BY_HASH && !text.startsWith('@')) this.byRef.set(membersRef(text), text);
  }
  /** the text of a label: itself, or the list it names (undefined when no rank's file has it) */
  resolve(text: string): string | undefined {
    return text.startsWith('@') ? this.byRef.get(text) : text;
  }
}

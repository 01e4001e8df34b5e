// The memcheck tool's findings: read from each rank's profile (fixed-size rows, declared in
// preload/tools/memcheck/blocks.yaml), resolved to file:line, grouped by call site over ranks.
import {
  disabledLines,
  toolInstances,
  type Profile,
  type RankProfile,
  humanBytes,
  cell,
  esc,
  num,
  table,
  type ToolReport,
  describeCode as describe,
  describeCode as where,
  parseObjects,
  CodeSymbolizer,
  type CodeLocation,
  pythonSites,
  BLOCKS,
} from '../../../src/tool-api/index.js';

const F = BLOCKS.memcheck.findings.row.index; // the row length comes from the rank's "layout" block
const FN_WORDS = BLOCKS.memcheck.findings.row.words.fn;

/** An error breaks a rule of the MPI standard or loses data; a hint shows data moved for nothing. */
export type MemcheckClass = 'error' | 'hint';
const KINDS = BLOCKS.memcheck['by kind'];
const CLASS_OF = new Map<string, MemcheckClass>(KINDS.labels.map((label, i) => [label, KINDS.classes[i] as MemcheckClass]));
/** The class of a kind, by its label (declared once, in blocks.yaml); a kind this mpii does not
 *  know (a newer writer's) counts as an error. */
export const classOf = (kind: string): MemcheckClass => CLASS_OF.get(kind) ?? 'error';

export interface MemcheckFinding {
  kind: string;
  class: MemcheckClass;
  /** occurrences over all ranks */
  count: number;
  ranks: number[];
  /** bytes concerned (never read, past the end), summed */
  bytes: number;
  /** the MPI call that owns the buffer */
  call: { fn: string; at: CodeLocation | null };
  /** the faulting access, when there was one (a hint: the first one seen at its call site, a sample) */
  access: { at: CodeLocation; kind: 'read' | 'write' | 'unknown' } | null;
  /** first occurrence: where in the buffer, which process (a hint: the sample's) */
  first: { rank: number; host: string; pid: number; address: string; offset: number; bufferBytes: number };
  backtrace: CodeLocation[];
}

export interface MemcheckRun {
  tool: number;
  engine: string;
  ranks: number[];
  disabled: { rank: number; reason: string }[];
  /** errors grouped by kind, call site and faulting access, most frequent first */
  errors: MemcheckFinding[];
  /** hints grouped by kind and call site (one each), most frequent first */
  hints: MemcheckFinding[];
  /** occurrences of each class over all ranks */
  counts: { errors: number; hints: number };
  stats: Record<string, number>;
}

function text(r: RankProfile, tool: number, name: string): string | undefined {
  const all = r.texts.filter((t) => t.tool === tool && t.name === name);
  return all.length ? all[all.length - 1].text : undefined;
}

function fnName(values: (i: number) => bigint): string {
  const bytes: number[] = [];
  for (let w = 0; w < FN_WORDS; w++) {
    let v = values(F.fn + w);
    for (let b = 0; b < 8; b++, v >>= 8n) bytes.push(Number(v & 0xffn));
  }
  const end = bytes.indexOf(0);
  return Buffer.from(bytes.slice(0, end < 0 ? bytes.length : end)).toString('latin1');
}

const sum = (fs: MemcheckFinding[]) => fs.reduce((s, f) => s + f.count, 0);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function memcheckRuns(p: Profile): MemcheckRun[] {
  const runs: MemcheckRun[] = [];
  for (const tool of toolInstances(p, 'memcheck')) {
    const ranks = p.ranks.filter((r) => r.tools.get(tool) === 'memcheck');
    const run: MemcheckRun = {
      tool,
      engine: '',
      ranks: ranks.map((r) => r.rank),
      disabled: [],
      errors: [],
      hints: [],
      counts: { errors: 0, hints: 0 },
      stats: {},
    };
    const groups = new Map<string, MemcheckFinding>();
    for (const r of ranks) {
      run.engine ||= text(r, tool, 'engine') ?? '';
      const off = text(r, tool, 'disabled');
      if (off) run.disabled.push({ rank: r.rank, reason: off });
      for (const c of r.counters) {
        if (c.tool !== tool || c.name !== 'stats') continue;
        c.labels.forEach((label, i) => {
          if (label) run.stats[label] = (run.stats[label] ?? 0) + Number(c.nonzero.get(i) ?? 0n);
        });
      }
      const table = r.counters.find((c) => c.tool === tool && c.name === 'findings');
      const layout = JSON.parse(text(r, tool, 'layout') ?? '{}') as { fields?: number };
      if (!table || !layout.fields) continue;
      const kinds = r.counters.find((c) => c.tool === tool && c.name === 'by kind')?.labels ?? [];
      const sym = new CodeSymbolizer(parseObjects(text(r, tool, 'objects') ?? ''), pythonSites(r.texts));
      const n = Math.floor(table.length / layout.fields);
      for (let i = 0; i < n; i++) {
        const at = (f: number) => table.nonzero.get(i * layout.fields! + f) ?? 0n;
        const count = Number(at(F.count));
        if (!count) break; /* records are filled in order */
        const kind = kinds[Number(at(F.kind))] ?? `kind ${at(F.kind)}`;
        const site = at(F.site),
          pc = at(F.pc);
        const nframes = Number(at(F.nframes));
        const frames = Array.from({ length: nframes }, (_, k) => at(F.frames + k));
        // frames after the first are return addresses; the first is exact when it is the fault
        const resolved = sym.resolve([
          ...(site ? [{ addr: site, returnAddress: true }] : []),
          ...(pc ? [{ addr: pc, returnAddress: false }] : []),
          ...frames.map((addr, k) => ({ addr, returnAddress: !(k === 0 && pc !== 0n) })),
        ]);
        const loc = (addr: bigint, ret: boolean) => resolved.get(`${addr.toString(16)}${ret ? 'r' : ''}`)!;
        const callAt = site ? loc(site, true) : null;
        const accessAt = pc ? loc(pc, false) : null;
        const accessRaw = Number(BigInt.asIntN(64, at(F.access)));
        const cls = classOf(kind);
        // a hint is one group per call site over ranks (and over instructions: files from before
        // the classes kept a row per instruction); an error one per place it happened
        const key = `${kind}|${callAt ? describe(callAt) : ''}|${cls === 'error' && accessAt ? describe(accessAt) : ''}`;
        const g = groups.get(key);
        const bytes = Number(at(F.bytes));
        if (g) {
          g.count += count;
          g.bytes += bytes;
          if (!g.ranks.includes(r.rank)) g.ranks.push(r.rank);
          continue;
        }
        const addr = at(F.addr),
          base = at(F.base);
        groups.set(key, {
          kind,
          class: cls,
          count,
          ranks: [r.rank],
          bytes,
          call: { fn: fnName(at), at: callAt },
          access: accessAt ? { at: accessAt, kind: accessRaw === 1 ? 'write' : accessRaw === 0 ? 'read' : 'unknown' } : null,
          first: { rank: r.rank, host: r.host, pid: r.pid, address: `0x${addr.toString(16)}`, offset: Number(addr - base), bufferBytes: Number(at(F.len)) },
          backtrace: frames.map((a, k) => loc(a, !(k === 0 && pc !== 0n))),
        });
      }
    }
    const all = [...groups.values()];
    run.errors = all.filter((f) => f.class === 'error').sort((a, b) => b.count - a.count);
    run.hints = all.filter((f) => f.class === 'hint').sort((a, b) => b.count - a.count || b.bytes - a.bytes);
    run.counts = { errors: sum(run.errors), hints: sum(run.hints) };
    runs.push(run);
  }
  return runs;
}

const siteOf = (f: MemcheckFinding) => `${f.call.fn}@${f.call.at ? describe(f.call.at) : '?'}`;

/** The head line: errors and hints counted apart (what `mpii run` prints after the job). */
export function memcheckHeadline(run: MemcheckRun): string {
  const { errors, hints } = run.counts;
  const what =
    !errors && !hints
      ? 'no findings'
      : `${errors ? `${plural(errors, 'error')} at ${plural(run.errors.length, 'place')}` : 'no errors'}; ` +
        `${hints ? `${plural(hints, 'hint')} at ${plural(new Set(run.hints.map(siteOf)).size, 'call site')}` : 'no hints'}`;
  return `memcheck (tool ${run.tool}, ${run.engine || 'off'}): ${what}`;
}

const ranksOf = (f: MemcheckFinding) => {
  const ranks = f.ranks.sort((a, b) => a - b);
  return `${ranks.length === 1 ? 'rank' : 'ranks'} ${ranks.length > 8 ? `${ranks.slice(0, 8).join(',')},…` : ranks.join(',')}`;
};

/** A hint on one line: kind, count, bytes, ranks, the call, and a sample access. */
function hintLine(f: MemcheckFinding): string {
  const call = `${f.call.fn || 'an MPI call'}${f.call.at ? ` at ${describe(f.call.at)}` : ''}`;
  const sample = f.access ? `; e.g. ${f.access.kind} at ${describe(f.access.at)}` : '';
  return `  ${f.kind}: ${f.count}×, ${humanBytes(f.bytes)} (${ranksOf(f)}), ${call}${sample}`;
}

export function formatMemcheck(p: Profile): string[] {
  const out: string[] = [];
  for (const run of memcheckRuns(p)) {
    out.push(memcheckHeadline(run));
    out.push(...disabledLines(run.disabled, run.ranks.length));
    if (run.errors.length) out.push(' errors (break a rule of the MPI standard or lose data):');
    for (const f of run.errors) {
      const bytes = f.kind.includes('overrun') ? `, ${humanBytes(f.bytes)}` : '';
      out.push(`  ${f.kind}: ${f.count}× (${ranksOf(f)}${bytes})`);
      if (f.call.fn || f.call.at) out.push(`    buffer of ${f.call.fn || 'an MPI call'}${f.call.at ? ` called from ${describe(f.call.at)}` : ''}`);
      if (f.access) {
        out.push(
          `    ${f.access.kind} at ${describe(f.access.at)}: ${f.first.address} = buffer+${f.first.offset} of ${humanBytes(f.first.bufferBytes)} (rank ${f.first.rank}, ${f.first.host}:${f.first.pid})`,
        );
      }
      const bt = f.backtrace.slice(0, 6).map(describe);
      if (bt.length) out.push(`    backtrace: ${bt.join(' < ')}`);
    }
    if (run.hints.length) out.push(' hints (correct, but data moved for nothing; one line per call site):');
    for (const f of run.hints) out.push(hintLine(f));
    const s = run.stats;
    if (Object.keys(s).length) {
      out.push(
        `  checked ${s['buffers checked'] ?? 0} buffers; faults ${s['faults'] ?? 0}, steps over shared pages ${s['steps over shared pages'] ?? 0}; ` +
          `receives watched ${s['receives tracked after completion'] ?? 0} (not sampled ${s['receives not tracked (sampling)'] ?? 0})`,
      );
      const unchecked =
        (s['unchecked: not on the page-exclusive heap'] ?? 0) + (s['unchecked: unknown datatype extent'] ?? 0) + (s['unchecked: page protection refused'] ?? 0);
      if (unchecked) out.push(`  not checked: ${unchecked} buffers (stack/static memory, allocations before MPI_Init or below heap-min, unknown extents)`);
    }
  }
  return out;
}

// ---------------------------------------------------------------- --html

/** memcheck: the findings grouped by call site (as in the terminal report), then its statistics. */
function memcheckSection(p: Profile): string {
  return memcheckRuns(p)
    .map((run) => {
      const access = (f: MemcheckFinding) =>
        f.access ? `${f.access.kind} at ${where(f.access.at)}, buffer+${f.first.offset} of ${humanBytes(f.first.bufferBytes)}` : '';
      const call = (f: MemcheckFinding) => cell(`${f.call.fn}${f.call.at ? ` at ${where(f.call.at)}` : ''}`);
      const errors = run.errors.map((f) => [
        cell(f.kind),
        cell(f.count),
        cell(f.ranks.join(', '), f.ranks[0]),
        cell(f.bytes ? humanBytes(f.bytes) : '', f.bytes),
        call(f),
        cell(access(f)),
        cell(f.backtrace.slice(0, 6).map(where).join(' < ')),
      ]);
      const hints = run.hints.map((f) => [
        cell(f.kind),
        cell(f.count),
        cell(f.ranks.join(', '), f.ranks[0]),
        cell(humanBytes(f.bytes), f.bytes),
        call(f),
        cell(access(f)),
      ]);
      const stats = Object.entries(run.stats).map(([k, v]) => [cell(k), cell(k.startsWith('bytes') ? humanBytes(v) : num(v), v)]);
      return `<section id="memcheck-${run.tool}"><h2>Memory checking <small>${esc(memcheckHeadline(run).replace(/^memcheck /, 'memcheck, '))}</small></h2>
${run.disabled.map((d) => `<p class="warn">rank ${d.rank}: off (${esc(d.reason)})</p>`).join('\n')}
<h3>Errors <small>break a rule of the MPI standard or lose data</small></h3>
${
  errors.length
    ? table(
        `memcheck-${run.tool}-errors`,
        [
          { head: 'error' },
          { head: 'times', right: true },
          { head: 'ranks' },
          { head: 'bytes', right: true },
          { head: 'buffer of' },
          { head: 'access' },
          { head: 'backtrace' },
        ],
        errors,
      )
    : '<p>No errors.</p>'
}
<h3>Hints <small>correct, but data moved for nothing; one row per call site</small></h3>
${
  hints.length
    ? table(
        `memcheck-${run.tool}-hints`,
        [
          { head: 'hint' },
          { head: 'times', right: true },
          { head: 'ranks' },
          { head: 'bytes', right: true },
          { head: 'buffer of' },
          { head: 'a sample access' },
        ],
        hints,
      )
    : '<p>No hints.</p>'
}
${table(`memcheck-${run.tool}-stats`, [{ head: 'statistic' }, { head: 'all ranks', right: true }], stats)}
</section>`;
    })
    .join('\n');
}

export const report: ToolReport = {
  text: (p) => formatMemcheck(p),
  json: (p) => memcheckRuns(p),
  html: (p) => memcheckSection(p),
};

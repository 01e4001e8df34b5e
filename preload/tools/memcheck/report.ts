// The memcheck tool's findings: read from each rank's profile (fixed-size rows, declared in
// preload/tools/memcheck/blocks.yaml), resolved to file:line, grouped by call site over ranks.
import { disabledLines } from '../../../src/report/disabled.js';
import { toolInstances, type Profile, type RankProfile } from '../../../src/profile-file/read.js';
import { humanBytes } from '../../../src/report/units.js';
import { cell, esc, num, table } from '../../../src/report/html-kit.js';
import type { ToolReport } from '../../../src/report/tool-report.js';
import { describe, describe as where, parseObjects, Symbolizer, type CodeLocation } from '../../../src/report/symbols.js';
import { pythonSites } from '../../../src/report/python-sites.js';
import { BLOCKS } from '../../../src/profile-file/format.gen.js';

const F = BLOCKS.memcheck.findings.row.index; // the row length comes from the rank's "layout" block
const FN_WORDS = BLOCKS.memcheck.findings.row.words.fn;

export interface MemcheckFinding {
  kind: string;
  /** occurrences over all ranks */
  count: number;
  ranks: number[];
  /** bytes concerned (never read, past the end), summed */
  bytes: number;
  /** the MPI call that owns the buffer */
  call: { fn: string; at: CodeLocation | null };
  /** the faulting access, when there was one */
  access: { at: CodeLocation; kind: 'read' | 'write' | 'unknown' } | null;
  /** first occurrence: where in the buffer, which process */
  first: { rank: number; host: string; pid: number; address: string; offset: number; bufferBytes: number };
  backtrace: CodeLocation[];
}

export interface MemcheckRun {
  tool: number;
  engine: string;
  ranks: number[];
  disabled: { rank: number; reason: string }[];
  findings: MemcheckFinding[];
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

export function memcheckRuns(p: Profile): MemcheckRun[] {
  const runs: MemcheckRun[] = [];
  for (const tool of toolInstances(p, 'memcheck')) {
    const ranks = p.ranks.filter((r) => r.tools.get(tool) === 'memcheck');
    const run: MemcheckRun = { tool, engine: '', ranks: ranks.map((r) => r.rank), disabled: [], findings: [], stats: {} };
    const groups = new Map<string, MemcheckFinding>();
    for (const r of ranks) {
      run.engine ||= text(r, tool, 'engine') ?? '';
      const off = text(r, tool, 'disabled');
      if (off) run.disabled.push({ rank: r.rank, reason: off });
      for (const c of r.counters) {
        if (c.tool !== tool || c.name !== 'stats') continue;
        c.labels.forEach((label, i) => { if (label) run.stats[label] = (run.stats[label] ?? 0) + Number(c.nonzero.get(i) ?? 0n); });
      }
      const table = r.counters.find((c) => c.tool === tool && c.name === 'findings');
      const layout = JSON.parse(text(r, tool, 'layout') ?? '{}') as { fields?: number };
      if (!table || !layout.fields) continue;
      const kinds = r.counters.find((c) => c.tool === tool && c.name === 'by kind')?.labels ?? [];
      const sym = new Symbolizer(parseObjects(text(r, tool, 'objects') ?? ''), pythonSites(r.texts));
      const n = Math.floor(table.length / layout.fields);
      for (let i = 0; i < n; i++) {
        const at = (f: number) => table.nonzero.get(i * layout.fields! + f) ?? 0n;
        const count = Number(at(F.count));
        if (!count) break; /* records are filled in order */
        const kind = kinds[Number(at(F.kind))] ?? `kind ${at(F.kind)}`;
        const site = at(F.site), pc = at(F.pc);
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
        const key = `${kind}|${callAt ? describe(callAt) : ''}|${accessAt ? describe(accessAt) : ''}`;
        const g = groups.get(key);
        const bytes = Number(at(F.bytes));
        if (g) {
          g.count += count;
          g.bytes += bytes;
          if (!g.ranks.includes(r.rank)) g.ranks.push(r.rank);
          continue;
        }
        const addr = at(F.addr), base = at(F.base);
        groups.set(key, {
          kind, count, ranks: [r.rank], bytes,
          call: { fn: fnName(at), at: callAt },
          access: accessAt ? { at: accessAt, kind: accessRaw === 1 ? 'write' : accessRaw === 0 ? 'read' : 'unknown' } : null,
          first: { rank: r.rank, host: r.host, pid: r.pid, address: `0x${addr.toString(16)}`,
            offset: Number(addr - base), bufferBytes: Number(at(F.len)) },
          backtrace: frames.map((a, k) => loc(a, !(k === 0 && pc !== 0n))),
        });
      }
    }
    run.findings = [...groups.values()].sort((a, b) => b.count - a.count);
    runs.push(run);
  }
  return runs;
}

export function formatMemcheck(p: Profile): string[] {
  const out: string[] = [];
  for (const run of memcheckRuns(p)) {
    const n = run.findings.reduce((s, f) => s + f.count, 0);
    out.push(`memcheck (tool ${run.tool}, ${run.engine || 'off'}): ${n ? `${n} finding${n === 1 ? '' : 's'} at ${run.findings.length} place${run.findings.length === 1 ? '' : 's'}` : 'no findings'}`);
    out.push(...disabledLines(run.disabled, run.ranks.length));
    for (const f of run.findings) {
      const ranks = f.ranks.sort((a, b) => a - b);
      const who = `${ranks.length === 1 ? 'rank' : 'ranks'} ${ranks.length > 8 ? `${ranks.slice(0, 8).join(',')},…` : ranks.join(',')}`;
      const bytes = f.kind.includes('never read') || f.kind.includes('overrun') ? `, ${humanBytes(f.bytes)}` : '';
      out.push(`  ${f.kind}: ${f.count}× (${who}${bytes})`);
      if (f.call.fn || f.call.at) out.push(`    buffer of ${f.call.fn || 'an MPI call'}${f.call.at ? ` called from ${describe(f.call.at)}` : ''}`);
      if (f.access) {
        out.push(`    ${f.access.kind} at ${describe(f.access.at)}: ${f.first.address} = buffer+${f.first.offset} of ${humanBytes(f.first.bufferBytes)} (rank ${f.first.rank}, ${f.first.host}:${f.first.pid})`);
      }
      const bt = f.backtrace.slice(0, 6).map(describe);
      if (bt.length) out.push(`    backtrace: ${bt.join(' < ')}`);
    }
    const s = run.stats;
    if (Object.keys(s).length) {
      out.push(`  checked ${s['buffers checked'] ?? 0} buffers; faults ${s['faults'] ?? 0}, steps over shared pages ${s['steps over shared pages'] ?? 0}; `
        + `receives watched ${s['receives tracked after completion'] ?? 0} (not sampled ${s['receives not tracked (sampling)'] ?? 0})`);
      const unchecked = (s['unchecked: not on the page-exclusive heap'] ?? 0) + (s['unchecked: unknown datatype extent'] ?? 0) + (s['unchecked: page protection refused'] ?? 0);
      if (unchecked) out.push(`  not checked: ${unchecked} buffers (stack/static memory, allocations before MPI_Init or below heap-min, unknown extents)`);
    }
  }
  return out;
}

// ---------------------------------------------------------------- --html

/** memcheck: the findings grouped by call site (as in the terminal report), then its statistics. */
function memcheckSection(p: Profile): string {
  return memcheckRuns(p).map((run) => {
    const n = run.findings.reduce((a, f) => a + f.count, 0);
    const rows = run.findings.map((f) => [
      cell(f.kind), cell(f.count), cell(f.ranks.join(', '), f.ranks[0]),
      cell(f.bytes ? humanBytes(f.bytes) : '', f.bytes),
      cell(`${f.call.fn}${f.call.at ? ` at ${where(f.call.at)}` : ''}`),
      cell(f.access ? `${f.access.kind} at ${where(f.access.at)}, buffer+${f.first.offset} of ${humanBytes(f.first.bufferBytes)}` : ''),
      cell(f.backtrace.slice(0, 6).map(where).join(' < ')),
    ]);
    const stats = Object.entries(run.stats).map(([k, v]) => [cell(k), cell(k.startsWith('bytes') ? humanBytes(v) : num(v), v)]);
    return `<section id="memcheck-${run.tool}"><h2>Memory checking <small>memcheck, tool ${run.tool} (${esc(run.engine || 'off')}): ${n} finding${n === 1 ? '' : 's'}</small></h2>
${run.disabled.map((d) => `<p class="warn">rank ${d.rank}: off (${esc(d.reason)})</p>`).join('\n')}
${rows.length ? table(`memcheck-${run.tool}-findings`, [{ head: 'finding' }, { head: 'times', right: true }, { head: 'ranks' }, { head: 'bytes', right: true },
    { head: 'buffer of' }, { head: 'access' }, { head: 'backtrace' }], rows) : '<p>No findings.</p>'}
${table(`memcheck-${run.tool}-stats`, [{ head: 'statistic' }, { head: 'all ranks', right: true }], stats)}
</section>`;
  }).join('\n');
}

export const report: ToolReport = {
  text: (p) => formatMemcheck(p),
  json: (p) => memcheckRuns(p),
  html: (p) => memcheckSection(p),
};

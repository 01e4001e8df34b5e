// MPI_T in the report: the MPI library's variables sampled with `mpii run --pvar` (text section
// "pvars" of tool 0, preload/core/mpit_sample.c) and the phases a program flushed through the
// monitor's MPI_T flush variable (its text section "mpit", preload/tools/monitor/pvars.c).
import type { Profile } from '../profile-file/read.js';

export interface PvarSample {
  /** "finalize", or the flush file prefix of a monitoring phase */
  at: string;
  name: string;
  /** per rank: the values read (one per element), or the MPI_T error code */
  ranks: { rank: number; values?: number[]; error?: number }[];
}

interface RawSample {
  at: string;
  vars: { name: string; values?: number[]; error?: number }[];
}

export function pvarSamples(p: Profile): PvarSample[] {
  const byKey = new Map<string, PvarSample>();
  for (const r of p.ranks) {
    for (const t of r.texts) {
      if (t.tool !== 0 || t.name !== 'pvars') continue;
      let s: RawSample;
      try {
        s = JSON.parse(t.text) as RawSample;
      } catch {
        continue;
      }
      for (const v of s.vars) {
        const key = `${s.at}\n${v.name}`;
        const e = byKey.get(key) ?? { at: s.at, name: v.name, ranks: [] };
        byKey.set(key, e);
        e.ranks.push({ rank: r.rank, values: v.values, error: v.error });
      }
    }
  }
  return [...byKey.values()];
}

export interface MonitorFlushes {
  tool: number;
  name: string;
  rank: number;
  flushed: string[];
  final: boolean;
}

export function monitorFlushes(p: Profile): MonitorFlushes[] {
  const out: MonitorFlushes[] = [];
  for (const r of p.ranks) {
    for (const t of r.texts) {
      if (t.name !== 'mpit') continue; // a tool's MPI_T flushes (the monitor's: preload/tools/monitor/pvars.c)
      try {
        const j = JSON.parse(t.text) as { flushed: string[]; final: boolean };
        out.push({ tool: t.tool, name: r.tools.get(t.tool) ?? '?', rank: r.rank, flushed: j.flushed, final: j.final });
      } catch {
        /* a damaged block: skip it */
      }
    }
  }
  return out;
}

const fmt = (v: number) => (Number.isInteger(v) ? String(v) : v.toPrecision(6));

export function formatMpit(p: Profile): string[] {
  const out: string[] = [];
  const samples = pvarSamples(p);
  if (samples.length) {
    out.push('MPI library variables (mpii run --pvar), per rank:');
    let at = '';
    for (const s of samples) {
      if (s.at !== at) {
        at = s.at;
        out.push(`  at ${at === 'finalize' ? 'MPI_Finalize' : `flush ${at}`}`);
      }
      const ok = s.ranks.filter((r) => r.values);
      const bad = s.ranks.filter((r) => !r.values);
      const elems = Math.max(0, ...ok.map((r) => r.values!.length));
      const sums = ok.map((r) => ({ rank: r.rank, v: r.values!.reduce((a, b) => a + b, 0) }));
      let line = `    ${s.name.padEnd(36)}`;
      if (sums.length) {
        const min = sums.reduce((a, b) => (b.v < a.v ? b : a));
        const max = sums.reduce((a, b) => (b.v > a.v ? b : a));
        const total = sums.reduce((a, b) => a + b.v, 0);
        line += ` total ${fmt(total)}, min ${fmt(min.v)} (rank ${min.rank}), max ${fmt(max.v)} (rank ${max.rank})`;
        if (elems > 1) line += ` — sums of ${elems} values per rank`;
      }
      if (bad.length) line += ` — not readable on ${bad.length} rank${bad.length === 1 ? '' : 's'} (MPI_T error ${bad[0].error})`;
      out.push(line);
    }
  }
  const flushes = monitorFlushes(p);
  const ranks0 = flushes.filter((f) => f.rank === Math.min(...flushes.map((x) => x.rank)));
  for (const f of ranks0) {
    const phases = f.final ? f.flushed.slice(0, -1) : f.flushed;
    const parts: string[] = [];
    if (phases.length)
      parts.push(`${phases.length} phase${phases.length === 1 ? '' : 's'} flushed through MPI_T: ${phases.map((x) => `${x}.<rank>.prof`).join(', ')}`);
    if (f.final) parts.push(`at MPI_Finalize: ${f.flushed[f.flushed.length - 1]}.<rank>.prof`);
    if (parts.length) out.push(`${f.name} (tool ${f.tool}) .prof files: ${parts.join('; ')}`);
  }
  return out;
}

export function mpitJson(p: Profile): unknown {
  return { pvars: pvarSamples(p), flushes: monitorFlushes(p).map(({ name: _name, ...f }) => f) };
}

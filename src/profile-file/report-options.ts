// The report options a run was given, kept in its profile so that a later `mpii report DIR`
// shows what `mpii run` showed: mpii run passes each tool's options to the ranks
// (MPII_REPORT_OPTIONS, JSON: tool name -> options, the first instance's), the shim writes them as
// the core's block "report-options" (preload/spec/profile-file.yaml), and the report hands each
// tool's report module its own (as mpii run does); options given to mpii report win.
import type { OptionValue } from '../config/options.js';
import type { Profile } from './read.js';

/** By tool name, the options its report module reads (`top`, `matrix`, … as its manifest says). */
export type RecordedReportOptions = Record<string, Record<string, OptionValue>>;

/** Only objects of options with plain values: a damaged or foreign block adds nothing. */
function clean(raw: unknown): RecordedReportOptions {
  const out: RecordedReportOptions = {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return out;
  for (const [tool, options] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof options !== 'object' || options === null || Array.isArray(options)) continue;
    const kept: Record<string, OptionValue> = {};
    for (const [k, v] of Object.entries(options as Record<string, unknown>)) {
      if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) kept[k] = v;
    }
    out[tool] = kept;
  }
  return out;
}

/** The value of MPII_REPORT_OPTIONS for a run whose tools have these options. */
export function reportOptionsVariable(options: RecordedReportOptions): string {
  return JSON.stringify(clean(options));
}

/** What the run recorded (the first rank that has the block); {} for profiles of mpii before it. */
export function recordedReportOptions(p: Profile): RecordedReportOptions {
  for (const r of p.ranks) {
    const t = r.texts.find((x) => x.tool === 0 && x.name === 'report-options');
    if (!t) continue;
    try {
      return clean(JSON.parse(t.text));
    } catch {
      return {};
    }
  }
  return {};
}

/** The recorded options with those mpii report was given: `--top` drops every tool's recorded
 * `top`; a tool's own flags (`--no-matrix`) set its options over the recorded ones. */
export function withoutAsked(recorded: RecordedReportOptions, asked: { top?: number; toolOptions?: RecordedReportOptions }): RecordedReportOptions {
  const out: RecordedReportOptions = {};
  for (const [tool, options] of Object.entries(recorded)) {
    const { top, ...rest } = options;
    out[tool] = { ...rest, ...(asked.top === undefined && top !== undefined ? { top } : {}) };
  }
  for (const [tool, options] of Object.entries(asked.toolOptions ?? {})) out[tool] = { ...out[tool], ...options };
  return out;
}

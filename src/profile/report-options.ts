// The report options a run was given, kept in its profile so that a later `mpii report DIR`
// shows what `mpii run` showed: mpii run passes them to the ranks (MPII_REPORT_OPTIONS, JSON),
// the shim writes them as the core's block "report-options" (preload/spec/profile-file.yaml),
// and the report starts from them; options given to mpii report win.
import type { Profile } from './read.js';

/** The tools' report-only options (trace-count's `top`, monitor's `top` and `matrix`, profile's `top`). */
export interface RecordedReportOptions {
  top?: number;
  monitorTop?: number;
  profileTop?: number;
  matrix?: boolean;
}

const KEYS = { top: 'number', monitorTop: 'number', profileTop: 'number', matrix: 'boolean' } as const;

/** Only the known keys of the right types: a damaged or foreign block adds nothing. */
function clean(raw: unknown): RecordedReportOptions {
  const out: Record<string, number | boolean> = {};
  if (typeof raw !== 'object' || raw === null) return out;
  for (const [k, type] of Object.entries(KEYS)) {
    const v = (raw as Record<string, unknown>)[k];
    if (typeof v === type && (type !== 'number' || (Number.isInteger(v) && (v as number) >= 0))) out[k] = v as number | boolean;
  }
  return out;
}

/** The value of MPII_REPORT_OPTIONS for a run whose report uses `options`. */
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

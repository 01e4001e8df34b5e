// Generated from preload/tools/*/tool.yaml (`report.module`) by `npm run gen` (src/gen/reports.ts): do not edit.
// The built-in tools' report modules, by tool name: the one place the core imports a tool from.
import type { ToolReport } from '../../src/tool-api/index.js';
import { report as trace_count } from './trace-count/report.js';
import { report as profile } from './profile/report/index.js';
import { report as monitor } from './monitor/report/index.js';
import { report as overlap } from './overlap/report.js';
import { report as memcheck } from './memcheck/report.js';

export const REPORTS: Record<string, ToolReport> = {
  'trace-count': trace_count,
  profile,
  monitor,
  overlap,
  memcheck,
};

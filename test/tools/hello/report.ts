// The report module of the add-a-folder test's tool: one line, and its --json part.
// (In the copy it is preload/tools/hello/report.ts: it imports mpii's published API for tools.)
import type { Profile, ToolReport } from '../../../src/tool-api/index.js';

const GREETINGS = ['hi', 'hello'];

function summary(p: Profile): { barriers: number; greeting: string; times: number } | undefined {
  let barriers = 0;
  let found: { greeting: string; times: number } | undefined;
  for (const r of p.ranks) {
    for (const c of r.counters) {
      if (c.name !== 'hello' || r.tools.get(c.tool) !== 'hello') continue;
      barriers += Number(c.nonzero.get(0) ?? 0n);
      found = { greeting: GREETINGS[Number(c.nonzero.get(1) ?? 1n) - 1], times: Number(c.nonzero.get(2) ?? 0n) };
    }
  }
  return found && { barriers, ...found };
}

export const report: ToolReport = {
  text: (p) => {
    const s = summary(p);
    return s ? [`hello: ${Array(s.times).fill(s.greeting).join(' ')}, ${s.barriers} barriers`] : [];
  },
  json: (p) => summary(p) ?? null,
};

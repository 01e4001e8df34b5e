// What a profile file says, as plain JSON: every rank's header fields, tools, counter sections
// (non-zero entries), texts and timeline, and the numbers each tool's report takes from them.
// test/profile-file-versions.unit.test.ts compares it with test/fixtures/profile-file/*/expected.json,
// which the reader before the generated contract (commit 481544f) produced: a reader that reads an
// older file differently fails there. Call-site locations (addr2line of the fixture's program,
// absent elsewhere) are left out; the addresses themselves are in the dump.
import { readProfile, type Profile } from '../src/profile-file/read.js';
import { traceCountTables } from '../preload/tools/trace-count/report.js';
import { communicators, monitorRuns, totals } from '../preload/tools/monitor/report/data.js';
import { overlapRuns, overlapTotals } from '../preload/tools/overlap/report.js';
import { memcheckRuns } from '../preload/tools/memcheck/report.js';
import { profileRuns } from '../preload/tools/profile/report/data.js';

const big = (v: bigint | number) => (typeof v === 'bigint' ? v.toString() : v);

export function dumpProfile(p: Profile): unknown {
  return {
    complete: p.complete,
    size: p.size,
    ranks: p.ranks.map((r) => ({
      rank: r.rank,
      size: r.size,
      pid: r.pid,
      host: r.host,
      flavor: r.flavor,
      state: r.state,
      tStart: r.tStart,
      tEnd: r.tEnd,
      tools: [...r.tools.entries()],
      counters: r.counters.map((c) => ({
        tool: c.tool,
        name: c.name,
        labels: c.labels,
        length: c.length,
        nonzero: [...c.nonzero.entries()].map(([i, v]) => [i, big(v)]),
      })),
      texts: r.texts,
      timeline: r.timeline ?? null,
    })),
    report: {
      traceCount: traceCountTables(p).map((t) => ({
        tool: t.tool,
        rows: t.rows.map((x) => ({ ...x, total: big(x.total), min: big(x.min), max: big(x.max) })),
      })),
      monitor: monitorRuns(p).map((run) => ({
        tool: run.tool,
        size: run.size,
        totals: totals(run),
        comms: communicators(run),
        peers: run.ranks.map((r) => [r.rank, [...r.peers.entries()]]),
        memory: run.ranks.map((r) => r.memory ?? null),
      })),
      overlap: overlapRuns(p).map((run) => ({ tool: run.tool, totals: overlapTotals(run), disabled: run.disabled })),
      memcheck: memcheckRuns(p).map((run) => ({
        tool: run.tool,
        engine: run.engine,
        stats: run.stats,
        disabled: run.disabled,
        findings: [...run.errors, ...run.hints].map((f) => ({
          kind: f.kind,
          count: f.count,
          ranks: f.ranks,
          bytes: f.bytes,
          fn: f.call.fn,
          access: f.access?.kind ?? null,
          first: { ...f.first, host: undefined, pid: undefined },
          frames: f.backtrace.length,
        })),
      })),
      profile: profileRuns(p).map((run) => ({
        tool: run.tool,
        depth: run.depth,
        timer: run.timer,
        ranks: run.ranks,
        sites: run.sites
          .map((s) => ({ fn: s.fn, overflow: s.overflow, frames: s.frames.length, ranks: [...run.stats[s.id].entries()] }))
          .sort((a, b) => (a.fn + JSON.stringify(a.ranks)).localeCompare(b.fn + JSON.stringify(b.ranks))),
      })),
    },
  };
}

/** `node dist/test/profile-file-dump.js DIR` prints the dump of DIR's profile (how each
 *  fixture's expected.json was made, by the reader of commit 481544f). */
if (process.argv[1]?.endsWith('profile-file-dump.js') && process.argv[2]) {
  console.log(JSON.stringify(dumpProfile(readProfile(process.argv[2])), null, 1));
}

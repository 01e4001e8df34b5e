// The profile tool on real jobs, both MPIs: call counts, bytes and times per call site resolved
// to file:line, MPI_Pcontrol, the stack depth option, a full site table, threads, a crash.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FLAVORS, ROOT, launcherArgs, mpii, outDir, program, type Flavor, useSpecialised } from './helpers.js';
import { readProfile } from '../src/profile-file/read.js';
import { imbalance, profileRuns, siteTotals, type ProfileRun, type SiteTotal } from '../preload/tools/profile/report/data.js';

useSpecialised(); // the tools as users run them: compiled into one wrapper per function

const NP = 3;
const ITERS = 10;

/** Line of each `site:<name>` marker in a test program. */
function markers(name: string): Record<string, number> {
  const lines = readFileSync(join(ROOT, 'test', 'programs', `${name}.c`), 'utf8').split('\n');
  const out: Record<string, number> = {};
  lines.forEach((l, i) => {
    const m = /site:([\w-]+) \*\//.exec(l);
    if (m) out[m[1]] = i + 1;
  });
  return out;
}

async function profiled(
  f: Flavor,
  name: string,
  tag: string,
  tools = 'profile',
  np = NP,
  args: string[] = [],
): Promise<{ out: string; run: ProfileRun; stdout: string; stderr: string }> {
  const out = outDir(`${f}-${tag}`);
  const r = await mpii(['run', '--tools', tools, '--out', out, ...launcherArgs(f, np), program(f, name), ...args]);
  assert.equal(r.code, 0, r.stderr);
  const runs = profileRuns(readProfile(out));
  assert.equal(runs.length, 1);
  return { out, run: runs[0], stdout: r.stdout, stderr: r.stderr };
}

/** The site of `fn` whose innermost frame is `line` of the program (and, when given, called from `caller`). */
function site(sites: SiteTotal[], fn: string, line: number, caller?: number): SiteTotal {
  const s = sites.find((t) => t.site.fn === fn && t.site.frames[0]?.line === line && (caller === undefined || t.site.frames[1]?.line === caller));
  assert.ok(s, `no ${fn} site at line ${line}${caller ? ` from ${caller}` : ''}: ${sites.map((t) => `${t.site.fn}@${t.site.location}`).join(', ')}`);
  return s;
}

const lines = markers('profile_sites');
const sampledLines = markers('profile_sampled');

for (const f of FLAVORS) {
  describe(`profile on ${f}`, () => {
    it('counts calls and bytes per call site, resolves file:line, leaves out what Pcontrol(0) hides', async () => {
      const { run, stderr } = await profiled(f, 'profile_sites', 'sites', 'profile');
      assert.equal(run.ranks.length, NP);
      assert.equal(run.depth, 1);
      const sites = siteTotals(run);
      for (const t of sites) {
        assert.match(t.site.frames[0].file, /profile_sites\.c$/, `${t.site.fn}: resolved to the program's source`);
        assert.equal(t.site.frames[0].func, t.site.frames[0].line === lines.exchange ? 'exchange' : 'main');
      }
      const send0 = site(sites, 'MPI_Send', lines['ring-send-0']);
      assert.deepEqual([send0.count, send0.ranks, send0.sent, send0.recv, send0.smin, send0.smax], [ITERS, 1, ITERS * 400, 0, 400, 400]);
      const recv0 = site(sites, 'MPI_Recv', lines['ring-recv-0']);
      assert.deepEqual([recv0.count, recv0.sent, recv0.recv], [ITERS, 0, ITERS * 400]);
      const send = site(sites, 'MPI_Send', lines['ring-send']);
      assert.deepEqual([send.count, send.ranks, send.sent], [ITERS * (NP - 1), NP - 1, ITERS * (NP - 1) * 400]);
      const recv = site(sites, 'MPI_Recv', lines['ring-recv']);
      assert.deepEqual([recv.count, recv.recv], [ITERS * (NP - 1), ITERS * (NP - 1) * 400]);
      const ex = site(sites, 'MPI_Sendrecv', lines.exchange);
      assert.deepEqual([ex.count, ex.sent, ex.recv, ex.smin, ex.smax], [5 * NP, 5 * NP * 64, 5 * NP * 64, 128, 128]);
      const ar = site(sites, 'MPI_Allreduce', lines.allreduce);
      assert.deepEqual([ar.count, ar.sent, ar.recv], [5 * NP, 5 * NP * 32, 5 * NP * 32]);
      const bc = site(sites, 'MPI_Bcast', lines.bcast);
      assert.deepEqual([bc.count, bc.sent, bc.recv], [3 * NP, 3 * 16, 3 * 16 * (NP - 1)], 'the root sends, the others receive');
      const bar = site(sites, 'MPI_Barrier', lines.barrier);
      assert.equal(bar.count, NP);
      assert.equal(
        sites.find((t) => t.site.frames[0]?.line === lines.hidden),
        undefined,
        'barriers between Pcontrol(0) and (1) are not recorded',
      );
      assert.equal(
        sites.find((t) => t.site.fn === 'MPI_Pcontrol' || t.site.fn === 'MPI_Init' || t.site.fn === 'MPI_Finalize'),
        undefined,
      );
      // times: rank 0 slept 300 ms before the barrier, the others waited for it inside MPI
      // (lower bounds only: how much longer a loaded machine takes is no result of the tool's)
      assert.ok(bar.tmax >= 0.25, `longest barrier ${bar.tmax} s`);
      assert.equal(sites[0].site.id, 0, 'site 1 is the one with the most time');
      assert.equal(sites[0].site.fn, 'MPI_Barrier');
      for (const r of run.ranks) {
        if (r.rank === 0) assert.ok(r.app >= 0.3, `rank 0 slept 300 ms between MPI_Init and MPI_Finalize: app time ${r.app}`);
        assert.ok(r.mpi <= r.recorded * 1.001 && r.recorded <= r.app * 1.001, `rank ${r.rank}: MPI ${r.mpi} ≤ recorded ${r.recorded} ≤ app ${r.app}`);
        assert.equal(r.pcontrol, 2);
        assert.equal(r.finished, true);
        if (r.rank > 0) assert.ok(r.mpi >= 0.25, `rank ${r.rank} waited in MPI: ${r.mpi}`);
      }
      const im = imbalance(run);
      assert.equal(im.minRank, 0);
      // max/mean of the ranks' MPI times, as mpiP's imbalance (the value itself moves with the
      // machine's load: checked against the ranks, not against a threshold)
      const mpiTimes = run.ranks.map((r) => r.mpi);
      const mean = mpiTimes.reduce((x, y) => x + y, 0) / mpiTimes.length;
      assert.equal(im.max, Math.max(...mpiTimes));
      assert.ok(Math.abs(im.ratio - im.max / mean) < 1e-12, `imbalance ${im.ratio} = ${im.max} / ${mean}`);
      assert.ok(im.max >= 0.25, `a rank waited ≥ 0.25 s in MPI: ${im.max}`);
      // the report printed after the run
      assert.match(stderr, /profile \(tool 1\): 3 ranks, call sites at stack depth 1/);
      assert.match(stderr, /app vs MPI time per rank:\n\s+rank\s+app s\s+MPI s\s+MPI %\n/);
      assert.match(stderr, new RegExp(`\\n\\s+1\\s+MPI_Barrier\\s+profile_sites\\.c:${lines.barrier} main\\s`));
      assert.match(stderr, /message sizes by call site/);
      assert.match(stderr, /MPI_Pcontrol switched it 6 times/);
    });

    it('depth=2 tells apart the two callers of one MPI call; report --json has them', async () => {
      const { out, run } = await profiled(f, 'profile_sites', 'depth', 'profile[depth=2]');
      assert.equal(run.depth, 2);
      const sites = siteTotals(run);
      const first = site(sites, 'MPI_Sendrecv', lines.exchange, lines.first);
      const second = site(sites, 'MPI_Sendrecv', lines.exchange, lines.second);
      assert.deepEqual([first.count, second.count], [3 * NP, 2 * NP]);
      assert.equal(first.site.frames[1].func, 'main');
      const r = await mpii(['report', '--json', '--top', '0', out]); // every site, whatever their times
      assert.equal(r.code, 0, r.stderr);
      const j = JSON.parse(r.stdout);
      const js = j.profile[0].sites.filter((s: { call: string }) => s.call === 'MPI_Sendrecv');
      assert.equal(js.length, 2);
      assert.deepEqual(js.map((s: { total: { count: number } }) => s.total.count).sort(), [2 * NP, 3 * NP].sort());
      assert.equal(js[0].ranks.length, NP);
      assert.match(js[0].location, /profile_sites\.c:\d+ exchange ← profile_sites\.c:\d+ main/);
    });

    it("sampled timing (the default, here one in 8; a hot site's calls past its first 1,024 timed one in 128): exact counts, the timed calls' time scaled to every call", async (t) => {
      for (const [sample, tag] of [
        [8, 'sampled'],
        [1, 'every'],
      ] as const) {
        const { run, stdout, stderr } = await profiled(f, 'profile_sampled', tag, `profile[sample=${sample}]`, 2);
        const own = Number(/recv seconds ([\d.]+)/.exec(stdout)?.[1]);
        assert.ok(own > 0, stdout);
        const recvs = siteTotals(run).filter((t) => t.site.fn === 'MPI_Recv');
        assert.deepEqual(
          recvs.map((t) => t.count),
          [300, 300],
          'two receive sites, taking turns',
        );
        for (const t of recvs) {
          if (sample === 1) assert.equal(t.timed, 300);
          // each site: its first 64, then one in 8 of its other 236 on average (random gaps of 1..15)
          else assert.ok(t.timed >= 64 + 10 && t.timed <= 64 + 80, `timed ${t.timed} of a site's 300`);
        }
        // the hot site: 100,000 calls per rank; with sample=8 its first 64, then 1,024 one in 8
        // (~8,200 calls), then one in 128 of the other ~91,700 (~720: random gaps of 1..255)
        const hot = siteTotals(run).filter((t) => t.site.fn === 'MPI_Sendrecv');
        assert.deepEqual(
          hot.map((t) => [t.count, t.site.frames[0].line]),
          [[2 * 100_000, sampledLines.hot]],
        );
        const later = hot[0].timed / 2 - 64 - 1024; // per rank, past the dense stretch
        if (sample === 1) assert.equal(hot[0].timed, 2 * 100_000);
        else assert.ok(later >= 600 && later <= 850, `hot site: ${hot[0].timed} of 2 x 100,000 calls timed`);
        if (sample === 1) assert.doesNotMatch(stderr, /calls timed/);
        else assert.match(stderr, new RegExp(`times: \\d+ of \\d+ calls timed .*sample=1 times every call`));
        // what the times must be whatever the machine's speed: each site's time stands for all its
        // 300 calls, each no shorter than its shortest timed call and no longer than its longest
        // (a missing scale, e.g. the sampled calls' time alone, gives ~timed/300 of that). How
        // close the estimate comes to the program's own measurement depends on the machine's load:
        // that is a benchmark's question, printed here as a diagnostic only. The estimator itself
        // is checked exactly in profile.unit.test.ts (scaledTicks).
        for (const s of [...recvs, ...hot]) {
          assert.ok(s.tmin > 0 && s.tmin <= s.tmax, `tmin ${s.tmin} tmax ${s.tmax}`);
          assert.ok(
            s.time >= s.count * s.tmin * (1 - 1e-9) && s.time <= s.count * s.tmax * (1 + 1e-9),
            `sample=${sample}: ${s.time} s for ${s.count} calls of ${s.tmin}..${s.tmax} s`,
          );
        }
        const recv = { time: recvs[0].time + recvs[1].time };
        t.diagnostic(`${f} sample=${sample}: the profile says ${recv.time.toFixed(4)} s in MPI_Recv, the program measured ${own} s`);
      }
    });

    it('thousands of calls per site (the tail path): exact counts, bytes and sizes across datatypes, a freed type and a new site; a send that fails under MPI_ERRORS_RETURN moves no bytes', async () => {
      const at = markers('profile_counts');
      // by default, and with (after a site's first 64 calls) no call timed: then every further call
      // of a site takes the tail path
      for (const tools of ['profile', 'profile[sample=1048576]']) await countsExact(at, tools);
    });

    async function countsExact(at: Record<string, number>, tools: string) {
      const { run, stdout } = await profiled(f, 'profile_counts', tools === 'profile' ? 'counts' : 'counts-untimed', tools, 2);
      assert.match(stdout, /failed 200\b/, 'the MPI returned an error for every send to a rank that does not exist');
      assert.match(stdout, /^info 999$/m, 'MPI_Info_set got its own key and value past its first 64 calls');
      const sites = siteTotals(run);
      const row = (name: string, fn: string) => {
        const t = site(sites, fn, at[name]);
        return [t.count, t.sent, t.recv, t.smin, t.smax];
      };
      // 125 x 64 B and 125 x 16 B in turn, 250 x 16 B, 250 x 24 B (a second type, maybe under the
      // freed type's handle, with the same count), 250 x 64 B
      assert.deepEqual(row('send-mixed', 'MPI_Send'), [1000, 125 * 64 + 125 * 16 + 250 * 16 + 250 * 24 + 250 * 64, 0, 16, 64]);
      assert.deepEqual(row('send-null-first', 'MPI_Send'), [1000, 999 * 64, 0, 0, 64]);
      assert.deepEqual(row('send-null', 'MPI_Send'), [1000, 0, 0, 0, 0]);
      assert.deepEqual(row('recv', 'MPI_Recv'), [1000, 0, 1000 * 64, 64, 64]);
      assert.deepEqual(row('recv-2', 'MPI_Recv'), [999, 0, 999 * 64, 64, 64]);
      const bad = site(sites, 'MPI_Send', at['send-bad']);
      assert.deepEqual([bad.count, bad.sent], [100, 0]);
      assert.deepEqual(row('send-after', 'MPI_Send'), [1000, 1000 * 64, 0, 64, 64]);
      assert.deepEqual(row('recv-after', 'MPI_Recv'), [1000, 0, 1000 * 64, 64, 64]);
      assert.deepEqual(row('send-between', 'MPI_Send'), [100, 100 * 64, 0, 64, 64]);
      // the middle third sent and received with recording off (Pcontrol 0 at 333, 1 at 666)
      assert.deepEqual(row('send-paused', 'MPI_Send'), [667, 667 * 64, 0, 64, 64], tools);
      assert.deepEqual(row('recv-paused', 'MPI_Recv'), [667, 0, 667 * 64, 64, 64], tools);
      // 100 x 8 B, one to MPI_PROC_NULL, 100 x 64 B; later 100 x 64 B and 100 failed sends (0 B)
      assert.deepEqual(row('send-back', 'MPI_Send'), [401, 100 * 8 + 200 * 64, 0, 0, 64], tools);
      assert.deepEqual(row('send-last-null', 'MPI_Send'), [100, 99 * 64, 0, 0, 64], tools);
    }

    it('a full site table files further calls under their function; nothing is lost', async () => {
      const { run } = await profiled(f, 'profile_sites', 'full', 'profile[sites=3]');
      const sites = siteTotals(run);
      const kept = sites.filter((t) => !t.site.overflow);
      const over = sites.filter((t) => t.site.overflow);
      assert.ok(over.length > 0, 'some calls found the table full');
      for (const r of run.ranks) {
        const rows = run.stats.filter((m, id) => !run.sites[id].overflow && m.has(run.ranks.indexOf(r)));
        assert.ok(rows.length <= 3, `rank ${r.rank} kept ${rows.length} sites`);
      }
      const calls = (fn: string) => sites.filter((t) => t.site.fn === fn).reduce((a, t) => a + t.count, 0);
      assert.equal(calls('MPI_Send'), ITERS * NP);
      assert.equal(calls('MPI_Sendrecv'), 5 * NP);
      assert.equal(calls('MPI_Bcast'), 3 * NP);
      assert.ok(kept.length > 0);
      assert.equal(over[0].site.location, '(sites beyond the table)');
    });

    it('MPI_THREAD_MULTIPLE: one thread alone, three at once, one alone again (unlocked again), three again: all counted', async () => {
      const { run, stdout, stderr } = await profiled(f, 'profile_threads', 'threads', 'profile', 2);
      assert.match(stdout, /profile_threads ok provided=3/); // both MPIs here grant MPI_THREAD_MULTIPLE
      const totals = siteTotals(run),
        m = markers('profile_threads');
      const before = site(totals, 'MPI_Sendrecv', m.before),
        t = site(totals, 'MPI_Sendrecv', m.threads),
        after = site(totals, 'MPI_Comm_rank', m.after);
      assert.deepEqual([before.count, before.sent, before.recv], [2 * 100, 2 * 100 * 64, 2 * 100 * 64]);
      assert.deepEqual([t.count, t.sent, t.recv], [2 * 2 * 3 * 500, 2 * 2 * 3 * 500 * 64, 2 * 2 * 3 * 500 * 64]);
      assert.equal(after.count, 2 * 70000);
      // per rank: locked when the threads first call, unlocked again within the 70,000 calls alone
      // (PF_RESUME_CALLS = 65,536), locked again when the threads come back
      assert.deepEqual(
        run.ranks.map((r) => [r.joins, r.resumes]),
        [
          [2, 1],
          [2, 1],
        ],
      );
      assert.match(stderr.replace(/\s+/g, ' '), /MPI calls from more than one thread: counted under a lock from 4 starts, the unlocked path back 2 times/);
    });

    it("a crashed job keeps its profile: times up to each rank's last MPI call", async () => {
      const out = outDir(`${f}-crash`);
      const r = await mpii(['run', '--tools', 'profile', '--out', out, ...launcherArgs(f, NP), program(f, 'crash')]);
      assert.notEqual(r.code, 0);
      const p = readProfile(out);
      assert.equal(p.complete, false);
      const run = profileRuns(p)[0];
      assert.ok(run.ranks.length >= NP - 1);
      assert.ok(run.ranks.every((x) => !x.finished && x.app > 0 && x.mpi > 0));
      const sends = siteTotals(run)
        .filter((t) => t.site.fn === 'MPI_Send')
        .reduce((a, t) => a + t.count, 0);
      assert.ok(sends >= 100 * (NP - 1), `${sends} sends survived`);
      assert.ok(
        siteTotals(run).every((t) => /crash\.c:\d+ main/.test(t.site.location)),
        'sites of a crashed job are resolved too',
      );
      const rep = await mpii(['report', out]);
      assert.equal(rep.code, 0, rep.stderr);
      assert.match(rep.stdout, /† did not reach MPI_Finalize/);
    });
  });
}

describe('profile with monitor in one stack', () => {
  it('both report; the monitor sees the same messages the profile counts', async () => {
    const { out, run } = await profiled('openmpi', 'profile_sites', 'both', 'monitor,profile', 4);
    const sites = siteTotals(run);
    const sent = sites.filter((t) => t.site.fn === 'MPI_Send').reduce((a, t) => a + t.sent, 0);
    const r = await mpii(['report', '--json', out]);
    const j = JSON.parse(r.stdout);
    assert.equal(j.monitor[0].totals.p2p.bytes, sent + 4 * 5 * 64, 'Send bytes + Sendrecv bytes');
  });
});

// mpiP parity of the report (issue 25), on synthetic jobs (exact numbers): min time per call,
// Sent %, App % and MPI % per site, the per-rank breakdown (--ranks), the --top/--sites/--ranks
// filters choosing the same rows in text, JSON, CSV and HTML, the header, and a text report of at
// most 80 columns. The real runs of each MPI are in report-mpip.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProfile } from '../src/profile-file/read.js';
import { SYNTH_SITES, synthAppSeconds, synthRank, synthSiteCalls, synthSiteNs, writeGathered, writeSyntheticJob } from '../src/profile-file/synthetic.js';
import { profileJson, profileRuns } from '../preload/tools/profile/report/data.js';
import { formatProfile } from '../preload/tools/profile/report/text.js';
import { siteRankRows, siteRows } from '../preload/tools/profile/report/stats.js';
import { formatHeader, rankRanges, runHeader, wrap } from '../src/report/header.js';
import { writeRunInfo, readRunInfo } from '../src/report/run-info.js';
import { DEFAULT_TOP, parseRanks, parseSites, reportFilter } from '../src/report/filter.js';
import { profileCsv } from '../preload/tools/profile/report/csv.js';
import { htmlReport } from '../src/report/html.js';
import { formatSummary } from '../src/report/summary.js';
import { cut, fitLines, table, visibleLength } from '../src/report/text-table.js';
import { mpii } from './helpers.js';

const N = 12;
const synth = (n = N, tools?: string[]) => {
  const dir = mkdtempSync(join(tmpdir(), 'mpii-mpip-'));
  writeSyntheticJob(dir, n, tools ? { tools } : {});
  return dir;
};
const SEND = SYNTH_SITES.findIndex((s) => s.fn === 0); // the first MPI_Send site: 1024 bytes a call
const siteOf = (fn: string, nth = 0) => siteRows(profileRuns(readProfile(DIR))[0]).filter((t) => t.site.fn === fn)[nth];
const DIR = synth();

describe('mpiP statistics per call site and per rank (synthetic job)', () => {
  const run = profileRuns(readProfile(DIR))[0];
  const rows = siteRows(run);

  it('min/mean/max time per call, App %, MPI %, Sent % (the Sent % of all sites add up to 100)', () => {
    const recv = rows.find((t) => t.site.fn === 'MPI_Recv')!;
    const s = SYNTH_SITES.findIndex((x) => x.fn === 1);
    const per = Array.from({ length: N }, (_, r) => synthSiteNs(r, s) / 1e9);
    assert.ok(Math.abs(recv.tmin - Math.min(...per)) < 1e-12);
    assert.ok(Math.abs(recv.tmax - Math.max(...per)) < 1e-12);
    let calls = 0;
    let time = 0;
    for (let r = 0; r < N; r++) {
      calls += synthSiteCalls(r, s);
      time += synthSiteCalls(r, s) * per[r];
    }
    assert.equal(recv.count, calls);
    assert.ok(Math.abs(recv.mean - time / calls) < 1e-12);
    const app = Array.from({ length: N }, (_, r) => synthAppSeconds(r)).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(recv.appPercent - (100 * time) / app) < 1e-9);
    const mpi = run.ranks.reduce((a, r) => a + r.mpi, 0);
    assert.ok(Math.abs(recv.mpiPercent - (100 * time) / mpi) < 1e-9);
    assert.equal(recv.sentPercent, 0, 'a receive sends nothing');
    assert.ok(Math.abs(rows.reduce((a, t) => a + t.sentPercent, 0) - 100) < 1e-9);
    // the two MPI_Send sites send 1024 B a call, the Allreduce 32 B: their shares by bytes
    const sent = rows.reduce((a, t) => a + t.sent, 0);
    for (const t of rows) assert.ok(Math.abs(t.sentPercent - (100 * t.sent) / sent) < 1e-9);
  });

  it("per rank (mpiP's Callsite Time statistics): count, max/mean/min, App % and MPI % of the rank's own time", () => {
    const send = rows.find(
      (t) => t.site.fn === 'MPI_Send' && t.count === Array.from({ length: N }, (_, r) => synthSiteCalls(r, SEND)).reduce((a, b) => a + b),
    )!;
    const per = siteRankRows(
      run,
      send.site.id,
      run.ranks.map((_, i) => i),
    );
    assert.deepEqual(
      per.map((x) => x.rank),
      Array.from({ length: N }, (_, r) => r),
    );
    for (const x of per) {
      const ns = synthSiteNs(x.rank, SEND);
      assert.equal(x.count, synthSiteCalls(x.rank, SEND));
      assert.ok(Math.abs(x.tmin - ns / 1e9) < 1e-12 && Math.abs(x.tmax - ns / 1e9) < 1e-12 && Math.abs(x.mean - ns / 1e9) < 1e-12);
      const rk = run.ranks.find((r) => r.rank === x.rank)!;
      assert.ok(Math.abs(x.appPercent - (100 * x.time) / rk.recorded) < 1e-9);
      assert.ok(Math.abs(x.mpiPercent - (100 * x.time) / rk.mpi) < 1e-9);
      assert.equal(x.sent, x.count * 1024);
    }
  });

  it('text: mpiP-named tables with min and Sent %, and --ranks prints each site per rank with a * line', () => {
    const text = formatProfile(readProfile(DIR), { filter: { ranks: [0, 5] } }).join('\n');
    assert.match(text, /time per call, all ranks \(mpiP: Callsite Time statistics\):\n\s+site\s+call\s+calls\s+min\s+mean\s+max\n/);
    assert.match(text, /bytes per call site, all ranks \(mpiP: Aggregate Sent Message Size\):\n\s+site\s+call\s+calls\s+sent\s+Sent %\s+received\s+mean\n/);
    assert.match(text, /per rank, each call site \(mpiP: Callsite Time statistics; ranks 0,5\):/);
    assert.match(text, /app vs MPI time per rank \(ranks 0,5; \* = all 12\):/);
    // one block per site: ranks 0 and 5 and the * line
    const blocks = text.split(/\n {4}site \d+ {2}/).slice(1);
    assert.equal(blocks.length, SYNTH_SITES.length);
    for (const b of blocks) {
      const ranks = b
        .split('\n')
        .filter((l) => /^ {6}\s*(\d+|\*) /.test(l))
        .map((l) => l.trim().split(/\s+/)[0]);
      assert.deepEqual(ranks, ['0', '5', '*']);
    }
    const recv = siteOf('MPI_Recv');
    const s = SYNTH_SITES.findIndex((x) => x.fn === 1);
    const block = blocks[recv.site.id];
    assert.match(block, new RegExp(`\\n {9}5 +${synthSiteCalls(5, s)} `));
  });

  it('the text report is at most 80 columns wide, --ranks and all', () => {
    const p = readProfile(synth(40));
    const mon = formatSummary(p, {})
      .split('\n')
      .filter((l) => [...l].length > 80);
    assert.deepEqual(mon, [], 'the monitor part too (matrix in blocks of ranks, legend on two lines)');
    for (const text of [formatSummary(p, {}), formatSummary(p, { filter: { ranks: true } }), formatProfile(p, { filter: { ranks: true } }).join('\n')]) {
      const wide = text.split('\n').filter((l) => [...l].length > 80);
      assert.deepEqual(wide, [], 'lines over 80 columns');
    }
  });

  it('a wide table gives way in its location column; long words wrap', () => {
    const t = table(['site', 'call', 'location'], [['1', 'MPI_Allreduce', 'x'.repeat(120)]], [true, false, false], { shrink: 2 });
    assert.ok(
      t.every((l) => l.length <= 80),
      t.join('\n'),
    );
    assert.match(t[1], /x…$/);
    assert.equal(cut('abcdef', 4), 'abc…');
    assert.deepEqual(wrap('aaa bbb ccc', 7), ['aaa bbb', 'ccc']);
    assert.deepEqual(wrap('x'.repeat(10), 4), ['xxxx', 'xxxx', 'xx']);
    assert.equal(rankRanges([0, 1, 2, 5, 7, 8]), '0-2,5,7-8');
    // prose lines of the other tools: wrapped at spaces, two more spaces on the next lines;
    // colour codes take no room; a word longer than a line is broken
    const long = `  faults      1 (page touches that finished a receive); time waiting 0.351 ms (max 0.336 ms on one rank)`;
    assert.deepEqual(fitLines([long, 'short']), [
      '  faults      1 (page touches that finished a receive); time waiting 0.351 ms',
      '    (max 0.336 ms on one rank)',
      'short',
    ]);
    const coloured = `\x1b[33m${'y'.repeat(78)}\x1b[39m`;
    assert.deepEqual(fitLines([coloured]), [coloured]);
    assert.equal(visibleLength(coloured), 78);
    const word = fitLines([`  ${'z'.repeat(200)}`]);
    assert.ok(word.every((l) => l.length <= 80) && word.join('').replace(/ /g, '') === 'z'.repeat(200), word.join('\n'));
  });
});

describe('filters act the same in text, --json, CSV and HTML', () => {
  const p = readProfile(DIR);
  const run = profileRuns(p)[0];
  const cases = [
    { name: '--top 2', f: reportFilter({ top: 2 }) },
    { name: '--sites MPI_Send', f: reportFilter({ sites: 'MPI_Send' }) },
    { name: '--sites 1,3-4 --top 2', f: reportFilter({ sites: '1,3-4', top: 2 }) },
    { name: '--ranks 1,3', f: reportFilter({ ranks: '1,3' }) },
  ];
  for (const { name, f } of cases) {
    it(name, () => {
      const j = (profileJson(p, f) as { sites: { id: number; ranks: { rank: number }[] }[]; ranks: { rank: number }[] }[])[0];
      const jsonSites = j.sites.map((s) => s.id + 1);
      const text = formatProfile(p, { filter: f }).join('\n');
      const legend = text.split('call sites by MPI time')[1].split('\n  time per call site')[0];
      const textSites = [...legend.matchAll(/^ {4} *(\d+) {2}MPI_/gm)].map((m) => Number(m[1]));
      const csv = profileCsv(run, f);
      const csvSites = csv.sites
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => Number(l.split(',')[0]));
      const html = htmlReport(p, { filter: f });
      const table = html.split('id="profile-2-sites"')[1].split('</table>')[0];
      const htmlSites = [...table.matchAll(/<tr><td class="num" data-sort="(\d+)">/g)].map((m) => Number(m[1]));
      if (f.top || f.sites) {
        // explicit filters: every format lists the same sites, in the same order
        assert.deepEqual(textSites, jsonSites, 'text vs JSON');
        assert.deepEqual(csvSites, jsonSites, 'CSV vs JSON');
        assert.deepEqual(htmlSites, jsonSites, 'HTML vs JSON');
      } else {
        assert.deepEqual(
          jsonSites,
          siteRows(run)
            .slice(0, DEFAULT_TOP)
            .map((t) => t.site.id + 1),
          'no --sites/--top: the first DEFAULT_TOP sites in JSON',
        );
      }
      if (f.sites?.includes('MPI_Send')) assert.equal(jsonSites.length, 2);
      if (f.sites?.[0] === '1') assert.deepEqual(jsonSites, [1, 3]);
      if (f.top === 2 && !f.sites) assert.deepEqual(jsonSites, [1, 2]);
      if (Array.isArray(f.ranks)) {
        for (const s of j.sites)
          assert.deepEqual(
            s.ranks.map((r) => r.rank),
            [1, 3],
          );
        assert.deepEqual(
          j.ranks.map((r) => r.rank),
          [1, 3],
        );
        const csvRanks = new Set(
          csv.ranks
            .trim()
            .split('\n')
            .slice(1)
            .map((l) => Number(l.split(',')[2])),
        );
        assert.deepEqual([...csvRanks], [1, 3]);
        const blocks = [...html.matchAll(/<details class="site-ranks" data-site="(\d+)">/g)];
        assert.equal(blocks.length, Math.min(DEFAULT_TOP, SYNTH_SITES.length));
        const first = html.split('<details class="site-ranks"')[1].split('</table>')[0];
        assert.deepEqual(
          [...first.matchAll(/<tr><td class="num" data-sort="([^"]+)">/g)].map((m) => m[1]),
          ['1', '3', 'Infinity'],
        );
        assert.match(text, /per rank, each call site \(mpiP: Callsite Time statistics; ranks 1,3\)/);
      } else {
        assert.doesNotMatch(html, /class="site-ranks"/);
        assert.doesNotMatch(text, /per rank, each call site/);
      }
    });
  }

  it(`without --top: the same ${DEFAULT_TOP} call sites in text, --json, --csv and --html; --top 0: every one (CLI)`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-mpip-top-'));
    const extra = 13;
    writeSyntheticJob(dir, 4, { extraSites: extra });
    const all = SYNTH_SITES.length + extra;
    const rows = async (top: string[]) => {
      const text = (await mpii(['report', dir, ...top])).stdout;
      const legend = text.split('call sites by MPI time')[1].split('\n  time per call site')[0];
      const json = JSON.parse((await mpii(['report', dir, '--json', ...top])).stdout).profile[0];
      const csvDir = join(dir, `csv${top.join('')}`);
      const html = join(dir, `r${top.join('')}.html`);
      rmSync(html, { force: true });
      const r = await mpii(['report', dir, '--csv', csvDir, '--html', html, ...top]);
      assert.equal(r.code, 0, r.stderr);
      const page = readFileSync(html, 'utf8').split('id="profile-2-sites"')[1].split('</table>')[0];
      return {
        text: [...legend.matchAll(/^ {4} *(\d+) {2}MPI_/gm)].map((m) => Number(m[1])),
        json: json.sites.map((s: { id: number }) => s.id + 1) as number[],
        jsonTotal: json.sitesTotal as number,
        csv: readFileSync(join(csvDir, 'profile_sites.csv'), 'utf8')
          .trim()
          .split('\n')
          .slice(1)
          .map((l) => Number(l.split(',')[0])),
        html: [...page.matchAll(/<tr><td class="num" data-sort="(\d+)">/g)].map((m) => Number(m[1])),
        more: /… (\d+) more call sites/.exec(text)?.[1],
      };
    };
    const d = await rows([]);
    const first = Array.from({ length: DEFAULT_TOP }, (_, i) => i + 1);
    assert.deepEqual(d.text, first, 'text');
    assert.deepEqual(d.json, first, 'JSON');
    assert.deepEqual(d.csv, first, 'CSV');
    assert.deepEqual(d.html, first, 'HTML');
    assert.equal(d.jsonTotal, all);
    assert.equal(d.more, String(all - DEFAULT_TOP));
    const every = await rows(['--top', '0']);
    const ids = Array.from({ length: all }, (_, i) => i + 1);
    for (const k of ['text', 'json', 'csv', 'html'] as const) assert.deepEqual(every[k], ids, `--top 0: ${k}`);
    assert.equal(every.more, undefined);
  });

  it('parsing: ranges, errors in one line', () => {
    assert.deepEqual(parseRanks('3,0-2,2'), [0, 1, 2, 3]);
    assert.throws(() => parseRanks('a'), /--ranks: 'a' is not a rank/);
    assert.throws(() => parseRanks('5-2'), /runs backwards/);
    assert.deepEqual(parseSites('1, MPI_Send ,x.c:3'), ['1', 'MPI_Send', 'x.c:3']);
  });
});

describe('the header (mpiP: command, times, hosts and ranks, MPI version, tools and options)', () => {
  it('from the profile alone: times, hosts with their ranks, tools; says what was not recorded', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-hdr-'));
    writeGathered(dir, 6, (r) => ({ ...synthRank(6, r), host: r < 4 ? 'alpha' : 'beta', tStart: 1_700_000_000 + r, tEnd: 1_700_000_100 + r }));
    const h = runHeader(readProfile(dir));
    assert.deepEqual(h.hosts, [
      { host: 'alpha', ranks: [0, 1, 2, 3] },
      { host: 'beta', ranks: [4, 5] },
    ]);
    assert.equal(h.start, 1_700_000_000);
    assert.equal(h.stop, 1_700_000_105);
    assert.deepEqual(h.missing, ['command line', 'MPI version', 'tool options']);
    const text = formatHeader(h).join('\n');
    assert.match(text, /started +2023-11-14 22:13:20 UTC/);
    assert.match(text, /stopped +2023-11-14 22:15:05 UTC \(105\.000 s\)/);
    assert.match(text, /hosts \(2\) +alpha: 4 ranks \(0-3\)\n +beta: 2 ranks \(4-5\)/);
    assert.match(text, /not recorded +command line, MPI version, tool options/);
  });

  it('with what mpii run recorded: command line (quoted), launcher options, MPI version, tool options', () => {
    const dir = synth(4);
    writeRunInfo(dir, {
      mpii: '0.1.0',
      command: ['./app', 'a b', '--n=3'],
      launcher: 'mpirun.openmpi',
      launcherArgs: ['-np', '4'],
      cwd: '/w',
      mpi: 'Open MPI 4.1.4',
      flavor: 'openmpi',
      tools: [
        { name: 'monitor', options: {} },
        { name: 'profile', options: { depth: 2 } },
      ],
      started: '2023-11-14T22:13:20Z',
    });
    assert.equal(readRunInfo(dir)?.mpi, 'Open MPI 4.1.4');
    const text = formatSummary(readProfile(dir));
    assert.match(text, /\n {2}command +\.\/app 'a b' --n=3\n/);
    assert.match(text, /\n {2}launcher +mpirun\.openmpi -np 4\n/);
    assert.match(text, /\n {2}MPI +Open MPI 4\.1\.4; mpii 0\.1\.0\n/);
    assert.match(text, /\n {2}tool options +2:profile depth=2\ntools: 1:monitor 2:profile\n/);
    assert.doesNotMatch(text, /not recorded/);
    const html = htmlReport(readProfile(dir));
    assert.match(html, /<dd data-key="command">\.\/app a b --n=3<\/dd>/);
    assert.match(html, /<dd data-key="tools">1:monitor 2:profile\[depth=2\]<\/dd>/);
  });

  it('a program path longer than the line stays whole (it can be copied); other long words are broken', () => {
    const path = `/scratch/${'d'.repeat(70)}/app`;
    const h = { ...runHeader(readProfile(synth(2))), command: [path, '-n', '3'], launcher: `mpirun ${'x'.repeat(90)}`, missing: [] };
    const lines = formatHeader(h);
    assert.deepEqual(lines.slice(0, 2), [`  command   ${path}`, '            -n 3']);
    assert.deepEqual(
      lines.filter((l) => l.length > 80),
      [`  command   ${path}`],
    );
    assert.deepEqual(lines.slice(3, 5), [`            ${'x'.repeat(68)}`, `            ${'x'.repeat(22)}`]);
  });
});

// `mpii report A B` (issue 25) on real runs: 2 and 3 ranks on Open MPI through the CLI in text,
// --json and --html, and the page in headless Chromium. The synthetic jobs (exact numbers) are in
// report-diff.unit.test.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProfile } from '../src/profile-file/read.js';
import { SYNTH_SITES, writeSyntheticJob } from '../src/profile-file/synthetic.js';
import { DEFAULT_TOP } from '../src/report/filter.js';
import { profileRuns, siteTotals } from '../preload/tools/profile/report/data.js';
import { launcherArgs, mpii, outDir, program, openReportPage } from './helpers.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'mpii-diff-'));
function job(n: number, tools?: string[]): string {
  const dir = tmp();
  writeSyntheticJob(dir, n, tools ? { tools } : {});
  return dir;
}

describe('mpii report A B (real runs, Open MPI: 2 then 3 ranks)', () => {
  it('text, --json and --html through the CLI', async () => {
    const prog = program('openmpi', 'profile_sites');
    const dirs: string[] = [];
    for (const np of [2, 3]) {
      const out = outDir(`diff-${np}`);
      const r = await mpii(['run', '--quiet', '--tools', 'profile,monitor', '--out', out, ...launcherArgs('openmpi', np), prog]);
      assert.equal(r.code, 0, r.stderr);
      dirs.push(out);
    }
    const [ta, tb] = dirs.map((d) => siteTotals(profileRuns(readProfile(d))[0]));
    const j = await mpii(['report', ...dirs, '--json']);
    assert.equal(j.code, 0, j.stderr);
    const js = JSON.parse(j.stdout);
    assert.equal(js.a.ranks, 2);
    assert.equal(js.b.ranks, 3);
    assert.deepEqual(
      js.notes.filter((n: string) => /binary/.test(n)),
      [],
      'the same program: no note about it',
    );
    const barrier = js.profile.sites.find((s: { call: string }) => s.call === 'MPI_Barrier');
    assert.equal(barrier.status, 'both');
    assert.deepEqual([barrier.a.count, barrier.b.count, barrier.count], [2, 3, 1]);
    // every site of either run is matched by call and location
    const key = (t: { site: { fn: string; location: string } }) => `${t.site.fn} ${t.site.location}`;
    const all = new Set([...ta.map(key), ...tb.map(key)]);
    assert.equal(js.profile.sites.length, all.size);
    for (const s of js.profile.sites) {
      const a = ta.find((t) => key(t) === `${s.call} ${s.location}`);
      const b = tb.find((t) => key(t) === `${s.call} ${s.location}`);
      assert.equal(s.a?.count ?? null, a?.count ?? null);
      assert.equal(s.b?.count ?? null, b?.count ?? null);
      assert.equal(s.status, a && b ? 'both' : a ? 'vanished' : 'appeared');
    }
    assert.deepEqual(
      js.profile.ranks.filter((r: { a: number | null }) => r.a === null).map((r: { rank: number }) => r.rank),
      [2],
    );
    const p2p = js.monitor.classes.find((c: { class: string }) => c.class === 'p2p');
    assert.ok(p2p.b.count > p2p.a.count, 'rank 2 talks too');
    assert.ok(js.monitor.pairs.some((x: { from: number; to: number }) => x.from === 2 || x.to === 2));

    const html = join(mkdtempSync(join(tmpdir(), 'mpii-diff-html-')), 'diff.html');
    const t = await mpii(['report', ...dirs, '--html', html, '--top', '4']);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /^mpii report: what changed from run A to run B\n/);
    assert.match(t.stdout, /\n {4}1 {2}MPI_Barrier +profile_sites\.c:\d+ main/);
    assert.deepEqual(
      t.stdout.split('\n').filter((l) => [...l].length > 80),
      [],
    );
    assert.match(readFileSync(html, 'utf8'), /<table id="diff-sites"/);
    const bad = await mpii(['report', ...dirs, '--ranks', '1']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr.trim(), /^mpii: --ranks is for the report of one run — /);
  });
});

describe('mpii report A B --html in headless Chromium; the same default rows as the text and --json', () => {
  let browser: Browser;
  before(async () => {
    assert.ok(existsSync('/usr/bin/chromium'), '/usr/bin/chromium missing: apt-get install -y chromium');
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  after(async () => {
    await browser?.close();
  });

  it('tables with the rows of the text and --json (no --top), sorting by a column, nothing loaded, no sideways scrolling', async () => {
    const A = job(8);
    const B = job(12);
    const html = join(tmp(), 'diff.html');
    const r = await mpii(['report', A, B, '--html', html]);
    assert.equal(r.code, 0, r.stderr);
    const text = r.stdout;
    const js = JSON.parse((await mpii(['report', A, B, '--json'])).stdout);
    // rows of each table in the text
    const textPairs = text
      .split('pairs that changed')[1]
      .split('\n')
      .filter((l) => /^ {4}\d+ → \d+ /.test(l)).length;
    const ranksPart = text.split('MPI time per rank, largest change first')[1].split('\n  call sites,')[0];
    const textRanks = [...ranksPart.matchAll(/^ {4} *(\d+) /gm)].map((m) => Number(m[1]));
    assert.equal(textPairs, DEFAULT_TOP);
    assert.equal(js.monitor.pairs.length, DEFAULT_TOP);
    assert.deepEqual(
      js.profile.ranks.map((x: { rank: number }) => x.rank),
      textRanks,
    );
    assert.equal(textRanks.length, 4);
    assert.equal(js.profile.sites.length, Math.min(DEFAULT_TOP, SYNTH_SITES.length));

    const { page: pg, errors, requests } = await openReportPage(browser, html);
    assert.deepEqual(errors, []);
    assert.deepEqual(requests, []);
    const count = (id: string) => pg.locator(`#${id} tbody tr`).count();
    assert.equal(await count('diff-pairs'), js.monitor.pairs.length);
    assert.equal(await count('diff-ranks'), js.profile.ranks.length);
    assert.equal(await count('diff-sites'), js.profile.sites.length);
    assert.equal(await count('diff-classes'), js.monitor.classes.length);
    assert.deepEqual(
      await pg.$$eval('#diff-ranks tbody tr td:first-child', (tds) => tds.map((td) => Number(td.textContent))),
      js.profile.ranks.map((x: { rank: number }) => x.rank),
    );
    assert.match((await pg.textContent('#runs')) ?? '', /A.*8 ranks.*B.*12 ranks/s);
    assert.match((await pg.locator('p.note').allTextContents()).join('\n'), /A has 8 ranks, B 12/);
    // sorting: the sender column, ascending then descending
    const senders = () => pg.$$eval('#diff-pairs tbody tr td:first-child', (tds) => tds.map((td) => Number(td.getAttribute('data-sort'))));
    await pg.click('#diff-pairs th[data-col="0"]');
    const desc = await senders();
    assert.deepEqual(
      desc,
      [...desc].sort((x, y) => y - x),
    );
    await pg.click('#diff-pairs th[data-col="0"]');
    const asc = await senders();
    assert.deepEqual(
      asc,
      [...asc].sort((x, y) => x - y),
    );
    const { scroll, client } = await pg.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    assert.ok(scroll <= client, `page is ${scroll} px wide in a ${client} px window`);
    await pg.close();
  });
});

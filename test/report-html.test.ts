// `mpii report --html` rendered in a real browser (Debian's chromium, driven by playwright-core):
// the page loads nothing from the network, and the heatmap, the bars and the tables show the
// numbers of the profile they were made from; a screenshot is taken and its pixels checked.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { mpii, outDir, launcherArgs, program } from './helpers.js';
import { readProfile } from '../src/profile-file/read.js';
import { writeGathered, writeSyntheticJob, synthSiteCalls, SYNTH_SITES } from '../src/profile-file/synthetic.js';
import { matrix, monitorRuns, totals } from '../preload/tools/monitor/report/data.js';
import { humanBytes } from '../src/report/units.js';
import { profileRuns } from '../preload/tools/profile/report/data.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SHOTS = mkdtempSync(join(tmpdir(), 'mpii-html-shots-'));

let browser: Browser;

interface Opened {
  page: Page;
  errors: string[];
  requests: string[];
}

async function open(file: string): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`file://${file}`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
  return { page, errors, requests };
}

async function html(dir: string, tag: string, extra: string[] = []): Promise<string> {
  const file = join(SHOTS, `${tag}.html`);
  const r = await mpii(['report', dir, '--html', file, ...extra]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`wrote ${file}`));
  const text = readFileSync(file, 'utf8');
  // self-contained: nothing that would load from elsewhere
  assert.doesNotMatch(text, /<(script|img|link|iframe)[^>]+(src|href)=/i);
  assert.doesNotMatch(text, /@import|url\(/i);
  assert.match(text, /Content-Security-Policy" content="default-src 'none'/);
  return file;
}

/** Cells of the current heatmap: "row,col" -> value. */
async function cells(page: Page, id: string): Promise<Map<string, number>> {
  const list = await page.$$eval(`#${id} rect.cell`, (rs) =>
    rs.map((r) => [`${r.getAttribute('data-row')},${r.getAttribute('data-col')}`, Number(r.getAttribute('data-value'))] as [string, number]),
  );
  return new Map(list);
}

function nonzero(m: number[][]): Map<string, number> {
  const out = new Map<string, number>();
  m.forEach((row, i) =>
    row.forEach((v, j) => {
      if (v) out.set(`${i},${j}`, v);
    }),
  );
  return out;
}

/** Table rows as text cells. */
async function rows(page: Page, id: string): Promise<string[][]> {
  return page.$$eval(`#${id} tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())));
}

/** The colour of pixel (x, y) of a PNG, read by the browser itself. */
async function pixel(page: Page, png: Buffer, x: number, y: number): Promise<number[]> {
  return page.evaluate(
    async ({ src, x, y }) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const g = c.getContext('2d')!;
      g.drawImage(img, 0, 0);
      return [...g.getImageData(x, y, 1, 1).data].slice(0, 3);
    },
    { src: `data:image/png;base64,${png.toString('base64')}`, x: Math.round(x), y: Math.round(y) },
  );
}

describe('HTML report in headless Chromium', () => {
  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} missing: apt-get install -y chromium (scripts/setup.sh does)`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });
  after(async () => {
    await browser?.close();
  });

  it("a real job: heatmap, bars and tables show the profile's numbers; screenshot", async () => {
    const out = outDir('html-job');
    const run = await mpii(['run', '--quiet', '--tools', 'monitor,profile', '--out', out, ...launcherArgs('openmpi', 4), program('openmpi', 'profile_sites')]);
    assert.equal(run.code, 0, run.stderr);
    const p = readProfile(out);
    const mon = monitorRuns(p)[0];
    const prof = profileRuns(p)[0];
    const file = await html(out, 'job');
    const { page, errors, requests } = await open(file);
    assert.deepEqual(errors, []);
    assert.deepEqual(
      requests.filter((u) => !u.startsWith('file:')),
      [],
      'no network requests',
    );

    // heatmap: all classes, bytes, then messages, then point-to-point only
    const hm = 'monitor-1-heatmap';
    const svg = page.locator(`#${hm} svg`);
    assert.equal(await svg.getAttribute('data-side'), '4');
    assert.equal(await svg.getAttribute('data-block'), '1');
    assert.deepEqual(await cells(page, hm), nonzero(matrix(mon, 'all', 'bytes')));
    await page.check(`input[name="monitor-1-what"][value="count"]`);
    assert.deepEqual(await cells(page, hm), nonzero(matrix(mon, 'all', 'count')));
    await page.check(`input[name="monitor-1-class"][value="p2p"]`);
    const p2p = matrix(mon, 'p2p', 'count');
    assert.deepEqual(await cells(page, hm), nonzero(p2p));
    assert.equal(p2p[0][1], 15, '10 sends and 5 Sendrecv from rank 0 to 1');
    assert.equal(Number(await page.getAttribute(`#${hm}-info`, 'data-total')), totals(mon).p2p.count);
    await page.check(`input[name="monitor-1-what"][value="bytes"]`);
    await page.hover(`#${hm} rect.cell[data-row="0"][data-col="1"]`);
    const bytes01 = matrix(mon, 'p2p', 'bytes')[0][1];
    assert.equal((await page.textContent(`#${hm}-info`))?.trim(), `ranks 0 → 1: ${humanBytes(bytes01)} in 15 messages`);

    // bars: one per rank, MPI and app time as profiled
    const bars = await page.$$eval('#profile-2-bars g.bar', (gs) =>
      gs.map((g) => [Number(g.getAttribute('data-first')), Number(g.getAttribute('data-mpi')), Number(g.getAttribute('data-app'))]),
    );
    assert.equal(bars.length, 4);
    bars.forEach(([rank, mpi, app], i) => {
      assert.equal(rank, i);
      assert.ok(Math.abs(mpi - prof.ranks[i].mpi) <= 1e-9 * prof.ranks[i].mpi + 1e-12, `rank ${i} MPI time`);
      assert.ok(Math.abs(app - prof.ranks[i].recorded) <= 1e-9 * app + 1e-12, `rank ${i} app time`);
    });

    // call sites and message sizes
    const sites = await rows(page, 'profile-2-sites');
    const barrier = sites.find((r) => r[1] === 'MPI_Barrier');
    assert.ok(barrier, 'MPI_Barrier listed');
    assert.match(barrier[2], /^profile_sites\.c:\d+ main$/);
    assert.equal(barrier[0], '1', 'the barrier rank 0 made the others wait in is site 1');
    assert.equal(barrier[6], '4');
    const sendrecv = sites.find((r) => r[1] === 'MPI_Sendrecv')!;
    assert.match(sendrecv[2], /^profile_sites\.c:\d+ exchange$/);
    assert.deepEqual([sendrecv[6], sendrecv[12], sendrecv[13]], ['20', '1.25 KiB', '1.25 KiB']);
    const sizes = await rows(page, 'profile-2-sizes');
    const send = sizes.filter((r) => r[1] === 'MPI_Send');
    assert.ok(send.length === 2 && send.every((r) => r[4] === '400 B' && r[6] === '400 B'), JSON.stringify(send));
    // sorting by calls (descending on the first click)
    await page.click('#profile-2-sites th:has-text("calls")');
    const sorted = (await rows(page, 'profile-2-sites')).map((r) => Number(r[6]));
    assert.deepEqual(
      sorted,
      [...sorted].sort((a, b) => b - a),
    );

    // the screenshot: the busiest cell is drawn in the darkest colour, an empty one in grey
    const shot = await page.screenshot({ path: join(SHOTS, 'job.png'), fullPage: true });
    assert.ok(statSync(join(SHOTS, 'job.png')).size > 20_000);
    const hot = await page.$$eval(`#${hm} rect.cell`, (rs) => {
      const r = rs.reduce((a, b) => (Number(b.getAttribute('data-value')) > Number(a.getAttribute('data-value')) ? b : a));
      const b = r.getBoundingClientRect();
      return { x: b.x + b.width / 2 + window.scrollX, y: b.y + b.height / 2 + window.scrollY };
    });
    assert.deepEqual(await pixel(page, shot, hot.x, hot.y), [128, 0, 38]);
    const diag = await page.$eval(`#${hm} svg`, (s) => {
      const b = s.querySelector('rect')!.getBoundingClientRect(); // the grey background: (0,0) has no traffic
      return { x: b.x + 5 + window.scrollX, y: b.y + 5 + window.scrollY };
    });
    assert.deepEqual(await pixel(page, shot, diag.x, diag.y), [0xf4, 0xf5, 0xf7]);
    await page.close();
  });

  it('1024 ranks: the matrix binned to 64×64 cells, 128 bars, the right totals, quick to open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-synth-1024-'));
    writeSyntheticJob(dir, 1024);
    const file = await html(dir, 'synth1024');
    const p = readProfile(dir);
    const mon = monitorRuns(p)[0];
    const { page, errors } = await open(file);
    assert.deepEqual(errors, []);
    // quick to open because its size does not grow with the ranks squared: bounded element
    // counts, asserted here (how long the page takes is a machine's load, not the report's doing)
    const elements = await page.evaluate(() => document.getElementsByTagName('*').length);
    assert.ok(elements < 20_000, `${elements} elements`);
    const svg = page.locator('#monitor-1-heatmap svg');
    assert.equal(await svg.getAttribute('data-side'), '64');
    assert.equal(await svg.getAttribute('data-block'), '16');
    const all = await cells(page, 'monitor-1-heatmap');
    assert.ok(all.size <= 64 * 64);
    const t = totals(mon);
    const sum = [...all.values()].reduce((a, b) => a + b, 0);
    assert.equal(sum, t.p2p.bytes + t.coll.bytes);
    assert.equal(Number(await page.getAttribute('#monitor-1-heatmap-info', 'data-total')), sum);
    // one block of the binned matrix, against the data: ranks 0-15 → 16-31
    const m = matrix(mon, 'all', 'bytes');
    let block = 0;
    for (let i = 0; i < 16; i++) for (let j = 16; j < 32; j++) block += m[i][j];
    assert.equal(all.get('0,1'), block);
    assert.equal(await page.$$eval('#profile-2-bars g.bar', (g) => g.length), 128);
    assert.equal(await page.getAttribute('#profile-2-bars', 'data-block'), '8');
    const sites = await rows(page, 'profile-2-sites');
    const rank = sites.find((r) => r[1] === 'MPI_Comm_rank')!;
    let calls = 0;
    for (let r = 0; r < 1024; r++)
      calls += synthSiteCalls(
        r,
        SYNTH_SITES.findIndex((s) => s.fn === 5),
      );
    assert.equal(rank[6], String(calls));
    assert.equal(rank[11], '1024');
    await page.screenshot({ path: join(SHOTS, 'synth1024.png'), fullPage: true });
    await page.close();
  });

  it("an unknown tool's results, overlap statistics and an incomplete run", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-synth-tools-'));
    const findings = (r: number) =>
      JSON.stringify([
        { kind: 'write before read', rank: r, address: '0x7f00001000', bytes: 8, call: 'MPI_Recv', location: 'heat.c:42' },
        { kind: 'buffer overrun', rank: r, address: '0x7f00002000', bytes: 1, call: 'MPI_Send', location: 'heat.c:57' },
      ]);
    writeGathered(dir, 2, (r) => ({
      rank: r,
      size: 2,
      state: r === 1 ? 'running' : 'finalized',
      tools: { 1: 'leakcheck', 2: 'overlap' },
      counters: [
        { tool: 1, name: 'summary', length: 2, labels: 'write before read\nbytes never read', entries: [0, 3 + r, 1, 112] },
        { tool: 2, name: 'stats', length: 3, labels: 'sends converted\nreceives converted\nwait time ns', entries: [0, 10, 1, 20 + r, 2, 1500000] },
      ],
      texts: [{ tool: 1, name: 'findings', text: findings(r) }],
    }));
    const file = await html(dir, 'tools');
    const { page, errors } = await open(file);
    assert.deepEqual(errors, []);
    assert.match((await page.textContent('#status')) ?? '', /INCOMPLETE/);
    assert.match((await page.textContent('#tool-1 h2')) ?? '', /Results of leakcheck/);
    const counters = await rows(page, 'tool-1-counters');
    assert.deepEqual(
      counters.find((r) => r[0] === 'summary: write before read'),
      ['summary: write before read', '7', '2'],
    );
    assert.deepEqual(
      counters.find((r) => r[0] === 'summary: bytes never read'),
      ['summary: bytes never read', '224', '2'],
    );
    const found = await rows(page, 'tool-1-findings-records');
    assert.equal(found.length, 4);
    assert.ok(found.some((r) => r.includes('write before read') && r.includes('heat.c:42') && r.includes('MPI_Recv')));
    const stats = await rows(page, 'overlap-2-stats');
    assert.deepEqual(
      stats.find((r) => r[0] === 'receives converted'),
      ['receives converted', '41', '20', '21'],
    );
    assert.deepEqual(
      stats.find((r) => r[0] === 'wait time'),
      ['wait time', '3.000 ms', '1.500 ms', '1.500 ms'],
    );
    await page.screenshot({ path: join(SHOTS, 'tools.png'), fullPage: true });
    await page.close();
  });

  it('memcheck findings of a real job: errors apart from hints, kind, call site and access line', async () => {
    const out = outDir('html-memcheck');
    const run = await mpii([
      'run',
      '--quiet',
      '--tools',
      'memcheck',
      '--out',
      out,
      ...launcherArgs('openmpi', 2),
      program('openmpi', 'memcheck_e5_pending_write'),
      'isend',
    ]);
    assert.equal(run.code, 0, run.stderr);
    const file = await html(out, 'memcheck');
    const { page, errors } = await open(file);
    assert.deepEqual(errors, []);
    assert.match((await page.textContent('#memcheck-1 h2')) ?? '', /Memory checking.*1 error at 1 place; no hints/);
    assert.match((await page.textContent('#memcheck-1')) ?? '', /No hints\./);
    const found = await rows(page, 'memcheck-1-errors');
    assert.equal(found.length, 1);
    const [kind, times, ranks, , call, access] = found[0];
    assert.deepEqual([kind, times, ranks], ['write to a pending send buffer', '1', '0']);
    assert.match(call, /^MPI_Isend at main at memcheck_e5_pending_write\.c:\d+$/);
    assert.match(access, /^write at main at memcheck_e5_pending_write\.c:\d+, buffer\+28 of 2\.00 KiB$/);
    const stats = await rows(page, 'memcheck-1-stats');
    assert.ok(
      stats.some((r) => r[0] === 'findings' && r[1] === '1'),
      JSON.stringify(stats),
    );
    await page.close();
  });

  it('a job without monitor or profile still gives a page (trace-count table)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-synth-tc-'));
    writeGathered(dir, 2, (r) => ({
      rank: r,
      size: 2,
      tools: { 1: 'trace-count' },
      counters: [{ tool: 1, name: 'calls', length: 2, labels: 'MPI_Send\nMPI_Recv', entries: [0, 5 + r, 1, 7] }],
    }));
    const file = await html(dir, 'tc');
    const { page, errors } = await open(file);
    assert.deepEqual(errors, []);
    assert.deepEqual(await rows(page, 'trace-count-1-calls'), [
      ['MPI_Recv', '14', '7', '7'],
      ['MPI_Send', '11', '5', '6'],
    ]);
    await page.close();
  });
});

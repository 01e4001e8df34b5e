// The HTML report's pictures of a run (issue 25) in headless Chromium: the message-size histogram
// holds the monitor's messages bin by bin, the per-rank MPI vs compute bars the profile's times,
// the run's header is there, and a 1024-rank job's page needs no sideways scrolling.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { readProfile } from '../src/profile-file/read.js';
import { synthMessageBytes, synthMessages, writeSyntheticJob } from '../src/profile-file/synthetic.js';
import { htmlReport } from '../src/report/html.js';
import { monitorRuns } from '../preload/tools/monitor/report/data.js';
import { sizeHistogram } from '../preload/tools/monitor/report/size-histogram.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
let browser: Browser;

function page(n: number, peers?: number): { file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mpii-picture-'));
  writeSyntheticJob(dir, n, peers ? { peers } : {});
  const file = join(dir, 'report.html');
  writeFileSync(file, htmlReport(readProfile(dir), { filter: { ranks: [0, 1] } }));
  return { file, dir };
}

describe('HTML pictures in headless Chromium', () => {
  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} missing: apt-get install -y chromium`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });
  after(async () => {
    await browser?.close();
  });

  it('message-size histogram: every message of the job in its power-of-two bin', async () => {
    const n = 10;
    const { file, dir } = page(n);
    // the synthetic job sends 1, 2, 3 or 4 KiB messages: bins 1024-2047, 2048-4095, 4096-8191
    const expect = new Map<number, number>();
    for (let r = 0; r < n; r++) {
      for (let p = 0; p < n; p++) {
        if (p === r) continue;
        const b = synthMessageBytes(r, p);
        const lo = 2 ** Math.floor(Math.log2(b));
        expect.set(lo, (expect.get(lo) ?? 0) + synthMessages(r, p));
      }
    }
    assert.deepEqual(
      sizeHistogram(monitorRuns(readProfile(dir))[0]).map((x) => [x.lo, x.count]),
      [...expect].sort((a, b) => a[0] - b[0]),
    );
    const pg = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    pg.on('pageerror', (e) => errors.push(e.message));
    await pg.goto(`file://${file}`);
    await pg.waitForSelector('body[data-ready="1"]');
    assert.deepEqual(errors, []);
    const bars = await pg.$$eval('#monitor-1-sizes rect.size-bar', (rs) =>
      rs.map((r) => [Number(r.getAttribute('data-lo')), Number(r.getAttribute('data-count'))]),
    );
    assert.deepEqual(
      bars,
      [...expect].sort((a, b) => a[0] - b[0]),
    );
    const title = await pg.$eval('#monitor-1-sizes rect.size-bar title', (t) => t.textContent);
    assert.match(title ?? '', /^1\.00 KiB to 2\.00 KiB: \d+ messages$/);
    // the bars of MPI vs compute time: one per rank, MPI time as the profile has it
    const mpi = await pg.$$eval('#profile-2-bars g.bar', (gs) => gs.map((g) => Number(g.getAttribute('data-mpi'))));
    assert.equal(mpi.length, n);
    // the header and the per-rank breakdown (--ranks 0,1) are on the page
    assert.match((await pg.textContent('#run')) ?? '', /Hosts? \(1\)node0: 10 \(0-9\)/);
    assert.equal(await pg.locator('details.site-ranks').count(), 7);
    await pg.close();
  });

  it('1024 ranks: binned bars and matrix, no sideways scrolling', async () => {
    const { file } = page(1024, 4);
    const pg = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await pg.goto(`file://${file}`);
    await pg.waitForSelector('body[data-ready="1"]', { timeout: 60_000 });
    const { scroll, client } = await pg.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    assert.ok(scroll <= client, `page is ${scroll} px wide in a ${client} px window`);
    assert.equal(await pg.locator('#profile-2-bars g.bar').count(), 128);
    assert.equal(await pg.getAttribute('#monitor-1-heatmap svg', 'data-side'), '64');
    await pg.close();
  });
});

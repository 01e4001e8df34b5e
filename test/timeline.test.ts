// The timeline (issue 25): the shim records when MPI_Pcontrol switched the profile's recording and
// when the monitor's MPI_T phases started and ended; the report lists the events (text, --json)
// and draws them in the HTML page. Counts, order and structure only, never durations.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { FLAVORS, launcherArgs, mpii, outDir, program, openReportPage } from './helpers.js';
import { readProfile, type TimelineEvent } from '../src/profile-file/read.js';
import { SYNTH_DROPPED, synthEvents, writeSyntheticJob } from '../src/profile-file/synthetic.js';
import { htmlReport } from '../src/report/html.js';
import { phases, recordingOff, TIMELINE_ROWS } from '../src/report/timeline.js';

const LEVELS = [0, 1, 2, 0, 0, 1]; // test/programs/profile_pcontrol.c
const EXTRA = 300;
const KEPT = 256;

function inOrder(events: TimelineEvent[], end: number | null, where: string): void {
  for (let i = 1; i < events.length; i++) assert.ok(events[i].t >= events[i - 1].t, `${where}: event ${i} before event ${i - 1}`);
  for (const e of events) assert.ok(e.t >= 0 && (end === null || e.t <= end), `${where}: event at ${e.t} s outside MPI_Init..MPI_Finalize`);
}

describe('timeline: MPI_Pcontrol levels in time, on both MPIs', () => {
  for (const f of FLAVORS) {
    it(`${f}: every rank's Pcontrol levels in order, the first 256 kept and the rest counted; text and --json list them`, async () => {
      const out = outDir(`timeline-pcontrol-${f}`);
      const np = 3;
      const r = await mpii(['run', '--quiet', '--tools', 'profile', '--out', out, ...launcherArgs(f, np), program(f, 'profile_pcontrol')]);
      assert.equal(r.code, 0, r.stderr);
      const p = readProfile(out);
      assert.equal(p.ranks.length, np);
      for (const rank of p.ranks) {
        const t = rank.timeline;
        assert.ok(t, `rank ${rank.rank} has a timeline`);
        const want = rank.rank === 0 ? [...LEVELS, ...Array(EXTRA).fill(1)] : LEVELS;
        assert.equal(t.seen, want.length, `rank ${rank.rank}: events seen`);
        assert.equal(t.capacity, KEPT);
        assert.equal(t.dropped, Math.max(0, want.length - KEPT), `rank ${rank.rank}: events dropped`);
        assert.deepEqual(
          t.events.map((e) => [e.kind, e.value, e.tool]),
          want.slice(0, KEPT).map((v) => ['pcontrol', v, 1]),
          `rank ${rank.rank}: levels`,
        );
        assert.ok(t.init !== null && t.end !== null);
        inOrder(t.events, t.end, `rank ${rank.rank}`);
        // Pcontrol(0) … (1) and (0), (0) … (1): recording off twice
        assert.equal(recordingOff(t.events, t.end).length, 2);
      }
      const json = JSON.parse((await mpii(['report', out, '--json'])).stdout);
      assert.deepEqual(
        json.timeline.map((x: { rank: number; events: unknown[]; dropped: number }) => [x.rank, x.events.length, x.dropped]),
        [
          [0, KEPT, LEVELS.length + EXTRA - KEPT],
          [1, LEVELS.length, 0],
          [2, LEVELS.length, 0],
        ],
      );
      assert.deepEqual(
        json.timeline[1].events.map((e: TimelineEvent) => e.value),
        LEVELS,
      );
      const text = (await mpii(['report', out])).stdout;
      assert.match(text, /^timeline \(seconds since MPI_Init/m);
      const joined = text.replace(/\n {4}/g, ' '); // the wrapped lines of an entry as one
      const levels = (ls: number[]) => ls.map((l) => `[\\d.]+\u00a0Pcontrol\\(${l}\\)`).join(', ');
      assert.match(joined, new RegExp(`^ {2}rank 0 \\(306 events, 50 not kept\\): ${levels(LEVELS)}, … 250 more$`, 'm'));
      assert.match(joined, new RegExp(`^ {2}ranks 1-2 \\(6 events; times of rank 1\\): ${levels(LEVELS)}$`, 'm'));
      assert.match(text, /^ {2}50 events not kept on 1 rank \(a rank keeps its first 256\)$/m);
      for (const line of text.split('\n')) assert.ok(line.length <= 80, `longer than 80 columns: ${line}`);
    });
  }
});

describe("timeline: the monitor's MPI_T phases", () => {
  for (const f of FLAVORS) {
    it(`${f}: each flush phase's start and end, named by the file it wrote; the unnamed one wrote none`, async () => {
      const cwd = mkdtempSync(join(tmpdir(), `mpii-timeline-phases-${f}-`));
      mkdirSync(join(cwd, 'prof'));
      const out = join(cwd, 'out');
      const np = 2;
      const r = await mpii(['run', '--quiet', '--tools', 'monitor,profile', '--out', out, ...launcherArgs(f, np), program(f, 'mpit_phases')], {}, cwd);
      assert.equal(r.code, 0, r.stderr + r.stdout);
      const p = readProfile(out);
      for (const rank of p.ranks) {
        const t = rank.timeline!;
        assert.deepEqual(
          t.events.map((e) => [e.tool, e.kind, e.value, e.name]),
          [
            [1, 'phase-start', 0, ''],
            [1, 'phase-end', 1, 'prof/phase_1'],
            [1, 'phase-start', 0, ''],
            [1, 'phase-end', 1, 'prof/phase_2'],
            [1, 'phase-start', 0, ''],
            [1, 'phase-end', 0, ''],
          ],
          `rank ${rank.rank}`,
        );
        inOrder(t.events, t.end, `rank ${rank.rank}`);
        assert.deepEqual(
          phases(t.events, t.end!).map((x) => [x.name, x.written, x.open]),
          [
            ['prof/phase_1', true, false],
            ['prof/phase_2', true, false],
            ['', false, false],
          ],
        );
      }
      const html = join(cwd, 'r.html');
      const h = await mpii(['report', out, '--html', html]);
      assert.equal(h.code, 0, h.stderr);
      assert.ok(existsSync(html));
    });
  }
});

describe('timeline: the HTML picture in headless Chromium', () => {
  let browser: Browser;
  before(async () => {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  after(async () => {
    await browser?.close();
  });

  function page(n: number, timeline = true): string {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-timeline-'));
    writeSyntheticJob(dir, n, { timeline, peers: 4 });
    const file = join(dir, 'report.html');
    writeFileSync(file, htmlReport(readProfile(dir)));
    return file;
  }

  it('8 ranks: a row per rank, each event a tick in order, the recording-off spans and phases, the events table', async () => {
    const n = 8;
    const { page: pg, errors, requests } = await openReportPage(browser, page(n));
    assert.deepEqual(errors, []);
    assert.deepEqual(requests, []);
    assert.equal(await pg.getAttribute('#timeline-svg', 'data-block'), '1');
    const rows = await pg.$$eval('#timeline-svg g.tl-row', (gs) =>
      gs.map((g) => [Number(g.getAttribute('data-first')), Number(g.getAttribute('data-events'))]),
    );
    assert.deepEqual(
      rows,
      Array.from({ length: n }, (_, r) => [r, synthEvents(r).length]),
    );
    for (let r = 0; r < n; r++) {
      const ticks = await pg.$$eval(`#timeline-svg g.tl-row[data-first="${r}"] line.ev`, (ls) =>
        ls.map((l) => [l.getAttribute('data-kind'), Number(l.getAttribute('data-value')), Number(l.getAttribute('x1'))]),
      );
      const kinds = { 1: 'pcontrol', 2: 'phase-start', 3: 'phase-end' } as Record<number, string>;
      assert.deepEqual(
        ticks.map((t) => [t[0], t[1]]),
        synthEvents(r).map((e) => [kinds[e.kind], e.value]),
        `rank ${r}`,
      );
      for (let i = 1; i < ticks.length; i++) assert.ok((ticks[i][2] as number) > (ticks[i - 1][2] as number), `rank ${r}: ticks left to right`);
    }
    assert.equal(await pg.locator('#timeline-svg rect.off').count(), n);
    assert.equal(await pg.locator('#timeline-svg rect.phase').count(), n);
    assert.equal(await pg.locator('#timeline-events tbody tr').count(), n * synthEvents(0).length);
    assert.match((await pg.textContent('#timeline p.meta')) ?? '', new RegExp(`${SYNTH_DROPPED} not kept`));
    assert.match((await pg.textContent('nav')) ?? '', /Timeline/);
    await pg.close();
  });

  it('1024 ranks: blocks of ranks, every event counted, no sideways scrolling at 1280 px', async () => {
    const n = 1024;
    const pg = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await pg.goto(`file://${page(n)}`);
    await pg.waitForSelector('body[data-ready="1"]', { timeout: 60_000 });
    const { scroll, client } = await pg.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    assert.ok(scroll <= client, `page is ${scroll} px wide in a ${client} px window`);
    const box = await pg.locator('#timeline-svg').boundingBox();
    assert.ok(box && box.x + box.width <= client, 'the timeline fits the window');
    const block = Math.ceil(n / TIMELINE_ROWS);
    assert.equal(await pg.getAttribute('#timeline-svg', 'data-block'), String(block));
    assert.equal(await pg.locator('#timeline-svg g.tl-row').count(), Math.ceil(n / block));
    const counted = await pg.$$eval('#timeline-svg line.ev', (ls) => ls.reduce((a, l) => a + Number(l.getAttribute('data-count')), 0));
    assert.equal(counted, n * synthEvents(0).length);
    const firsts = await pg.$$eval('#timeline-svg g.tl-row', (gs) => gs.map((g) => Number(g.getAttribute('data-first'))));
    assert.deepEqual(
      firsts,
      Array.from({ length: Math.ceil(n / block) }, (_, i) => i * block),
    );
    await pg.close();
  });

  it('a profile without a timeline (older mpii): no section, an empty --json list', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpii-timeline-none-'));
    writeSyntheticJob(dir, 4);
    const p = readProfile(dir);
    assert.ok(p.ranks.every((r) => r.timeline === undefined));
    assert.doesNotMatch(htmlReport(p), /id="timeline"/);
    const json = JSON.parse((await mpii(['report', dir, '--json'])).stdout);
    assert.deepEqual(json.timeline, []);
    assert.doesNotMatch((await mpii(['report', dir])).stdout, /^timeline/m);
  });
});

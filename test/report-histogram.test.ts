// The HTML report's message-size histogram in headless Chromium: its bin labels never overlap,
// at a 1280 px and an 800 px wide window — on the demo's job (scripts/demo.sh: monitor_p2p on 4
// ranks, 0 B to 1 MiB: the labels ran into each other), on 26 bins (0 B to 16 MiB) and on all 66
// of the monitor's bins. Each label stays inside the picture, and the first bin is labelled.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { launcherArgs, mpii, outDir, program } from './helpers.js';
import { writeGathered, synthRank, type SynthRank } from '../src/profile-file/synthetic.js';
import { BLOCKS } from '../src/profile-file/format.gen.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const WIDTHS = [1280, 800];

interface Box {
  text: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Rank r of a synthetic monitor job whose rank 0 sent 1 + b messages of each bin b < bins to rank 1. */
function everyBin(n: number, r: number, bins: number): SynthRank {
  const rank = synthRank(n, r, { tools: ['monitor'] });
  if (r !== 0) return rank;
  const P = BLOCKS.monitor.peers;
  const c = rank.counters!.find((x) => x.name === 'peers')!;
  const pairs = new Map<number, number>();
  for (let k = 0; k < c.entries.length; k += 2) pairs.set(Number(c.entries[k]), Number(c.entries[k + 1]));
  for (let b = 0; b < 66; b++) pairs.delete(P.row.size + P.row.index.histogram + b);
  for (let b = 0; b < bins; b++) pairs.set(P.row.size + P.row.index.histogram + b, 1 + b);
  c.entries = [...pairs].sort((a, b) => a[0] - b[0]).flat();
  return rank;
}

describe('HTML report: the message-size histogram', () => {
  let browser: Browser;
  const dir = mkdtempSync(join(tmpdir(), 'mpii-hist-'));
  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} missing: apt-get install -y chromium (scripts/setup.sh does)`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });
  after(async () => {
    await browser?.close();
  });

  /** The report of the profile in `out` as a page, at each width: the label boxes and the picture's. */
  async function labels(out: string, tag: string): Promise<{ width: number; bins: number; svg: Box; boxes: Box[] }[]> {
    const file = join(dir, `${tag}.html`);
    const r = await mpii(['report', out, '--html', file]);
    assert.equal(r.code, 0, r.stderr);
    const seen = [];
    for (const width of WIDTHS) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(`file://${file}`);
      await page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
      const svg = await page.$eval('#monitor-1-sizes svg', (e) => {
        const b = e.getBoundingClientRect();
        return { text: e.getAttribute('data-bins') ?? '', left: b.left, right: b.right, top: b.top, bottom: b.bottom };
      });
      const boxes = await page.$$eval('#monitor-1-sizes svg text.size-label', (ts) =>
        ts.map((e) => {
          const b = e.getBoundingClientRect();
          return { text: e.textContent ?? '', left: b.left, right: b.right, top: b.top, bottom: b.bottom };
        }),
      );
      seen.push({ width, bins: Number(svg.text), svg, boxes });
      await page.close();
    }
    return seen;
  }

  function noOverlap(views: Awaited<ReturnType<typeof labels>>, firstLabel: string) {
    for (const v of views) {
      const { boxes } = v;
      assert.ok(boxes.length >= 2 && boxes.length <= v.bins, `${v.width} px: ${boxes.length} labels for ${v.bins} bins`);
      assert.equal(boxes[0].text, firstLabel);
      for (let i = 0; i < boxes.length; i++) {
        const a = boxes[i];
        assert.ok(a.left >= v.svg.left && a.right <= v.svg.right, `${v.width} px: label ${a.text} leaves the picture`);
        for (let j = i + 1; j < boxes.length; j++) {
          const b = boxes[j];
          const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
          assert.ok(apart, `${v.width} px: labels ${a.text} [${a.left}–${a.right}] and ${b.text} [${b.left}–${b.right}] overlap`);
        }
      }
    }
  }

  it("the demo's job (0 B to 1 MiB, 22 bins): no two labels overlap at 1280 and 800 px", async () => {
    const out = outDir('hist-demo');
    const run = await mpii(['run', '--quiet', '--tools', 'monitor', '--out', out, ...launcherArgs('openmpi', 4), program('openmpi', 'monitor_p2p')]);
    assert.equal(run.code, 0, run.stderr);
    const views = await labels(out, 'demo');
    assert.equal(views[0].bins, 22);
    noOverlap(views, '0 B');
    assert.ok(
      views[0].boxes.some((b) => b.text === '512 KiB'),
      views[0].boxes.map((b) => b.text).join(' '),
    );
  });

  for (const bins of [26, 66]) {
    it(`${bins} bins (0 B to ${bins === 26 ? '16 MiB' : '8 EiB'}): no two labels overlap at 1280 and 800 px`, async () => {
      const out = join(dir, `bins-${bins}`);
      writeGathered(out, 4, (r) => everyBin(4, r, bins));
      const views = await labels(out, `bins-${bins}`);
      assert.equal(views[0].bins, bins);
      noOverlap(views, '0 B');
    });
  }
});

// The monitor tool's section of `mpii report --html`: totals, the communication matrix as a
// heatmap and the message sizes (drawn by the page's script from PageData), the busiest pairs and
// the collectives per communicator.
import { cell, esc, HEATMAP_CELLS, table, type PageData, humanBytes } from '../../../../src/tool-api/index.js';
import { binnedMatrices, communicators, spreadNote, totals, CLASSES, type MonitorRun } from './data.js';
import { sizeHistogram } from './size-histogram.js';
import { busiestPairs } from './text.js';

export function monitorSection(run: MonitorRun, top: number, data: PageData): string {
  const id = `monitor-${run.tool}`;
  const t = totals(run);
  const b = binnedMatrices(run, HEATMAP_CELLS);
  data.heatmaps.push({
    id: `${id}-heatmap`,
    n: b.n,
    block: b.block,
    side: b.side,
    classes: Object.fromEntries(Object.entries(b.cells).map(([k, v]) => [k, { bytes: Array.from(v.bytes), count: Array.from(v.count) }])),
  });
  const classes = [['all', 'all (data flow)'], ...CLASSES.map((c) => [c.name, c.label])];
  const out = [`<section id="${id}"><h2>Communication <small>monitor, tool ${run.tool}: ${run.ranks.length} of ${run.size} ranks</small></h2>`];
  out.push(
    table(
      `${id}-totals`,
      [{ head: 'class' }, { head: 'messages', right: true }, { head: 'bytes', right: true }],
      CLASSES.map((c) => [cell(c.label), cell(t[c.name].count), cell(humanBytes(t[c.name].bytes), t[c.name].bytes)]),
    ),
  );
  out.push(`<h3>Communication matrix${b.block > 1 ? ` <small>(${b.block} ranks per cell)</small>` : ''}</h3>
<div class="controls" id="${id}-heatmap-controls">
<span>class:</span> ${classes.map(([k, label], i) => `<label><input type="radio" name="${id}-class" value="${k}"${i === 0 ? ' checked' : ''}> ${esc(label)}</label>`).join(' ')}
<span class="sep">show:</span> <label><input type="radio" name="${id}-what" value="bytes" checked> bytes</label> <label><input type="radio" name="${id}-what" value="count"> messages</label>
</div>
<figure class="chart"><div id="${id}-heatmap" class="heatmap"></div>
<figcaption id="${id}-heatmap-info" class="info">Row: the sender (for one-sided reads in “all”, the rank read from); column: the receiver. Point at a cell for its numbers.</figcaption></figure>`);
  const sizes = sizeHistogram(run);
  if (sizes.length) {
    data.hists.push({ id: `${id}-sizes`, bins: sizes.map((x) => [x.lo, x.hi, x.count]) });
    out.push(`<h3>Message sizes <small>(point-to-point messages sent, all ranks, in powers of two)</small></h3>
<figure class="chart"><div id="${id}-sizes" class="hist"></div>
<figcaption>${sizes.reduce((a, x) => a + x.count, 0).toLocaleString('en-US')} messages; a bar holds the sizes from its label up to the next one</figcaption></figure>`);
  }
  const { pairs, total } = busiestPairs(run, top);
  if (pairs.length) {
    out.push(`<h3>Busiest point-to-point pairs <small>(${total} pair${total === 1 ? '' : 's'} with messages)</small></h3>`);
    out.push(
      table(
        `${id}-pairs`,
        [
          { head: 'sender', right: true },
          { head: 'receiver', right: true },
          { head: 'bytes', right: true },
          { head: 'messages', right: true },
        ],
        pairs.map((p) => [cell(p.from), cell(p.to), cell(humanBytes(p.bytes), p.bytes), cell(p.count)]),
      ),
    );
  }
  const comms = communicators(run).filter((c) => c.o2a.count + c.a2o.count + c.a2a.count > 0);
  if (comms.length) {
    out.push(`<h3>Collectives per communicator</h3>`);
    out.push(
      table(
        `${id}-comms`,
        [
          { head: 'communicator' },
          { head: 'processes', right: true },
          { head: 'one-to-all ops', right: true },
          { head: 'bytes', right: true },
          { head: 'all-to-one ops', right: true },
          { head: 'bytes', right: true },
          { head: 'all-to-all ops', right: true },
          { head: 'bytes', right: true },
        ],
        comms
          .slice(0, top)
          .map((c) => [
            cell(c.name),
            cell(c.procs.split(',').length),
            cell(c.o2a.count),
            cell(humanBytes(c.o2a.bytes), c.o2a.bytes),
            cell(c.a2o.count),
            cell(humanBytes(c.a2o.bytes), c.a2o.bytes),
            cell(c.a2a.count),
            cell(humanBytes(c.a2a.bytes), c.a2a.bytes),
          ]),
      ),
    );
  }
  const note = spreadNote(run);
  if (note) out.push(`<p>${esc(note)}</p>`);
  out.push('</section>');
  return out.join('\n');
}

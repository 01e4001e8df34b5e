// The run's timeline (issue 25): when MPI_Pcontrol switched the profile's recording and when the
// monitor's MPI_T phases started and ended, per rank, against the time since MPI_Init. The shim
// keeps the first events of each rank (preload/core/profile_file.c, read by src/profile-file/read.ts);
// here they become a few lines of the text report, --json's `timeline`, and an inline SVG for
// the HTML page (one row per rank, or per block of ranks beyond TIMELINE_ROWS, so 1024 ranks fit
// the width of a window).
import type { Profile, TimelineEvent } from '../profile-file/read.js';
import { builtinManifests } from '../tools/manifest.js';

/** Rows of the picture at most: beyond, ranks are drawn in blocks. */
export const TIMELINE_ROWS = 48;
/** Event rows of the HTML page's table at most (--json has them all). */
const TABLE_ROWS = 2000;

export interface RankLine {
  rank: number;
  /** MPI_Finalize (or the crash), seconds since MPI_Init; the last event when not known */
  end: number;
  finished: boolean;
  /** a tool whose recording MPI_Pcontrol switches (the profile tool) was on the rank: recording on/off is known */
  profiled: boolean;
  events: TimelineEvent[];
  seen: number;
  dropped: number;
  capacity: number;
}

/** Ranks that recorded a timeline (all of them in a run of this mpii; none in older profiles). */
export function timelineRanks(p: Profile): RankLine[] {
  const out: RankLine[] = [];
  // the tools whose recording MPI_Pcontrol switches (their manifests' `report.pcontrol`)
  const pcontrol = new Set(
    builtinManifests()
      .filter((m) => m.report?.pcontrol)
      .map((m) => m.name),
  );
  for (const r of p.ranks) {
    const t = r.timeline;
    if (!t) continue;
    const last = t.events.length ? t.events[t.events.length - 1].t : 0;
    out.push({
      rank: r.rank,
      end: Math.max(t.end ?? last, last, 0),
      finished: t.end !== null,
      profiled: [...r.tools.values()].some((n) => pcontrol.has(n)),
      events: t.events,
      seen: t.seen,
      dropped: t.dropped,
      capacity: t.capacity,
    });
  }
  return out.sort((a, b) => a.rank - b.rank);
}

export const hasTimeline = (lines: RankLine[]) => lines.some((l) => l.seen > 0);

/** Intervals with the profile's recording off: from an MPI_Pcontrol(0) to the next other level. */
export function recordingOff(events: TimelineEvent[], end: number): [number, number][] {
  const out: [number, number][] = [];
  let since: number | null = null;
  for (const e of events) {
    if (e.kind !== 'pcontrol') continue;
    if (e.value === 0 && since === null) since = e.t;
    else if (e.value !== 0 && since !== null) {
      out.push([since, e.t]);
      since = null;
    }
  }
  if (since !== null) out.push([since, Math.max(since, end)]);
  return out;
}

export interface Phase {
  tool: number;
  start: number;
  end: number;
  name: string;
  written: boolean;
  open: boolean;
}

/** MPI_T phases: each start to the next end of the same tool (a phase still open at the end of
 *  the rank runs to it). */
export function phases(events: TimelineEvent[], end: number): Phase[] {
  const out: Phase[] = [];
  const open = new Map<number, number>();
  for (const e of events) {
    if (e.kind === 'phase-start') open.set(e.tool, e.t);
    else if (e.kind === 'phase-end') {
      out.push({ tool: e.tool, start: open.get(e.tool) ?? 0, end: e.t, name: e.name, written: e.value === 1, open: false });
      open.delete(e.tool);
    }
  }
  for (const [tool, start] of open) out.push({ tool, start, end: Math.max(start, end), name: '', written: false, open: true });
  return out.sort((a, b) => a.start - b.start);
}

export function eventLabel(e: TimelineEvent): string {
  switch (e.kind) {
    case 'pcontrol':
      return `Pcontrol(${e.value})`;
    case 'phase-start':
      return 'phase starts';
    case 'phase-end':
      return e.value === 1 ? `phase ends: ${e.name}.<rank>.prof` : `phase ends${e.name ? ` (${e.name}: not written)` : ' (no file)'}`;
    default:
      return `${e.kind}(${e.value})${e.name ? ` ${e.name}` : ''}`;
  }
}

const secs = (t: number) => (Math.abs(t) < 10 ? t.toFixed(4) : t.toFixed(2));

function ranges(ranks: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < ranks.length;) {
    let j = i;
    while (j + 1 < ranks.length && ranks[j + 1] === ranks[j] + 1) j++;
    out.push(j > i ? `${ranks[i]}-${ranks[j]}` : `${ranks[i]}`);
    i = j + 1;
  }
  return out.join(',');
}

/** The text report's lines: ranks with the same events (times aside) together, the first rank's
 *  times, at most `groups` groups of at most `shown` events. */
export function formatTimeline(p: Profile, groups = 4, shown = 6): string[] {
  const lines = timelineRanks(p);
  if (!hasTimeline(lines)) return [];
  const bySig = new Map<string, RankLine[]>();
  for (const l of lines) {
    if (!l.seen) continue;
    const sig = `${l.dropped}\n${l.events.map((e) => `${e.tool} ${e.kind} ${e.value} ${e.name}`).join('\n')}`;
    bySig.set(sig, [...(bySig.get(sig) ?? []), l]);
  }
  const out = ['timeline (seconds since MPI_Init; Pcontrol: profile, MPI_T phases: monitor):'];
  const all = [...bySig.values()];
  for (const g of all.slice(0, groups)) {
    const l = g[0];
    const list = l.events.slice(0, shown).map((e) => `${secs(e.t)}\u00a0${eventLabel(e)}`); // kept on one line
    if (l.events.length > shown) list.push(`… ${l.events.length - shown} more`);
    const who = g.length === 1 ? `rank ${l.rank}` : `ranks ${ranges(g.map((x) => x.rank))}`;
    const n = `${l.seen} event${l.seen === 1 ? '' : 's'}${l.dropped ? `, ${l.dropped} not kept` : ''}`;
    out.push(`  ${who} (${n}${g.length > 1 ? `; times of rank ${l.rank}` : ''}): ${list.join(', ')}`);
  }
  if (all.length > groups) out.push(`  … ${all.length - groups} more groups of ranks (mpii report --json or --html)`);
  const dropped = lines.filter((l) => l.dropped);
  if (dropped.length) {
    out.push(
      `  ${dropped.reduce((a, l) => a + l.dropped, 0)} events not kept on ${dropped.length} rank${dropped.length === 1 ? '' : 's'} (a rank keeps its first ${Math.max(...dropped.map((l) => l.capacity))})`,
    );
  }
  return out;
}

export function timelineJson(p: Profile): unknown[] {
  return p.ranks
    .filter((r) => r.timeline)
    .map((r) => ({
      rank: r.rank,
      init: r.timeline!.init,
      end: r.timeline!.end,
      seen: r.timeline!.seen,
      dropped: r.timeline!.dropped,
      events: r.timeline!.events,
    }));
}

// ---------------------------------------------------------------- the picture

const x3 = (v: number) => String(Math.round(v * 10) / 10);
const escHtml = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function niceStep(span: number, parts: number): number {
  const raw = span / parts;
  const p10 = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((k) => k * p10).find((s) => s >= raw) ?? 10 * p10;
}

const axisLabel = (t: number, span: number) =>
  span >= 1 ? `${+t.toFixed(3)} s` : span >= 1e-3 ? `${+(t * 1e3).toFixed(3)} ms` : `${+(t * 1e6).toFixed(3)} µs`;

const COLOR: Record<string, string> = { 'pcontrol-off': '#c92a2a', pcontrol: '#2b8a3e', 'phase-start': '#862e9c', 'phase-end': '#862e9c' };

/** The HTML page's section, or '' when no rank recorded an event. Drawn here as inline SVG that
 *  scales to the page's width (no script needed). */
export function timelineSection(p: Profile): string {
  const lines = timelineRanks(p);
  if (!hasTimeline(lines)) return '';
  const n = lines.length;
  const block = n <= TIMELINE_ROWS ? 1 : Math.ceil(n / TIMELINE_ROWS);
  const rows = Math.ceil(n / block);
  const tmax = Math.max(1e-9, ...lines.map((l) => l.end));
  const VW = 1000,
    L = 92,
    R = 14,
    T = 6,
    W = VW - L - R,
    RH = block === 1 ? 18 : 14,
    H = rows * RH;
  const X = (t: number) => L + Math.max(0, Math.min(1, t / tmax)) * W;
  const svg: string[] = [];
  const profiled = lines.some((l) => l.profiled);
  const phaseCount = lines.reduce((a, l) => a + phases(l.events, l.end).length, 0);
  for (let i = 0; i < rows; i++) {
    const part = lines.slice(i * block, (i + 1) * block);
    const y = T + i * RH,
      first = part[0].rank,
      last = part[part.length - 1].rank;
    const label = block === 1 ? `rank ${first}` : `${first}–${last}`;
    const nev = part.reduce((a, l) => a + l.events.length, 0);
    svg.push(
      `<g class="tl-row" data-first="${first}" data-last="${last}" data-events="${nev}"><text x="${L - 6}" y="${y + RH * 0.7}" text-anchor="end">${escHtml(label)}</text>`,
    );
    const end = Math.max(...part.map((l) => l.end));
    svg.push(
      `<rect class="alive" x="${L}" y="${y + 1}" width="${x3(X(end) - L)}" height="${RH - 2}" fill="${part.some((l) => l.profiled) ? '#b2f2bb' : '#e9ecef'}"><title>${escHtml(label)}: MPI_Init to ${part.every((l) => l.finished) ? 'MPI_Finalize' : 'its last event'}${block === 1 ? `, ${secs(end)} s` : ''}</title></rect>`,
    );
    if (block === 1) {
      const l = part[0];
      for (const [a, b] of recordingOff(l.events, l.end)) {
        svg.push(
          `<rect class="off" x="${x3(X(a))}" y="${y + 1}" width="${x3(Math.max(0.5, X(b) - X(a)))}" height="${RH - 2}" fill="#adb5bd"><title>rank ${l.rank}: recording off from ${secs(a)} to ${secs(b)} s</title></rect>`,
        );
      }
      for (const ph of phases(l.events, l.end)) {
        svg.push(
          `<rect class="phase" x="${x3(X(ph.start))}" y="${y + RH * 0.55}" width="${x3(Math.max(0.5, X(ph.end) - X(ph.start)))}" height="${x3(RH * 0.4)}" fill="#cc5de8" fill-opacity="0.7"><title>rank ${l.rank}: MPI_T phase ${escHtml(ph.name || '(unnamed)')} from ${secs(ph.start)} to ${secs(ph.end)} s${ph.written ? `, wrote ${escHtml(ph.name)}.${l.rank}.prof` : ph.open ? ', still open' : ', no file written'}</title></rect>`,
        );
      }
      for (const e of l.events) {
        const key = e.kind === 'pcontrol' && e.value === 0 ? 'pcontrol-off' : e.kind;
        svg.push(
          `<line class="ev" data-kind="${escHtml(e.kind)}" data-value="${e.value}" x1="${x3(X(e.t))}" x2="${x3(X(e.t))}" y1="${y}" y2="${y + RH}" stroke="${COLOR[key] ?? '#1c7ed6'}" stroke-width="2"><title>rank ${l.rank}: ${escHtml(eventLabel(e))} at ${secs(e.t)} s</title></line>`,
        );
      }
    } else {
      // a block: per slice of time, the share of its ranks with recording off and in a phase
      // (shaded), and one tick per slice and kind of event with how many there were
      const NB = 250,
        dt = tmax / NB;
      const off = new Float64Array(NB),
        inPhase = new Float64Array(NB);
      const add = (arr: Float64Array, a: number, b: number) => {
        for (let k = Math.max(0, Math.floor(a / dt)); k < NB && k * dt < b; k++) arr[k] += Math.max(0, Math.min(b, (k + 1) * dt) - Math.max(a, k * dt)) / dt;
      };
      const ticks = new Map<string, { k: number; e: TimelineEvent; count: number; lo: number; hi: number }>();
      for (const l of part) {
        for (const [a, b] of recordingOff(l.events, l.end)) add(off, a, b);
        for (const ph of phases(l.events, l.end)) add(inPhase, ph.start, ph.end);
        for (const e of l.events) {
          const k = Math.min(NB - 1, Math.max(0, Math.floor(e.t / dt)));
          const key = `${k} ${e.kind} ${e.kind === 'pcontrol' ? e.value : ''}`;
          const t = ticks.get(key) ?? { k, e, count: 0, lo: e.t, hi: e.t };
          t.count++;
          t.lo = Math.min(t.lo, e.t);
          t.hi = Math.max(t.hi, e.t);
          ticks.set(key, t);
        }
      }
      const shade = (arr: Float64Array, cls: string, fill: string, y0: number, h: number, what: string) => {
        for (let k = 0; k < NB;) {
          const q = Math.round((arr[k] / part.length) * 8) / 8;
          let j = k;
          while (j + 1 < NB && Math.round((arr[j + 1] / part.length) * 8) / 8 === q) j++;
          if (q > 0) {
            svg.push(
              `<rect class="${cls}" x="${x3(X(k * dt))}" y="${x3(y0)}" width="${x3(Math.max(0.5, X((j + 1) * dt) - X(k * dt)))}" height="${x3(h)}" fill="${fill}" fill-opacity="${q}"><title>ranks ${first}–${last}: ${Math.round(q * 100)} % ${what} from ${secs(k * dt)} to ${secs((j + 1) * dt)} s</title></rect>`,
            );
          }
          k = j + 1;
        }
      };
      shade(off, 'off', '#adb5bd', y + 1, RH - 2, 'with recording off');
      shade(inPhase, 'phase', '#cc5de8', y + RH * 0.55, RH * 0.4, 'in an MPI_T phase');
      for (const t of ticks.values()) {
        const key = t.e.kind === 'pcontrol' && t.e.value === 0 ? 'pcontrol-off' : t.e.kind;
        const xx = x3(X((t.k + 0.5) * dt));
        svg.push(
          `<line class="ev" data-kind="${escHtml(t.e.kind)}" data-value="${t.e.value}" data-count="${t.count}" x1="${xx}" x2="${xx}" y1="${y}" y2="${y + RH}" stroke="${COLOR[key] ?? '#1c7ed6'}" stroke-width="2"><title>ranks ${first}–${last}: ${t.count} × ${escHtml(eventLabel(t.e).replace(/: .*\.prof$/, ''))} from ${secs(t.lo)} to ${secs(t.hi)} s</title></line>`,
        );
      }
    }
    svg.push('</g>');
  }
  // the time axis
  const step = niceStep(tmax, 8);
  const axis: string[] = [`<line x1="${L}" x2="${L + W}" y1="${T + H + 2}" y2="${T + H + 2}" stroke="#adb5bd"/>`];
  for (let t = 0; t <= tmax * 1.0001; t += step) {
    axis.push(
      `<line x1="${x3(X(t))}" x2="${x3(X(t))}" y1="${T}" y2="${T + H + 5}" stroke="#e9ecef"/><text x="${x3(X(t))}" y="${T + H + 16}" text-anchor="middle">${escHtml(axisLabel(t, tmax))}</text>`,
    );
  }
  axis.push(`<text x="${L + W / 2}" y="${T + H + 32}" text-anchor="middle">time since MPI_Init</text>`);
  const VH = T + H + 38;
  const nev = lines.reduce((a, l) => a + l.seen, 0),
    dropped = lines.reduce((a, l) => a + l.dropped, 0);
  const kinds = new Set(lines.flatMap((l) => l.events.map((e) => (e.kind === 'pcontrol' && e.value === 0 ? 'pcontrol-off' : e.kind))));
  const key = (color: string, text: string) => `<span class="key" style="background:${color}"></span>${text}`;
  const keys = [profiled ? key('#b2f2bb', 'recording on') : key('#e9ecef', 'running')];
  if (profiled && kinds.has('pcontrol-off')) keys.push(key('#adb5bd', 'recording off (MPI_Pcontrol(0) to the next other level)'));
  if (phaseCount) keys.push(key('#cc5de8', 'MPI_T phase (monitor: flush handle started to stopped)'));
  if (kinds.has('pcontrol-off')) keys.push(`${key(COLOR['pcontrol-off'], 'Pcontrol(0)')}`);
  if (kinds.has('pcontrol')) keys.push(`${key(COLOR.pcontrol, 'Pcontrol(other level)')}`);
  if (kinds.has('phase-start') || kinds.has('phase-end')) keys.push(`${key(COLOR['phase-start'], 'phase start / end')}`);
  const out = [`<section id="timeline"><h2>Timeline <small>MPI_Pcontrol and MPI_T phases per rank, since MPI_Init</small></h2>`];
  out.push(
    `<p class="meta">${nev.toLocaleString('en-US')} event${nev === 1 ? '' : 's'} on ${lines.filter((l) => l.seen).length} of ${n} ranks${phaseCount ? `; ${phaseCount} MPI_T phase${phaseCount === 1 ? '' : 's'}` : ''}${dropped ? `; ${dropped.toLocaleString('en-US')} not kept (a rank keeps its first ${Math.max(...lines.map((l) => l.capacity))})` : ''}${block > 1 ? `; ${block} ranks per row: shades give the share of the row's ranks` : ''}</p>`,
  );
  out.push(`<figure class="chart"><svg id="timeline-svg" class="timeline" viewBox="0 0 ${VW} ${VH}" width="100%" preserveAspectRatio="xMinYMin meet" role="img" aria-label="timeline of MPI_Pcontrol and MPI_T phases" data-ranks="${n}" data-block="${block}" data-rows="${rows}" data-end="${tmax}">
${axis.join('')}
${svg.join('\n')}
</svg>
<figcaption>${keys.join(' ')} · point at a mark for its time</figcaption></figure>`);
  const rowsT = lines.flatMap((l) => l.events.map((e) => ({ rank: l.rank, e })));
  const shown = rowsT.slice(0, TABLE_ROWS);
  out.push(
    `<details><summary>Events (${rowsT.length.toLocaleString('en-US')}${rowsT.length > shown.length ? `; the first ${shown.length} here, all in mpii report --json` : ''})</summary>`,
  );
  out.push(`<table id="timeline-events" class="sortable"><thead><tr><th data-col="0" class="num">rank</th><th data-col="1" class="num">time s</th><th data-col="2" class="num">tool</th><th data-col="3">event</th></tr></thead><tbody>
${shown.map(({ rank, e }) => `<tr data-kind="${escHtml(e.kind)}" data-value="${e.value}"><td class="num" data-sort="${rank}">${rank}</td><td class="num" data-sort="${e.t}">${secs(e.t)}</td><td class="num" data-sort="${e.tool}">${e.tool}</td><td data-sort="${escHtml(eventLabel(e))}">${escHtml(eventLabel(e))}</td></tr>`).join('\n')}
</tbody></table></details>`);
  out.push('</section>');
  return out.join('\n');
}

// What every part of the HTML page is written with (src/report/html.ts and the tools' report
// modules): escaping, sortable tables, and the data the page's script draws charts from.

/** Cells per side of the heatmap at most, and bars of the per-rank chart at most. */
export const HEATMAP_CELLS = 64;
export const RANK_BARS = 128;

export const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
export const num = (v: number) => (Number.isInteger(v) ? v.toLocaleString('en-US') : v.toFixed(2));

export interface Col {
  head: string;
  right?: boolean;
  title?: string;
}
/** A table; each cell is [text, sort value]. Sortable by clicking a header (the page's script). */
export function table(id: string, cols: Col[], rows: [string, number | string][][], cls = ''): string {
  const head = cols
    .map((c, i) => `<th data-col="${i}"${c.right ? ' class="num"' : ''}${c.title ? ` title="${esc(c.title)}"` : ''}>${esc(c.head)}</th>`)
    .join('');
  const body = rows
    .map((r) => `<tr>${r.map(([text, sort], i) => `<td${cols[i].right ? ' class="num"' : ''} data-sort="${esc(sort)}">${text}</td>`).join('')}</tr>`)
    .join('\n');
  return `<table id="${esc(id)}" class="sortable ${cls}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

export const cell = (text: string | number, sort?: number | string): [string, number | string] => [
  esc(text),
  sort ?? (typeof text === 'number' ? text : String(text)),
];
export const rawCell = (html: string, sort: number | string): [string, number | string] => [html, sort];

/** What the page's script draws: filled by the sections as they are written. */
export interface PageData {
  heatmaps: { id: string; n: number; block: number; side: number; classes: Record<string, { bytes: number[]; count: number[] }> }[];
  bars: { id: string; block: number; bars: number[][] }[];
  /** message-size histograms: [smallest size, largest size, messages] per bar */
  hists: { id: string; bins: number[][] }[];
}

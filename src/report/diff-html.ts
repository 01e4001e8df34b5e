// `mpii report A B --html FILE`: what changed, as one self-contained page (the same styles and
// sortable tables as the run report, no script beyond sorting, nothing loaded).
import { CSS, esc } from './html.js';
import { pageHead, SORTABLE_SCRIPT } from './html-page.js';
import { utc } from './header.js';
import type { RunDiff } from './diff.js';
import { DEFAULT_TOP } from './filter.js';
import { TOOL_REPORTS } from './tools.js';

export function diffHtml(d: RunDiff, o: { top?: number; generated?: Date } = {}): string {
  const top = o.top ?? DEFAULT_TOP; // the rows of the text and --json
  const body: string[] = [];
  const runs = [
    ['A', d.a],
    ['B', d.b],
  ] as const;
  body.push(
    `<dl class="run" id="runs">${runs
      .map(
        ([k, s]) =>
          `<dt>${k}</dt><dd data-key="${k}">${esc(
            `${s.dir}: ${s.ranks} ranks, ${s.header.mpi}` + `${s.header.start !== null ? `, ${utc(s.header.start)}` : ''}${s.complete ? '' : ', INCOMPLETE'}`,
          )}</dd>`,
      )
      .join('')}</dl>`,
  );
  for (const n of d.notes) body.push(`<p class="warn note">Note: ${esc(n)}</p>`);
  const htmlOrder = new Map(TOOL_REPORTS.map((t) => [t.name, t.htmlOrder]));
  const sections = [...d.tools].sort((x, y) => (htmlOrder.get(x.name) ?? 0) - (htmlOrder.get(y.name) ?? 0));
  for (const t of sections) body.push(t.diff.html(t.data, top));
  const title = 'mpii report: what changed from A to B';
  return `${pageHead(title, CSS, esc)}
<header><h1>${esc(title)}</h1></header>
<main>
${body.join('\n')}
</main>
<footer>Written by mpii${o.generated ? ` on ${esc(o.generated.toISOString())}` : ''}. Self-contained: this file loads nothing.</footer>
<script>${SORT}</script>
</body></html>
`;
}

const SORT = `
${SORTABLE_SCRIPT}
document.querySelectorAll('table.sortable').forEach(sortable);
document.body.setAttribute('data-ready', '1');
`;

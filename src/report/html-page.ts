// What the HTML pages (the report and `mpii report A B`) share: the head of the document (one
// content security policy: nothing is fetched, scripts and styles are inline) and click-to-sort
// for tables (a column sorts by each cell's data-sort value, numerically when both are numbers;
// a second click reverses).

/** `<!doctype html>` up to and including `<body>`; `esc` escapes the title. */
export function pageHead(title: string, css: string, esc: (s: string) => string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${css}</style>
</head><body>`;
}

export const SORTABLE_SCRIPT = `
function sortable(tbl) {
  var heads = tbl.querySelectorAll('th');
  heads.forEach(function (th, col) {
    th.addEventListener('click', function () {
      var desc = !th.classList.contains('sorted-desc');
      heads.forEach(function (h) { h.classList.remove('sorted-asc', 'sorted-desc'); });
      th.classList.add(desc ? 'sorted-desc' : 'sorted-asc');
      var body = tbl.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute('data-sort'), y = b.cells[col].getAttribute('data-sort');
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = !isNaN(nx) && !isNaN(ny) ? nx - ny : x.localeCompare(y);
        return desc ? -c : c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
}
`;

// Click-to-sort for the tables of the HTML pages (the report and `mpii report A B`): a column
// sorts by each cell's data-sort value, numerically when both are numbers; a second click reverses.
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

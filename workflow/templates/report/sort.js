/* stecflow report: sort a table by clicking a column header (inlined, no network).
   Numbers sort by each cell's data-value, other columns by their text; cells
   without a value go last. Rows stay in their tbody (late submissions keep their
   section). Without this script the tables read as built, in ranking order. */
(function () {
  "use strict";
  function key(row, index) {
    var cell = row.cells[index];
    if (!cell) return { missing: true };
    var raw = cell.getAttribute("data-value");
    if (raw !== null && raw !== "") return { number: parseFloat(raw) };
    var text = cell.textContent.trim();
    return text === "" || text === "\u2013" ? { missing: true } : { text: text };
  }
  function compare(a, b, numeric) {
    if (a.missing || b.missing) return 0;
    if (numeric) return a.number - b.number;
    return a.text.localeCompare(b.text);
  }
  function sortBy(table, headers, th, index) {
    var current = th.getAttribute("aria-sort");
    var order;
    if (current === "ascending") order = "descending";
    else if (current === "descending") order = "ascending";
    else order = th.getAttribute("data-order") || "ascending";
    var bodies = table.tBodies;
    var numeric = false;
    for (var b = 0; b < bodies.length; b++) {
      for (var r = 0; r < bodies[b].rows.length; r++) {
        var cell = bodies[b].rows[r].cells[index];
        if (cell && cell.hasAttribute("data-value")) numeric = true;
      }
    }
    var sign = order === "ascending" ? 1 : -1;
    for (var i = 0; i < bodies.length; i++) {
      var body = bodies[i];
      var rows = Array.prototype.slice.call(body.rows);
      var head = rows.filter(function (row) {
        return row.classList.contains("divider");
      });
      // a total row stays last, whatever the order
      var foot = rows.filter(function (row) {
        return row.classList.contains("total");
      });
      var items = rows
        .filter(function (row) {
          return !row.classList.contains("divider") && !row.classList.contains("total");
        })
        .map(function (row, position) {
          return { row: row, key: key(row, index), position: position };
        });
      items.sort(function (x, y) {
        if (x.key.missing !== y.key.missing) return x.key.missing ? 1 : -1;
        var c = sign * compare(x.key, y.key, numeric);
        return c !== 0 ? c : x.position - y.position;
      });
      head.concat(items.map(function (item) { return item.row; }), foot).forEach(
        function (row) { body.appendChild(row); }
      );
    }
    for (var h = 0; h < headers.length; h++) headers[h].removeAttribute("aria-sort");
    th.setAttribute("aria-sort", order);
  }
  function setUp(table) {
    var head = table.tHead;
    if (!head || !head.rows.length) return;
    var headers = head.rows[head.rows.length - 1].cells;
    Array.prototype.forEach.call(headers, function (th, index) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) button.appendChild(th.firstChild);
      button.title = "Sort by this column";
      th.appendChild(button);
      button.addEventListener("click", function () {
        sortBy(table, headers, th, index);
      });
    });
    table.classList.add("sort-ready");
  }
  var tables = document.querySelectorAll("table.sortable");
  for (var t = 0; t < tables.length; t++) setUp(tables[t]);
})();

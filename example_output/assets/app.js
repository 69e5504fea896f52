// Progressive enhancement only: every page is complete without this file.
(function () {
  "use strict";
  function reveal(selector) {
    document.querySelectorAll(selector).forEach(function (el) { el.hidden = false; });
  }

  // Sortable tables: click a header with data-sort to sort by that column.
  function cellValue(row, index, kind) {
    var cell = row.children[index];
    var raw = cell.getAttribute("data-value");
    if (raw === null) raw = cell.textContent.trim();
    if (kind === "number") {
      var n = parseFloat(String(raw).replace(/[^0-9.\-]/g, ""));
      return isNaN(n) ? -Infinity : n;
    }
    return String(raw).toLowerCase();
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var headers = table.querySelectorAll("th[data-sort]");
    headers.forEach(function (th, index) {
      th.tabIndex = 0;
      function sort() {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var kind = th.getAttribute("data-sort");
        rows.sort(function (a, b) {
          var x = cellValue(a, index, kind), y = cellValue(b, index, kind);
          return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1);
        });
        rows.forEach(function (row) { body.appendChild(row); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
    });
  });

  var filter = document.getElementById("filter");
  if (filter) {
    reveal(".filter");
    filter.addEventListener("input", function () {
      var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      document.querySelectorAll(".session-table tbody tr").forEach(function (row) {
        var text = row.textContent.toLowerCase();
        row.hidden = !words.every(function (w) { return text.indexOf(w) !== -1; });
      });
    });
  }

  // Site-wide search: the index is a script (fetch() is refused on file:// pages), loaded
  // on first use; results are built with textContent only, never as HTML.
  var search = document.getElementById("search");
  if (search) {
    reveal(".search");
    var status = document.getElementById("search-status");
    var list = document.getElementById("search-results");
    var template = document.getElementById("search-hit");
    var run = function () {
      var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      list.textContent = "";
      if (!words.length) { status.textContent = ""; return; }
      var hits = (window.REPLAY_SEARCH || []).filter(function (entry) {
        var text = (entry[3] + " " + entry[4]).toLowerCase();
        return words.every(function (w) { return text.indexOf(w) !== -1; });
      });
      status.textContent = hits.length + (hits.length === 1 ? " step" : " steps") + (hits.length > 100 ? ", first 100 shown" : "");
      hits.slice(0, 100).forEach(function (entry) {
        var item = template.content.firstElementChild.cloneNode(true);
        var link = item.querySelector(".hit-link");
        link.href = entry[0] + "#step-" + entry[1];
        link.textContent = entry[3] + " — step " + entry[1];
        item.querySelector(".hit-kind").textContent = entry[2];
        item.querySelector(".hit-text").textContent = entry[4];
        list.appendChild(item);
      });
    };
    search.addEventListener("input", function () {
      if (window.REPLAY_SEARCH) { run(); return; }
      if (search.getAttribute("data-loading")) return;
      search.setAttribute("data-loading", "1");
      status.textContent = "Loading the search index…";
      var script = document.createElement("script");
      script.src = search.getAttribute("data-index");
      script.addEventListener("load", run);
      script.addEventListener("error", function () { status.textContent = "The search index (assets/search.js) could not be loaded."; });
      document.head.appendChild(script);
    });
  }

  // Expand or collapse every details element of a session page.
  function setAll(open) {
    document.querySelectorAll(".steps details").forEach(function (d) { d.open = open; });
  }
  var expand = document.getElementById("expand-all");
  if (expand) {
    reveal(".toolbar");
    expand.addEventListener("click", function () { setAll(true); });
    document.getElementById("collapse-all").addEventListener("click", function () { setAll(false); });
  }

  // Following a link to a step inside a closed <details> opens it.
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    for (; el; el = el.parentElement) { if (el.tagName === "DETAILS") el.open = true; }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();

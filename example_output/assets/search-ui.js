// Full-text search (see generator/replay_site/search.py for the files it reads). Every
// search file is a script added to the page: fetch() is refused on file:// pages. Log text is
// only ever put on the page with textContent and text nodes, never parsed as HTML.
(function () {
  "use strict";
  var form = document.querySelector("form.search");
  var input = document.getElementById("search-input");
  var results = document.getElementById("search-results");
  if (!form || !input || !results) return;
  form.hidden = false;
  var root = document.body.getAttribute("data-root") || "";
  var scope = form.getAttribute("data-scope") === "session" ? "session" : "site";
  var FIRST_BUDGET = 1500000;  // bytes of shards loaded for one search before asking for more
  var MAX_HITS = 200;
  var WORD = /[\p{L}\p{N}]+/gu;

  var loaded = {};
  function loadScript(src) {
    if (!loaded[src]) {
      loaded[src] = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = src;
        script.onload = resolve;
        script.onerror = function () { reject(new Error("could not load " + src)); };
        document.head.appendChild(script);
      });
    }
    return loaded[src];
  }

  // ---- Query: words match at the start of a word ("cach" finds "cache", not "ocache");
  // "quoted words" and words joined by punctuation (cache.py) are phrases: consecutive
  // words, the last one whole when quoted.
  function escapeRegExp(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }
  function parseQuery(text) {
    var terms = [], re = /"([^"]*)"?|(\S+)/g, m;
    while ((m = re.exec(text))) {
      var quoted = m[1] !== undefined;
      var words = ((quoted ? m[1] : m[2]).toLowerCase().match(WORD) || []);
      if (!words.length) continue;
      var source = "(?<![\\p{L}\\p{N}])" + words.map(escapeRegExp).join("[^\\p{L}\\p{N}]+") + (quoted ? "(?![\\p{L}\\p{N}])" : "");
      terms.push({ words: words, quoted: quoted, regexp: new RegExp(source, "giu") });
    }
    return terms;
  }
  function matchesAll(terms, text) {
    return terms.every(function (term) { term.regexp.lastIndex = 0; return term.regexp.test(text); });
  }

  // ---- Snippet: text around the first match, every match in it marked.
  function snippet(terms, text) {
    var first = terms[0].regexp;
    first.lastIndex = 0;
    var hit = first.exec(text);
    var at = hit ? hit.index : 0;
    var start = Math.max(0, at - 80), end = Math.min(text.length, at + 200);
    var part = text.slice(start, end);
    var ranges = [];
    terms.forEach(function (term) {
      term.regexp.lastIndex = 0;
      var m;
      while ((m = term.regexp.exec(part))) {
        if (!m[0].length) { term.regexp.lastIndex++; continue; }
        ranges.push([m.index, m.index + m[0].length]);
      }
    });
    ranges.sort(function (a, b) { return a[0] - b[0]; });
    var box = document.createElement("div");
    box.className = "hit-text";
    var pos = 0;
    if (start > 0) box.appendChild(document.createTextNode("…"));
    ranges.forEach(function (r) {
      if (r[0] < pos) return;
      box.appendChild(document.createTextNode(part.slice(pos, r[0])));
      var mark = document.createElement("mark");
      mark.textContent = part.slice(r[0], r[1]);
      box.appendChild(mark);
      pos = r[1];
    });
    box.appendChild(document.createTextNode(part.slice(pos) + (end < text.length ? "…" : "")));
    return box;
  }

  // ---- Candidate sessions (site scope): the term map says which sessions hold every word.
  function bucketOf(word, length) {
    return word.slice(0, length).replace(/[^a-z0-9]/g, "_");
  }
  // The bucket holding every word that starts with `word`: its first two characters, or its
  // first three where that bucket was split; "" when no indexed word starts so; null for a
  // two-character word without its bucket (split: it cannot narrow the search).
  function bucketFor(word, known) {
    var two = bucketOf(word, 2);
    if (known.indexOf(two) !== -1) return two;
    if (word.length < 3) return null;
    var three = bucketOf(word, 3);
    return known.indexOf(three) !== -1 ? three : "";
  }
  // The session table: [slug, title, page, shard bytes] by session number. A large site keeps
  // only its first `chunk` rows in the index and the rest in assets/search/sessions/<k>.js.
  function row(n) {
    var index = window.REPLAY_SEARCH;
    if (n < index.sessions.length) return index.sessions[n];
    return window.REPLAY_SESSIONS[String(Math.floor(n / index.chunk))][n % index.chunk];
  }
  function loadRows(numbers) {
    var index = window.REPLAY_SEARCH;
    var chunks = numbers.filter(function (n) { return n >= index.sessions.length; })
      .map(function (n) { return Math.floor(n / index.chunk); })
      .filter(function (k, i, all) { return all.indexOf(k) === i; });
    return Promise.all(chunks.map(function (k) { return loadScript(root + "assets/search/sessions/" + k + ".js"); }));
  }
  function candidates(terms) {
    var index = window.REPLAY_SEARCH;
    var lookups = [];
    terms.forEach(function (t) {
      t.words.forEach(function (w) {
        var bucket = w.length > 1 ? bucketFor(w, index.buckets) : null;
        if (bucket !== null) lookups.push([w, bucket]);
      });
    });
    var files = lookups.map(function (l) { return l[1]; }).filter(function (b, i, all) { return b && all.indexOf(b) === i; });
    return Promise.all(files.map(function (b) { return loadScript(root + "assets/search/terms/" + b + ".js"); })).then(function () {
      var all = null;
      lookups.forEach(function (lookup) {
        var map = (window.REPLAY_TERMS || {})[lookup[1]] || {};
        var found = {};
        Object.keys(map).forEach(function (term) {
          if (term.lastIndexOf(lookup[0], 0) === 0) {
            map[term].split(",").forEach(function (n) { found[parseInt(n, 36)] = true; });
          }
        });
        all = all === null ? found : Object.keys(all).reduce(function (both, n) { if (found[n]) both[n] = true; return both; }, {});
      });
      var count = index.count || index.sessions.length, numbers = [];
      if (all === null) { for (var n = 0; n < count; n++) numbers.push(n); } else { numbers = Object.keys(all).map(Number); }
      return loadRows(numbers).then(function () {
        return numbers.sort(function (a, b) { return a - b; }).filter(function (n) { return row(n)[3] > 0; });
      });
    });
  }

  // ---- Showing results.
  var status = document.createElement("p");
  status.className = "search-status";
  var list = document.createElement("ol");
  list.className = "search-hits";
  results.appendChild(status);
  results.appendChild(list);
  var more = document.createElement("button");
  more.type = "button";
  more.className = "search-more";
  more.hidden = true;
  results.appendChild(more);

  function hitItem(href, label, kind, terms, text, query, step) {
    var item = document.createElement("li");
    var link = document.createElement("a");
    link.className = "hit-link";
    link.href = href;
    link.textContent = label;
    link.addEventListener("click", function () {
      try { sessionStorage.setItem("replay-site:hit", JSON.stringify({ query: query, step: step })); } catch (e) { /* no storage */ }
    });
    var badge = document.createElement("span");
    badge.className = "hit-kind";
    badge.textContent = kind;
    item.appendChild(link);
    item.appendChild(document.createTextNode(" "));
    item.appendChild(badge);
    item.appendChild(snippet(terms, text));
    return item;
  }

  var generation = 0;
  function search(query) {
    var run = ++generation;
    list.textContent = "";
    more.hidden = true;
    var terms = parseQuery(query);
    if (!terms.length) { status.textContent = ""; return; }
    status.textContent = "Searching…";
    var shown = 0, sessionsHit = {};
    // The agent's own steps first, then the user's prompts, then what was injected (system
    // prompts, CLAUDE.md, skill text: "context" steps) and events; in session and step order within each.
    var RANK = { assistant: 0, user: 1 };
    function addSessions(chosen) {
      var hits = [];
      chosen.forEach(function (session, order) {
        var steps = (window.REPLAY_SHARDS || {})[session.slug] || [];
        steps.forEach(function (entry, at) {
          if (!matchesAll(terms, entry[3])) return;
          var rank = RANK.hasOwnProperty(entry[2]) ? RANK[entry[2]] : 2;
          hits.push({ session: session, entry: entry, key: [rank, order, at] });
        });
      });
      hits.sort(function (a, b) { return a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.key[2] - b.key[2]; });
      hits.forEach(function (hit) {
        if (shown >= MAX_HITS) return;
        shown++;
        sessionsHit[hit.session.slug] = true;
        var entry = hit.entry;
        var label = (scope === "site" ? hit.session.title + " — " : "") + "step " + entry[0];
        list.appendChild(hitItem(root + entry[1], label, entry[2], terms, entry[3], query, entry[0]));
      });
    }
    function report(searched, total) {
      var found = Object.keys(sessionsHit).length;
      // the sessions the hits are in, then how many were searched: "in 1 session (7 searched of 7 that hold every word)"
      status.textContent = (shown >= MAX_HITS ? "First " + MAX_HITS + " matching steps" : shown + (shown === 1 ? " matching step" : " matching steps"))
        + (scope === "site" ? " in " + found + (found === 1 ? " session" : " sessions") + " (" + searched + " searched of "
           + total + (total === 1 ? " session" : " sessions") + " that hold every word)" : "") + ".";
    }
    if (scope === "session") {
      var mapElement = document.getElementById("session-map");
      var map = mapElement ? JSON.parse(mapElement.textContent) : {};
      if (!map.shard) { status.textContent = "This page has no search file."; return; }
      loadScript(map.shard).then(function () {
        if (run !== generation) return;
        addSessions([{ slug: document.body.getAttribute("data-slug"), title: "" }]);
        report(1, 1);
      }, function () { status.textContent = "The search file of this session could not be loaded."; });
      return;
    }
    loadScript(root + "assets/search-index.js").then(function () { return candidates(terms); }).then(function (numbers) {
      if (run !== generation) return;
      var next = 0;
      function batch() {
        var budget = FIRST_BUDGET, chosen = [];
        while (next < numbers.length && (chosen.length === 0 || budget - row(numbers[next])[3] >= 0)) {
          budget -= row(numbers[next])[3];
          chosen.push(numbers[next++]);
        }
        return Promise.all(chosen.map(function (n) { return loadScript(root + "assets/search/" + row(n)[0] + ".js"); })).then(function () {
          if (run !== generation) return;
          addSessions(chosen.map(function (n) { return { slug: row(n)[0], title: row(n)[1] }; }));
          report(next, numbers.length);
          var left = numbers.length - next;
          more.hidden = left === 0 || shown >= MAX_HITS;
          more.textContent = "Search " + left + " more " + (left === 1 ? "session" : "sessions");
        });
      }
      more.onclick = batch;
      return batch();
    }).catch(function () { status.textContent = "The search files (assets/search-index.js and assets/search/) could not be loaded."; });
  }

  var timer = null;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { search(input.value); }, 150);
  });
  form.addEventListener("submit", function (e) { e.preventDefault(); clearTimeout(timer); search(input.value); });

  // "search all sessions" from a session page takes the words typed so far along.
  var searchAll = form.querySelector(".search-all");
  if (searchAll) {
    searchAll.addEventListener("click", function () {
      try { sessionStorage.setItem("replay-site:query", input.value); } catch (e) { /* no storage */ }
    });
  }
  if (scope === "site") {
    var carried = null;
    try { carried = sessionStorage.getItem("replay-site:query"); sessionStorage.removeItem("replay-site:query"); } catch (e) { /* no storage */ }
    if (carried) { input.value = carried; input.focus(); search(carried); }
  }

  // ---- Arriving from a hit: open the <details> that holds the match and scroll it into view.
  function revealHit() {
    var saved;
    try { saved = JSON.parse(sessionStorage.getItem("replay-site:hit") || "null"); } catch (e) { saved = null; }
    if (!saved || location.hash !== "#step-" + saved.step) return;
    var step = document.getElementById("step-" + saved.step);
    if (!step) return;
    try { sessionStorage.removeItem("replay-site:hit"); } catch (e) { /* no storage */ }
    var terms = parseQuery(saved.query);
    if (!terms.length) return;
    var nodes = [], text = "", walker = document.createTreeWalker(step, NodeFilter.SHOW_TEXT);
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      nodes.push([node, text.length]);
      text += node.data;
    }
    var regexp = terms[0].regexp;
    regexp.lastIndex = 0;
    var hit = regexp.exec(text);
    if (!hit) return;
    var i = nodes.length - 1;
    while (i > 0 && nodes[i][1] > hit.index) i--;
    var start = nodes[i];
    for (var el = start[0].parentElement; el && el !== step; el = el.parentElement) {
      if (el.tagName === "DETAILS") el.open = true;
    }
    var range = document.createRange();
    range.setStart(start[0], hit.index - start[1]);
    var j = i;
    while (j < nodes.length - 1 && nodes[j + 1][1] < hit.index + hit[0].length) j++;
    range.setEnd(nodes[j][0], Math.min(nodes[j][0].data.length, hit.index + hit[0].length - nodes[j][1]));
    if (window.CSS && CSS.highlights && window.Highlight) CSS.highlights.set("search-hit", new Highlight(range));
    // the match itself in view, however long the text around it: inside a box that scrolls,
    // then on the page
    var holder = start[0].parentElement;
    holder.scrollIntoView({ block: "nearest" });
    for (var box = holder; box && box !== step; box = box.parentElement) {
      if (box.scrollHeight > box.clientHeight + 1) {
        box.scrollTop += range.getBoundingClientRect().top - box.getBoundingClientRect().top - box.clientHeight / 3;
      }
    }
    window.scrollBy(0, range.getBoundingClientRect().top - window.innerHeight / 3);
  }
  window.addEventListener("hashchange", revealHit);
  revealHit();
})();

// Progressive enhancement only: every page is complete without this file. It is also
// inlined into exported single-file replays, so it must not contain a closing-tag sequence
// and must not load other scripts there (their Content-Security-Policy allows only itself).
(function () {
  "use strict";
  var html = document.documentElement;
  var body = document.body;
  html.classList.add("js");

  function reveal(selector) {
    document.querySelectorAll(selector).forEach(function (el) { el.hidden = false; });
  }
  function stored(key, fallback) {
    try { var v = localStorage.getItem("replay-site:" + key); return v === null ? fallback : v; } catch (e) { return fallback; }
  }
  function store(key, value) {
    try { localStorage.setItem("replay-site:" + key, value); } catch (e) { /* storage off: the choice lasts this page */ }
  }

  // ---- Theme: follows the system until the reader picks one, which is remembered.
  var themeButton = document.getElementById("theme-toggle");
  function effectiveTheme() {
    var chosen = html.getAttribute("data-theme");
    if (chosen) return chosen;
    return window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  function showTheme() {
    if (!themeButton) return;
    var dark = effectiveTheme() === "dark";
    themeButton.textContent = dark ? "Light theme" : "Dark theme";
    themeButton.setAttribute("aria-label", dark ? "Switch to the light theme" : "Switch to the dark theme");
  }
  var savedTheme = stored("theme", "");
  if (savedTheme === "light" || savedTheme === "dark") html.setAttribute("data-theme", savedTheme);
  if (themeButton) {
    themeButton.hidden = false;
    themeButton.type = "button";
    themeButton.addEventListener("click", function () {
      var next = effectiveTheme() === "dark" ? "light" : "dark";
      html.setAttribute("data-theme", next);
      store("theme", next);
      showTheme();
    });
    showTheme();
  }

  // ---- Sortable tables: click a header with data-sort to sort by that column.
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
        var tbody = table.tBodies[0];
        var rows = Array.prototype.slice.call(tbody.rows);
        var kind = th.getAttribute("data-sort");
        rows.sort(function (a, b) {
          var x = cellValue(a, index, kind), y = cellValue(b, index, kind);
          return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1);
        });
        rows.forEach(function (row) { tbody.appendChild(row); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  });

  // ---- Index rows: a text filter and an outcome filter from the URL fragment (#status=failed).
  var filter = document.getElementById("filter");
  var statusNav = document.querySelector(".status-filter");
  function wantedOutcomes() {
    var match = /(?:^#|&)status=([^&]*)/.exec(location.hash);
    if (!match || !match[1] || match[1] === "all") return null;
    return decodeURIComponent(match[1]).split(",");
  }
  function filterRows() {
    var words = filter ? filter.value.toLowerCase().split(/\s+/).filter(Boolean) : [];
    var outcomes = wantedOutcomes();
    document.querySelectorAll(".session-table tbody tr").forEach(function (row) {
      var text = row.textContent.toLowerCase();
      var byText = words.every(function (w) { return text.indexOf(w) !== -1; });
      var byOutcome = !outcomes || outcomes.indexOf(row.getAttribute("data-outcome")) !== -1;
      row.hidden = !(byText && byOutcome);
    });
    if (statusNav) {
      statusNav.querySelectorAll("a").forEach(function (chip) {
        var value = (/status=([^&]*)/.exec(chip.getAttribute("href") || "") || [])[1] || "all";
        var current = outcomes ? outcomes.join(",") === decodeURIComponent(value) : value === "all";
        if (current) chip.setAttribute("aria-current", "true"); else chip.removeAttribute("aria-current");
      });
    }
  }
  if (filter) {
    reveal(".filter");
    filter.addEventListener("input", filterRows);
  }
  if (statusNav) {
    statusNav.hidden = false;
    window.addEventListener("hashchange", filterRows);
    filterRows();
  }

  // ---- Expand or collapse every details element of a session page.
  function setAll(open) {
    document.querySelectorAll(".steps details").forEach(function (d) { d.open = open; });
  }
  var expand = document.getElementById("expand-all");
  if (expand) {
    reveal(".toolbar");
    expand.addEventListener("click", function () { setAll(true); });
    document.getElementById("collapse-all").addEventListener("click", function () { setAll(false); });
  }

  // ---- Navigator drawer on narrow screens.
  var navToggle = document.querySelector(".nav-toggle");
  var stepNav = document.getElementById("step-nav");
  function setDrawer(open) {
    body.classList.toggle("nav-open", open);
    navToggle.setAttribute("aria-expanded", open ? "true" : "false");
    var entry = open && stepNav.querySelector(".step-index a[aria-current]");
    if (entry) followInNavigator(entry);
  }
  if (navToggle && stepNav) {
    navToggle.hidden = false;
    navToggle.type = "button";
    navToggle.addEventListener("click", function () { setDrawer(!body.classList.contains("nav-open")); });
    stepNav.addEventListener("click", function (e) { if (e.target.closest("a")) setDrawer(false); });
  }

  // Search runs from its own file, loaded beside this one (never in a single-file export,
  // whose Content-Security-Policy admits only this script): its box shows when it can work.
  var self = document.currentScript;
  function loadBeside(name) {
    var script = document.createElement("script");
    script.src = self.src.replace(/app\.js(\?.*)?$/, name);
    document.head.appendChild(script);
  }
  var searchForm = document.querySelector("form.search");
  if (self && self.src && searchForm) {
    searchForm.hidden = false;
    loadBeside("search-ui.js");
  }
  // the session page's own tools; a single-file export has them inline after this script
  if (self && self.src && document.getElementById("session-map")) loadBeside("session-ui.js");

  // ---- Anchored elements keep clear of the sticky bar, whose height depends on the screen
  // and on what this script revealed in it (so it is measured after those).
  var topbar = document.querySelector(".topbar");
  function measureTopbar() {
    if (topbar) html.style.setProperty("--topbar-height", topbar.offsetHeight + "px");
  }
  measureTopbar();
  if (topbar && window.ResizeObserver) new ResizeObserver(measureTopbar).observe(topbar);

  // ---- The session map: which page holds each step, the errors, the neighbours.
  var map = null;
  var mapElement = document.getElementById("session-map");
  if (mapElement) {
    try { map = JSON.parse(mapElement.textContent); } catch (e) { map = null; }
  }
  function stepNumberOf(hash) {
    var match = /^#step-(\d+)(?:-|$)/.exec(hash);
    return match ? parseInt(match[1], 10) : null;
  }
  // Pages hold map.pages.size steps each; page 1 is `first`, page k is `later` + k + `suffix`.
  function pageHrefOf(number) {
    var pages = map && map.pages;
    if (!pages || number < 1 || number > pages.steps) return null;
    var k = Math.ceil(number / pages.size);
    return k === 1 ? pages.first : pages.later + k + pages.suffix;
  }
  // A link to a step that lives on another page of this session (an old link, or one typed
  // by hand) goes to that page.
  function redirectIfElsewhere() {
    var number = stepNumberOf(location.hash);
    if (number === null || document.getElementById(location.hash.slice(1))) return false;
    var href = pageHrefOf(number);
    if (!href) return false;
    location.replace(href.split("#")[0] + location.hash);
    return true;
  }
  if (redirectIfElsewhere()) return;

  // A page links only so many other pages of its session; an entry of its lists on any other
  // page is printed as text with its step's number (data-step-link), linked here by the rule.
  document.querySelectorAll("[data-step-link]").forEach(function (entry) {
    var number = parseInt(entry.getAttribute("data-step-link"), 10);
    var href = pageHrefOf(number);
    if (!href) return;
    var link = document.createElement("a");
    link.href = href.split("#")[0] + "#step-" + number;
    link.className = entry.className;
    while (entry.firstChild) link.appendChild(entry.firstChild);
    entry.parentNode.replaceChild(link, entry);
  });

  // Following a link to something inside a closed <details> opens it.
  // The browser scrolled to the target before this script measured the top bar (below), and
  // a closed <details> had no box to scroll to: scroll again once both are right.
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    for (var el = target; el; el = el.parentElement) { if (el.tagName === "DETAILS") el.open = true; }
    if (target && target.scrollIntoView) target.scrollIntoView({ block: "start" });
  }
  window.addEventListener("hashchange", function () { if (!redirectIfElsewhere()) openTarget(); });
  openTarget();

  // ---- Step filters (hide thinking, context, outputs, events), remembered.
  var hidden = (stored("hide", "") || "").split(",").filter(Boolean);
  document.querySelectorAll(".step-filters input[data-hide]").forEach(function (box) {
    var kind = box.getAttribute("data-hide");
    box.checked = hidden.indexOf(kind) !== -1;
    body.toggleAttribute("data-hide-" + kind, box.checked);
    box.addEventListener("change", function () {
      body.toggleAttribute("data-hide-" + kind, box.checked);
      var now = [];
      document.querySelectorAll(".step-filters input[data-hide]").forEach(function (other) {
        if (other.checked) now.push(other.getAttribute("data-hide"));
      });
      store("hide", now.join(","));
    });
  });
  reveal(".step-filters");

  // ---- Steps: which one is current, moving between them, the URL hash following along.
  function steps() {
    return Array.prototype.filter.call(document.querySelectorAll("li.step"), function (s) { return s.offsetParent !== null; });
  }
  // The step last moved to stays current while it is on screen (near the end of a page it
  // cannot scroll up to the top); otherwise the last step whose top has passed the top bar.
  var active = location.hash ? document.getElementById(location.hash.slice(1)) : null;
  if (active && !active.matches("li.step")) active = active.closest("li.step");
  function currentStep() {
    var bar = topbar ? topbar.getBoundingClientRect().bottom : 0;
    if (active && active.offsetParent !== null) {
      var box = active.getBoundingClientRect();
      if (box.top < window.innerHeight && box.bottom > bar) return active;
    }
    active = null;
    var list = steps();
    var line = bar + 24;  // the anchored step sits a scroll-margin (.6rem) below the bar
    var current = null;
    for (var i = 0; i < list.length; i++) {
      if (list[i].getBoundingClientRect().top <= line) current = list[i]; else break;
    }
    return current;
  }
  function numberOf(step) { return parseInt(step.getAttribute("data-step") || step.id.slice(5), 10); }
  var lastHash = location.hash;
  var currentListeners = [];  // told the number of each step that becomes current (session-ui.js)
  function markCurrent(step) {
    var hash = step ? "#" + step.id : "";
    if (hash === lastHash) return;
    lastHash = hash;
    history.replaceState(history.state, "", location.pathname + location.search + hash);
    document.querySelectorAll(".step-index a[aria-current]").forEach(function (a) { a.removeAttribute("aria-current"); });
    var entry = step && document.querySelector('.step-index a[href="#' + step.id + '"]');
    if (entry) {
      entry.setAttribute("aria-current", "step");
      followInNavigator(entry);
    }
    if (step) currentListeners.forEach(function (listener) { listener(numberOf(step)); });
  }
  // The navigator (a sticky column, or the drawer) keeps the current step's entry in sight.
  function followInNavigator(entry) {
    if (!stepNav || stepNav.scrollHeight <= stepNav.clientHeight) return;
    var top = entry.getBoundingClientRect().top - stepNav.getBoundingClientRect().top;
    if (top < 0 || top > stepNav.clientHeight - entry.offsetHeight) {
      stepNav.scrollTop += top - stepNav.clientHeight / 3;
    }
  }
  function goToStep(step) {
    active = step;
    for (var el = step.parentElement; el; el = el.parentElement) { if (el.tagName === "DETAILS") el.open = true; }
    step.scrollIntoView({ block: "start" });
    if (!step.hasAttribute("tabindex")) step.setAttribute("tabindex", "-1");
    step.focus({ preventScroll: true });
    markCurrent(step);
  }
  // A step on this page, or the href of the page that holds it (session map), or null.
  function goToNumber(number) {
    var here = document.getElementById("step-" + number);
    if (here) { goToStep(here); return true; }
    var href = pageHrefOf(number);
    if (!href) return false;
    location.href = href.split("#")[0] + "#step-" + number;
    return true;
  }
  function moveStep(delta) {
    var list = steps();
    if (!list.length) return;
    var current = currentStep();
    var index = current ? list.indexOf(current) : -1;
    var target = index + delta;
    if (target >= 0 && target < list.length && !(index === -1 && delta < 0)) { goToStep(list[target]); return; }
    // past the ends of this page: the neighbouring page of the same session
    goToNumber(delta > 0 ? numberOf(list[list.length - 1]) + 1 : numberOf(list[0]) - 1);
  }
  // The map lists this page's error steps and the nearest on either side.
  function errorSteps() {
    if (map && map.errors) return map.errors.slice().sort(function (a, b) { return a - b; });
    return Array.prototype.map.call(document.querySelectorAll("li.step.has-error"), numberOf);
  }
  function moveError(forward) {
    var current = currentStep();
    var number = current ? numberOf(current) : (forward ? 0 : Infinity);
    var list = errorSteps();
    var target = null;
    for (var i = 0; i < list.length; i++) {
      if (forward && list[i] > number) { target = list[i]; break; }
      if (!forward && list[i] < number) target = list[i];
    }
    if (target !== null) goToNumber(target);
  }
  function toggleOutputs() {
    var step = currentStep();
    if (!step) return;
    var outputs = step.querySelectorAll("details.output");
    var anyClosed = Array.prototype.some.call(outputs, function (d) { return !d.open; });
    outputs.forEach(function (d) { d.open = anyClosed; });
  }
  function follow(selector) {
    var link = document.querySelector(selector);
    if (link) location.href = link.href;
  }
  function focusSearch() {
    var input = document.getElementById("search-input");
    if (input && input.offsetParent !== null) { input.focus(); input.select(); return true; }
    return false;
  }

  // a page opened at a step: its navigator entry is current, and in sight, from the start
  if (active) {
    lastHash = null;
    markCurrent(active);
  }

  var scrollPending = false;
  if (document.querySelector("li.step")) {
    window.addEventListener("scroll", function () {
      if (scrollPending) return;
      scrollPending = true;
      setTimeout(function () { scrollPending = false; markCurrent(currentStep()); }, 150);
    }, { passive: true });
  }

  // A step shown without taking the focus (the scrubber keeps it while it moves).
  function showStep(step) {
    active = step;
    for (var el = step.parentElement; el; el = el.parentElement) { if (el.tagName === "DETAILS") el.open = true; }
    step.scrollIntoView({ block: "start" });
    markCurrent(step);
  }
  // ---- What session-ui.js (scrubber, step jump, copy link) builds on.
  window.ReplaySession = {
    map: map, goToNumber: goToNumber, showStep: showStep, numberOf: numberOf, measureTopbar: measureTopbar,
    active: function () { return active; },
    onCurrent: function (listener) { currentListeners.push(listener); }
  };

  // ---- Keys, and a dialog listing them.
  var KEYS = [
    ["j", "next step"], ["k", "previous step"],
    ["e", "next step with an error (on any page of the session)"], ["E", "previous step with an error"],
    ["o", "open or close the current step's outputs"],
    ["]", "next session"], ["[", "previous session"],
    ["/", "focus the search box"], ["?", "show this list"], ["Esc", "close this list"]
  ];
  var dialog = null, returnFocus = null;
  function keysDialog() {
    if (dialog) return dialog;
    dialog = document.createElement("dialog");
    dialog.className = "keys-dialog";
    dialog.setAttribute("aria-labelledby", "keys-title");
    var title = document.createElement("h2");
    title.id = "keys-title";
    title.textContent = "Keyboard shortcuts";
    var list = document.createElement("dl");
    KEYS.forEach(function (pair) {
      var dt = document.createElement("dt");
      var kbd = document.createElement("kbd");
      kbd.textContent = pair[0];
      dt.appendChild(kbd);
      var dd = document.createElement("dd");
      dd.textContent = pair[1];
      list.appendChild(dt);
      list.appendChild(dd);
    });
    var close = document.createElement("button");
    close.type = "button";
    close.textContent = "Close";
    close.addEventListener("click", function () { dialog.close(); });
    dialog.appendChild(title);
    dialog.appendChild(list);
    dialog.appendChild(close);
    // a modal <dialog> makes the page behind it inert (the focus stays inside) and closes on Esc
    dialog.addEventListener("close", function () { if (returnFocus && returnFocus.focus) returnFocus.focus(); });
    body.appendChild(dialog);
    return dialog;
  }
  function showKeys() {
    returnFocus = document.activeElement;
    var d = keysDialog();
    if (!d.open) d.showModal();
    d.querySelector("button").focus();
  }

  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) {
      if (e.key === "Escape" && t.id === "search-input") t.blur();
      return;
    }
    if (dialog && dialog.open) return;
    if (e.key === "Escape" && navToggle && body.classList.contains("nav-open")) {
      setDrawer(false);
      navToggle.focus();
      return;
    }
    var handled = true;
    switch (e.key) {
      case "j": moveStep(1); break;
      case "k": moveStep(-1); break;
      case "e": moveError(true); break;
      case "E": moveError(false); break;
      case "o": toggleOutputs(); break;
      case "]": follow('.pager a[rel="next"]'); break;
      case "[": follow('.pager a[rel="prev"]'); break;
      case "/": handled = focusSearch(); break;
      case "?": showKeys(); break;
      default: handled = false;
    }
    if (handled) e.preventDefault();
  });
})();

// The session page's own tools, loaded by app.js beside it (inlined after it in a single-file
// export): the time scrubber, the jump to a step and "copy link". Progressive enhancement
// only; it builds on what app.js shares as window.ReplaySession.
(function () {
  "use strict";
  var session = window.ReplaySession;
  if (!session) return;
  var map = session.map;

  // ---- The time scrubber: a click, drag or tap at a moment of the session goes to the step
  // of that moment, on whichever page holds it; arrows move a step, Page keys a twentieth of
  // the session's time, Home and End to its ends. Moments are in ten-thousandths of the
  // duration; the map samples (moment, step) and steps between samples are interpolated.
  var scrubber = document.getElementById("scrubber");
  var samples = map && map.timeline;
  session.onCurrent(scrubTo);
  var SCALE = 10000;
  var first = scrubber ? parseInt(scrubber.getAttribute("aria-valuemin"), 10) : 1;
  var last = scrubber ? parseInt(scrubber.getAttribute("aria-valuemax"), 10) : 1;
  function interpolate(value, from, to) {
    if (!samples || !samples.length) return null;
    var i = 0;
    while (i < samples.length - 1 && samples[i + 1][from] <= value) i++;
    var a = samples[i], b = samples[i + 1];
    if (!b || value <= a[from] || b[from] === a[from]) return a[to];
    return a[to] + Math.floor((value - a[from]) / (b[from] - a[from]) * (b[to] - a[to]));
  }
  function stepAt(moment) { return interpolate(moment, 0, 1); }
  function momentOf(number) { return interpolate(number, 1, 0); }
  function scrubTo(number) {
    if (!scrubber || !samples || number === null) return;
    var thumb = scrubber.querySelector(".scrub-thumb");
    thumb.setAttribute("x", String(Math.max(0, Math.min(994, momentOf(number) / 10 - 3))));
    scrubber.setAttribute("aria-valuenow", String(number));
    scrubber.setAttribute("aria-valuetext", "step " + number.toLocaleString("en-US") + " of " + last.toLocaleString("en-US"));
  }
  function land(number) {
    var here = document.getElementById("step-" + number);
    if (here) { session.showStep(here); return; }
    try { sessionStorage.setItem("replay-site:scrub", "1"); } catch (e) { /* no storage: focus stays behind */ }
    session.goToNumber(number);
  }
  if (scrubber && samples && samples.length) {
    var strip = scrubber.querySelector("svg");
    var dragging = false;
    var momentAt = function (x) {
      var box = strip.getBoundingClientRect();
      return Math.max(0, Math.min(1, (x - box.left) / box.width)) * SCALE;
    };
    var preview = function (e) {
      var number = stepAt(momentAt(e.clientX));
      scrubTo(number);
      var here = document.getElementById("step-" + number);
      if (here) session.showStep(here);
      return number;
    };
    scrubber.hidden = false;
    session.measureTopbar();
    scrubber.addEventListener("pointerdown", function (e) {
      dragging = true;
      if (scrubber.setPointerCapture) scrubber.setPointerCapture(e.pointerId);
      scrubber.focus({ preventScroll: true });
      preview(e);
      e.preventDefault();
    });
    scrubber.addEventListener("pointermove", function (e) { if (dragging) preview(e); });
    scrubber.addEventListener("pointerup", function (e) {
      if (!dragging) return;
      dragging = false;
      land(stepAt(momentAt(e.clientX)));
    });
    scrubber.addEventListener("pointercancel", function () { dragging = false; });
    scrubber.addEventListener("keydown", function (e) {
      var now = parseInt(scrubber.getAttribute("aria-valuenow"), 10);
      var to;
      switch (e.key) {
        case "ArrowRight": case "ArrowUp": to = now + 1; break;
        case "ArrowLeft": case "ArrowDown": to = now - 1; break;
        case "PageUp": to = Math.max(now + 1, stepAt(momentOf(now) + SCALE / 20)); break;
        case "PageDown": to = Math.min(now - 1, stepAt(momentOf(now) - SCALE / 20)); break;
        case "Home": to = first; break;
        case "End": to = last; break;
        default: return;
      }
      e.preventDefault();
      to = Math.max(first, Math.min(last, to));
      scrubTo(to);
      land(to);
    });
    var arrived = null;
    try { arrived = sessionStorage.getItem("replay-site:scrub"); sessionStorage.removeItem("replay-site:scrub"); } catch (e) { arrived = null; }
    // the browser's own scroll to the fragment, after the page loaded, takes the focus away
    var refocus = function () { scrubber.focus({ preventScroll: true }); };
    if (arrived) {
      refocus();
      if (document.readyState === "complete") setTimeout(refocus, 0);
      else window.addEventListener("load", function () { setTimeout(refocus, 0); });
    }
    if (session.active()) scrubTo(session.numberOf(session.active()));
  }

  // ---- A jump to any step of the session (in the pager of a long session).
  document.querySelectorAll("form.step-jump").forEach(function (form) {
    form.hidden = false;
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var number = parseInt(form.elements.step.value, 10);
      if (number >= 1) session.goToNumber(number);
    });
  });

  // ---- Copy a link to a step: the address of the page that holds it, with the step.
  var copyStatus = null;
  function copied(button, url, ok) {
    if (!copyStatus) {
      copyStatus = document.createElement("p");
      copyStatus.className = "copy-status";
      copyStatus.setAttribute("role", "status");
      document.body.appendChild(copyStatus);
    }
    copyStatus.textContent = ok ? "Copied " + url : "Could not copy; the link is " + url;
    button.textContent = ok ? "Copied" : "Not copied";
    setTimeout(function () { button.textContent = "Copy link"; copyStatus.textContent = ""; }, 3000);
  }
  function copyLink(button, number) {
    var url = location.href.split("#")[0] + "#step-" + number;
    function byCommand() {
      var box = document.createElement("textarea");
      box.value = url;
      document.body.appendChild(box);
      box.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(box);
      copied(button, url, ok);
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(url).then(function () { copied(button, url, true); }, byCommand);
    } else {
      byCommand();
    }
  }
  document.querySelectorAll("li.step > .step-head").forEach(function (head) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-link";
    button.textContent = "Copy link";
    button.setAttribute("data-step", head.parentElement.getAttribute("data-step"));
    button.setAttribute("aria-label", "Copy a link to step " + head.parentElement.getAttribute("data-step"));
    head.appendChild(button);
  });
  document.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest("button.copy-link");
    if (button) copyLink(button, parseInt(button.getAttribute("data-step"), 10));
  });
})();

// ---- Print: a ledger folded on screen (a long one starts folded) prints open, as the
// print stylesheet puts it first; it folds again afterwards.
(function () {
  "use strict";
  var ledger = document.getElementById("ledger");
  if (!ledger || ledger.open) return;
  window.addEventListener("beforeprint", function () { ledger.open = true; });
  window.addEventListener("afterprint", function () { ledger.open = false; });
})();

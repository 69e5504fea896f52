"""A 60-step session (tests/gen_long_session.py) on a 390×844 phone and on paper: a compact
header with the first step on the first screen, one-line step headers, and a print that keeps
the header and the failures first and folds routine steps (33 A4 pages before, 11 now)."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from gen_long_session import build_long_site
from test_browser import browser, watched_page  # noqa: F401  (the module's chromium fixture)

STEPS = 60
PAGES_BEFORE = 33  # A4 pages of this session's print before folding (measured with main at 0ddc5ef)


@pytest.fixture(scope="module")
def session_page(tmp_path_factory) -> Path:
    return build_long_site(tmp_path_factory.mktemp("print"), STEPS)[1]


def test_a_phone_shows_a_compact_header_and_the_failure_card_on_the_first_screen(browser, session_page):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = watched_page(context)
    page.goto(session_page.as_uri())
    # What the first screen leads to: the "what went wrong" card where the session failed (it
    # stands before the first step and links to it), else the first step itself.
    verdict = page.locator("#what-went-wrong .verdict")
    assert verdict.count() == 1 and verdict.bounding_box()["y"] + verdict.bounding_box()["height"] < 844
    # the ledger starts open where the session changed files, however long it is (issue 30)
    assert page.locator("#ledger").count() == 1 and page.locator("#ledger[open]").count() == 1
    columns = page.evaluate("getComputedStyle(document.querySelector('.summary .facts')).gridTemplateColumns")
    assert len(columns.split()) == 2
    # every step header is one line: its height is that of one line of its title
    heights = page.evaluate("""[...document.querySelectorAll('li.step > .step-head')].map(h =>
        [h.getBoundingClientRect().height, parseFloat(getComputedStyle(h.querySelector('.step-title')).lineHeight) || 21])""")
    assert heights and all(height <= 1.6 * line for height, line in heights)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.errors == [] and page.remote == []
    context.close()


def test_print_keeps_the_header_and_failures_first_and_folds_routine_steps(browser, session_page):
    pypdf = pytest.importorskip("pypdf")
    context = browser.new_context()
    page = watched_page(context)
    page.goto(session_page.as_uri())
    pdf = pypdf.PdfReader(io.BytesIO(page.pdf(format="A4")))
    assert len(pdf.pages) < PAGES_BEFORE / 2
    printed = " ".join(p.extract_text() for p in pdf.pages)
    # gen_long_session: turn 6 fails ("step 6 failed"), every Read returns "def function_k(value)"
    # lines; the header and the error list come before the first step
    title = page.locator("h1").inner_text()
    assert printed.index(title[:20]) < printed.index("8 errors") < printed.index("#1 ")
    assert "step 6 failed" in printed
    assert "def function_3(value)" not in printed  # a routine output, folded
    assert "Copy link" not in printed and "Expand all" not in printed
    context.close()


def test_a_phone_shows_the_first_step_of_a_session_without_failures_on_the_first_screen(browser, data_site):
    sessions = json.loads((data_site / "sessions.json").read_text())["sessions"]
    clean = next(s for s in sessions if s["errors"] == 0 and s["steps"] >= 5 and not s["parent"])
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = watched_page(context)
    page.goto((data_site / clean["page"]).as_uri())
    assert page.locator("#what-went-wrong").count() == 0
    assert page.locator("li.step").first.bounding_box()["y"] < 844, clean["page"]
    context.close()

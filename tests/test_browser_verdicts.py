"""The "what went wrong" card and the error list on a 390×844 phone (issue 30), on the
hand-made sessions of tests/data/claude/-home-dev-verdicts (verdict_labels.json): the error
list is no scroll box (it was 84 px high and hid the failure that mattered), each entry says
what failed, and nothing scrolls sideways."""
from __future__ import annotations

from pathlib import Path

import pytest
from test_browser import browser, watched_page  # noqa: F401  (the module's chromium fixture)

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def verdict_site(tmp_path_factory) -> Path:
    from replay_site.pipeline import stages as site

    out = tmp_path_factory.mktemp("verdicts")
    site.build([DATA / "claude/-home-dev-verdicts"], out, site.BuildOptions())
    return out


def _page_of(site: Path, session_id: str) -> Path:
    return next((site / "sessions").glob(f"{session_id}*.html"))


def test_a_phone_shows_every_error_entry_and_the_card(browser, verdict_site):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = watched_page(context)
    page.goto(_page_of(verdict_site, "c5000000-0000-4000-8000-000000000001").as_uri())
    errors = page.locator("details.errors")
    if errors.get_attribute("open") is None:
        errors.locator("summary").click()
    listed = page.locator("ul.error-list")
    # not a scroll box: the list is as high as its entries, every entry in view inside it
    assert listed.evaluate("list => list.scrollHeight <= list.clientHeight + 1")
    assert listed.evaluate("list => getComputedStyle(list).overflowY") == "visible"
    # c5…01: #3 the failing pytest (exit 1), the failure that mattered, leads; then #2 the rg probe
    # (exit 2); each with the last line of its output that names a failure (pytest's summary line)
    assert page.locator("ul.error-list li").all_inner_texts() == [
        "step 3: Run the date tests: pytest -q tests/test_dates.py failed (exit 1): 1 failed, 2 passed in 0.02s",
        "step 2: Look for parse_date in the legacy folder: rg -n parse_date src/legacy failed (exit 2): rg: src/legacy: No such file or directory (os error 2)"]
    assert page.locator("ul.error-list li.mattered").inner_text().startswith("step 3:")
    card = page.locator("#what-went-wrong")
    assert card.locator(".verdict").inner_text() == "Failed at #3, fixed at #5."
    assert "Run the date tests" in card.locator("dl.failure").inner_text()
    box = card.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.errors == [] and page.remote == []
    context.close()


def test_a_phone_shows_a_refusal_as_declined(browser, verdict_site):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = watched_page(context)
    page.goto(_page_of(verdict_site, "c5000000-0000-4000-8000-000000000002").as_uri())
    card = page.locator("#what-went-wrong")
    assert card.locator(".verdict").inner_text() == "Declined by the user at #2, nothing else failed."
    assert "recovered" in (card.get_attribute("class") or "")  # not the pink of a failure
    assert card.locator("table.error-groups").count() == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()

"""What an auditor sees in Chromium: the index's leading columns on screen at desktop and
phone sizes, and the ledger and the "what went wrong" card on a session page."""
from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from test_audit import _entry, audit_site  # noqa: F401 - the site of tests/data, built once per module
from test_browser import browser  # noqa: F401 - the shared Chromium fixture

RECOVER_ID = "d5000000-0000-4000-8000-00000000000a"


def _leading_headers_on_screen(browser, site: Path, width: int, height: int) -> None:  # noqa: F811
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto((site / "index.html").as_uri())
    boxes = page.evaluate("""() => [...document.querySelectorAll('table.session-table thead th')].map(th => {
        const box = th.getBoundingClientRect(); return [th.textContent.trim(), box.left, box.right, box.top, box.bottom]; })""")
    scroll_width = page.evaluate("() => document.documentElement.scrollWidth")
    page.close()
    leading = {name: box for name, *box in boxes if name in ("Title", "Outcome", "Cost", "Errors")}
    assert set(leading) == {"Title", "Outcome", "Cost", "Errors"}
    for name, (left, right, top, bottom) in leading.items():
        assert 0 <= left and right <= width and 0 <= top and bottom <= height, (name, left, right, top, bottom)
    assert scroll_width <= width  # the page itself never scrolls sideways; the table scrolls in its box


@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)])
def test_title_outcome_cost_and_errors_are_on_screen(browser, audit_site, width, height):  # noqa: F811
    _leading_headers_on_screen(browser, audit_site, width, height)


@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)])
def test_the_corpus_index_leads_with_cost_and_outcome_too(browser, built, width, height):  # noqa: F811
    out, document = built  # the whole shared corpus (conftest), whose titles and model names are real
    _leading_headers_on_screen(browser, out, width, height)
    rows = list(csv.DictReader(io.StringIO((out / "sessions.csv").read_text())))
    assert [row["id"] for row in rows] == [s["id"] for s in document["sessions"]]
    assert [row["cost_usd"] for row in rows] == ["" if s["cost_usd"] is None else str(s["cost_usd"]) for s in document["sessions"]]


def test_the_card_and_the_ledger_are_seen_before_the_steps_and_sort(browser, audit_site):  # noqa: F811
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto((audit_site / _entry(audit_site, RECOVER_ID)["page"]).as_uri())
    card, first_step = page.locator("#what-went-wrong"), page.locator("#step-1")
    assert card.is_visible() and page.locator("#ledger").is_visible()
    assert card.bounding_box()["y"] < first_step.bounding_box()["y"]
    assert page.locator("#ledger").bounding_box()["y"] < first_step.bounding_box()["y"]
    # JS sorts the commands: by exit code, descending after two clicks (the failed pytest, exit 1, first)
    header = page.locator("#ledger-commands th", has_text="Exit")
    header.click()
    header.click()
    # the command titled by its Bash description (-home-dev-recover line 4)
    assert page.locator("#ledger-commands tbody tr td.command").first.inner_text() == "Run the tests python -m pytest -q"
    # the card's jump lands on the failed step
    card.locator("a", has_text="#4").first.click()
    assert page.evaluate("() => location.hash") == "#step-4"
    page.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violations_in_the_audit_blocks(browser, audit_site, scheme):  # noqa: F811
    pytest.importorskip("axe_playwright_python")
    from test_browser_reading import serious_violations

    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    found = {}
    for name in (_entry(audit_site, RECOVER_ID)["page"], "files.html", "index.html"):
        page.goto((audit_site / name).as_uri())
        found[name] = serious_violations(page)
    context.close()
    assert all(not violations for violations in found.values()), found


def test_an_export_of_steps_2_to_4_shows_exactly_those_in_chromium(browser, tmp_path):  # noqa: F811
    from test_audit import RECOVER, runner
    from test_browser import watched_page

    from replay_site.cli.app import app

    out = tmp_path / "part.html"
    assert runner.invoke(app, ["export", str(RECOVER), "--steps", "2-4", "-o", str(out)]).exit_code == 0
    context = browser.new_context()
    page = watched_page(context)
    page.goto(out.as_uri())
    assert page.locator("li.step").evaluate_all("steps => steps.map(s => s.id)") == ["step-2", "step-3", "step-4"]
    assert "steps 2–4 of 11" in page.locator("p.part").inner_text()
    # its inline script runs from the file: the j key goes to its first step, then the next
    page.keyboard.press("j")
    assert page.evaluate("location.hash") == "#step-2"
    page.keyboard.press("j")
    assert page.evaluate("location.hash") == "#step-3"
    assert page.errors == [] and page.remote == []
    context.close()

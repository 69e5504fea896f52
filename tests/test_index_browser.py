"""The index and the charts as Chromium lays them out: the session table on the first screen,
every axis label inside its picture, no tab stop inside a chart."""
from __future__ import annotations

from pathlib import Path

import pytest
from test_browser import browser  # noqa: F401 - the shared Chromium fixture

# Every text of every chart SVG: its box in the SVG's own units, and the SVG's viewBox.
TEXT_BOXES = """() => [...document.querySelectorAll('figure.chart > svg')].map(svg => ({
  view: svg.viewBox.baseVal.width,
  height: svg.viewBox.baseVal.height,
  boxes: [...svg.querySelectorAll('text')].map(t => { const b = t.getBBox(); return [t.textContent, b.x, b.x + b.width, b.y, b.y + b.height]; }),
}))"""


@pytest.fixture
def chart_site(data_site) -> Path:
    return data_site


def chart_pages(out: Path) -> list[Path]:
    return [out / "index.html", *sorted(p for p in (out / "sessions").glob("*.html") if b'class="chart"' in p.read_bytes())]


def test_axis_labels_stay_inside_the_picture(browser, chart_site):  # noqa: F811
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    checked = 0
    for path in chart_pages(chart_site):
        page.goto(path.as_uri())
        for chart in page.evaluate(TEXT_BOXES):
            for text, left, right, top, bottom in chart["boxes"]:
                assert left >= 0 and right <= chart["view"], (path.name, text, left, right)
                assert top >= 0 and bottom <= chart["height"], (path.name, text, top, bottom)
                checked += 1
    page.close()
    assert checked > 50


def test_tabbing_never_stops_inside_a_chart(browser, chart_site):  # noqa: F811
    page = browser.new_page()
    path = next(p for p in chart_pages(chart_site) if "session_example" in p.name)  # a reward chart
    page.goto(path.as_uri())
    stops = page.evaluate("() => document.querySelectorAll('a[href], button, input, summary, [tabindex]').length")
    inside = 0
    for _ in range(stops + 2):
        page.keyboard.press("Tab")
        inside += page.evaluate("() => !!(document.activeElement && document.activeElement.closest('svg'))")
    page.close()
    assert inside == 0


@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)])
def test_the_session_table_starts_on_the_first_screen(browser, chart_site, width, height):  # noqa: F811
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto((chart_site / "index.html").as_uri())
    # the table's header and at least its first row are visible without scrolling
    first_row = page.evaluate("() => document.querySelector('table.session-table tbody tr').getBoundingClientRect().bottom")
    page.close()
    assert first_row <= height

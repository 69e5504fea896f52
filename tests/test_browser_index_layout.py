"""The index never scrolls sideways (issue 30): at 1280×800 the session table fits the page
whole, and on a 390×844 phone the page does not scroll (the table scrolls in its own box);
project and model names wrap only at their separators, never mid-word. On two Claude Code
sessions written here from tests/data/claude/-home-dev-clean with long project folders and a
long model name."""
from __future__ import annotations

from pathlib import Path

import pytest
from test_browser import browser, watched_page  # noqa: F401  (the module's chromium fixture)

CLEAN = Path(__file__).parent / "data/claude/-home-dev-clean/d1000000-0000-4000-8000-000000000001.jsonl"
PROJECTS = ("customer-analytics-platform-backend-services-monorepo-experimental",
            "infrastructure_terraform_modules_for_multi_region_kubernetes_clusters")
MODEL = "claude-sonnet-4-5-20250929-experimental-extended-context-preview"


@pytest.fixture(scope="module")
def long_names_site(tmp_path_factory) -> Path:
    from replay_site.pipeline import stages as site

    root = tmp_path_factory.mktemp("long-names")
    text = CLEAN.read_text()
    for n, project in enumerate(PROJECTS, 1):
        session_id = f"d1000000-0000-4000-8000-00000000077{n}"
        folder = root / "logs" / ("-home-dev-" + project.replace("_", "-"))
        folder.mkdir(parents=True)
        (folder / f"{session_id}.jsonl").write_text(text.replace("/home/dev/clean", f"/home/dev/{project}")
                                                    .replace("claude-sonnet-4-5-20250929", MODEL)
                                                    .replace("d1000000-0000-4000-8000-000000000001", session_id))
    site.build([root / "logs"], root / "site", site.BuildOptions())
    return root / "site"


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_the_index_has_no_sideways_scroll(browser, long_names_site, width, height):
    phone = width < 600
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone)
    page = watched_page(context)
    page.goto((long_names_site / "index.html").as_uri())
    assert page.evaluate("document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth")
    if not phone:  # every column on screen, none behind a scroll box
        assert page.evaluate("(() => { const t = document.querySelector('table.session-table');"
                             " return t.getBoundingClientRect().right <= document.documentElement.clientWidth; })()")
    cells = page.locator("td.project, td.models")
    assert cells.count() == 4
    for index in range(cells.count()):
        cell = cells.nth(index)
        style = cell.evaluate("td => [getComputedStyle(td).overflowWrap, getComputedStyle(td).wordBreak]")
        assert style == ["normal", "normal"]  # wrapped at <wbr> and hyphens only
        assert cell.evaluate("td => td.scrollWidth <= td.clientWidth")  # and no word spills out
    assert MODEL in page.locator("td.models").first.inner_text().replace("\n", "")
    assert page.errors == [] and page.remote == []
    context.close()

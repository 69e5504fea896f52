"""An index that scales: whatever the number of sessions, the first page of the index and the
search files a first search loads stay under 1 MB. The session table is cut into pages of
paging.INDEX_ROWS rows (index.html, index-2.html, ...), each with the totals over every
session; the search's session table keeps SESSION_CHUNK rows in assets/search-index.js and the
rest in assets/search/sessions/<k>.js. Measured on 5,000 synthetic summaries
(tests/synthetic_summaries.py); the 100,000-row figures are in the README ("Org scale")."""
from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from bs4 import BeautifulSoup
from synthetic_summaries import summaries
from test_browser import browser, watched_page  # noqa: F401  (the module's chromium fixture)

from replay_site.pipeline import stages as pipeline
from replay_site.pipeline.order import site_order
from replay_site.figures.totals import site_figures
from replay_site.pages import paging, search, views_index
from replay_site.pages.render import Renderer

MB = 1_000_000
DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def five_thousand(tmp_path_factory):
    rows = site_order(summaries(5000))
    renderer = Renderer("default", "Agent sessions", "test prices")
    pages = dict(renderer.index_pages(rows, site_figures(rows), []))
    files = search.site_files(tmp_path_factory.mktemp("no-shards"), rows)
    return rows, pages, files


def test_every_index_page_and_the_first_search_file_stay_under_a_megabyte(five_thousand):
    _, pages, files = five_thousand
    assert len(pages["index.html"].encode()) < MB
    assert max(len(html.encode()) for html in pages.values()) < MB
    assert len(files["assets/search-index.js"]) < MB
    assert max(len(data) for name, data in files.items() if name.startswith("assets/search/sessions/")) < MB


def test_the_index_pages_list_every_session_once_in_the_site_order(five_thousand):
    rows, pages, _ = five_thousand
    # 5,000 rows at 400 a page: 13 pages (12 full, then 200 rows)
    assert list(pages) == ["index.html", *(f"index-{k}.html" for k in range(2, 14))]
    listed = []
    reachable = set()
    for number, name in enumerate(pages, start=1):
        soup = BeautifulSoup(pages[name], "html.parser")
        listed += [a["href"] for a in soup.select("table.session-table tbody td.title a")]
        nav = soup.select_one("nav.page-nav")
        # the window of a long session's pager: page 1 links 1-4, 6, 8, 10, 12, 13 (landmarks every 2)
        window = paging.page_window(number, 13)
        assert [a.get_text() for a in nav.select("a")] == [str(k) for k in window]
        reachable |= set(window)
        assert nav.select_one("a[aria-current=page]")["href"] == "#"
    assert listed == [row.page for row in rows] and reachable == set(range(1, 14))
    assert paging.page_window(1, 13) == [1, 2, 3, 4, 6, 8, 10, 12, 13]
    last = BeautifulSoup(pages["index-13.html"], "html.parser")
    assert "4,801–5,000 of 5,000" in last.select_one("nav.page-nav").get_text()
    assert last.select_one("a[rel=prev]")["href"] == "index-12.html"


def test_each_page_shows_the_totals_over_every_session(five_thousand):
    rows, pages, _ = five_thousand
    for name in ("index.html", "index-7.html"):
        totals = BeautifulSoup(pages[name], "html.parser").select_one("section.totals")
        assert totals.select_one(".figure").get_text() == "5,000"
        assert totals.select("div")[1].select_one(".figure").get_text() == f"{sum(r.steps for r in rows):,}"


def test_the_project_breakdown_keeps_the_projects_with_the_most_sessions(five_thousand):
    rows, pages, _ = five_thousand
    by_project = site_figures(rows).by_project  # 1,500 projects: engineer n % 500, project n % 300
    assert len(by_project) == 1500
    soup = BeautifulSoup(pages["index.html"], "html.parser")
    shown = [tr.td.get_text() for tr in soup.select("table.by-project tbody tr")]
    assert len(shown) == views_index.INDEX_PROJECTS and shown == sorted(shown)
    fewest_shown = min(by_project[name].sessions for name in shown)
    assert all(group.sessions <= fewest_shown for name, group in by_project.items() if name not in shown)
    assert "1,400 more projects in sessions.json" in soup.select_one("div.breakdowns").get_text()
    later = BeautifulSoup(pages["index-2.html"], "html.parser")  # the charts and projects: on the first page only
    assert later.select("table.by-project") == [] and later.select("div.charts") == []
    assert soup.select("div.charts figure")


def test_the_search_session_table_is_split_into_chunks_in_order(five_thousand):
    rows, _, files = five_thousand
    head = orjson.loads(files["assets/search-index.js"].removeprefix(b"window.REPLAY_SEARCH=").removesuffix(b";\n"))
    assert (head["count"], head["chunk"], len(head["sessions"])) == (5000, search.SESSION_CHUNK, search.SESSION_CHUNK)
    table = list(head["sessions"])
    for chunk in (1, 2):  # 5,000 rows at 2,000 a file: the index, then two files
        text = files[f"assets/search/sessions/{chunk}.js"].decode()
        prefix = f'(window.REPLAY_SESSIONS=window.REPLAY_SESSIONS||{{}})["{chunk}"]='
        assert text.startswith(prefix)
        table += orjson.loads(text.removeprefix(prefix).removesuffix(";\n"))
    assert [row[2] for row in table] == [row.page for row in rows]
    assert "assets/search/sessions/3.js" not in files


def test_a_small_site_keeps_one_index_page_and_one_search_table(data_site):
    assert not list(data_site.glob("index-*.html")) and not (data_site / "assets" / "search" / "sessions").exists()
    assert BeautifulSoup((data_site / "index.html").read_text(), "html.parser").select_one("nav.page-nav") is None


def test_search_finds_sessions_past_the_first_chunk_and_the_pages_link_up(browser, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setattr(search, "SESSION_CHUNK", 4)
    monkeypatch.setattr(paging, "INDEX_ROWS", 10)
    out = tmp_path / "site"
    pipeline.build([DATA], out, pipeline.BuildOptions(incremental=False))
    chunks = sorted((path.name for path in (out / "assets" / "search" / "sessions").iterdir()), key=lambda name: int(name[:-3]))
    assert chunks == [f"{k}.js" for k in range(1, 27)]  # 108 sessions, 4 a file: the index's 4, then 26 files
    number = next(i for i, line in enumerate(orjson.loads((out / "sessions.json").read_bytes())["sessions"])
                  if line["page"].startswith("sessions/legacy-mixed"))
    assert number >= 4  # the session searched for below is past the index's own rows
    context = browser.new_context()
    page = watched_page(context)
    page.goto((out / "index.html").as_uri())
    # tests/data/glue/legacy-mixed.jsonl: the assistant replies "There are two TODOs, both in `src/cache.py`."
    page.locator("#search-input").fill("two todos cache.py")
    page.locator("#search-results .hit-text").filter(has_text="two TODOs").first.wait_for()
    loaded = page.evaluate("Object.keys(window.REPLAY_SESSIONS || {})")
    assert loaded and len(loaded) < 8  # only the chunks holding candidates
    page.locator("nav.page-nav a[rel=next]").click()
    assert page.url.endswith("index-2.html")
    assert page.locator("table.session-table tbody tr").count() == 10
    assert re.search(r"11–20 of 108", page.locator("nav.page-nav").inner_text())
    assert page.errors == [] and page.remote == []
    context.close()

"""Which page holds a step, and the links between pages (paging.py)."""
import posixpath

from replay_site.pages import paging
from replay_site.pages.paging import (
    PAGE_STEPS,
    page_count,
    page_of,
    page_path,
    page_range,
    step_href,
)


def test_a_short_session_is_one_page_and_links_stay_on_it():
    assert page_count(0) == page_count(PAGE_STEPS) == 1
    assert step_href("s", PAGE_STEPS, "sessions/s.html") == f"#step-{PAGE_STEPS}"


def test_a_long_session_splits_into_numbered_pages_and_links_name_the_right_one():
    assert page_count(PAGE_STEPS + 1) == 2
    assert page_of(PAGE_STEPS + 1) == 2 and page_range(2, PAGE_STEPS + 5) == range(PAGE_STEPS + 1, PAGE_STEPS + 6)
    assert page_path("s", 1) == "sessions/s.html" and page_path("s", 3) == "sessions/s/3.html"
    # from the first page (sessions/s.html) into a later one, back, and from the index
    assert step_href("s", 9000, "sessions/s.html") == f"s/{page_of(9000)}.html#step-9000"
    assert step_href("s", 1, "sessions/s/2.html") == "../s.html#step-1"
    assert step_href("s", 9000, "index.html") == f"sessions/s/{page_of(9000)}.html#step-9000"


def test_relative_links_are_what_posixpath_relpath_gives():
    # relative() skips relpath for links from the root and within a folder: every pair of
    # these paths (odd ones included) must still give relpath's answer
    paths = ["index.html", "sessions/a.html", "sessions/a/2.html", "sessions/a/outputs/x.txt", "assets/search/a.js",
             "compare/a--b.html", "sessions/b/3.html", "sessions/./a.html", "sessions/../x.html", "sessions//a.html",
             "sessions/a/../b.html", "sessions/..", "./a.html"]
    for target in paths:
        for origin in paths:
            assert paging.relative(target, origin) == posixpath.relpath(target, posixpath.dirname(origin) or "."), (target, origin)


def test_the_pager_fits_in_the_budget_and_the_budget_stops_at_its_limit():
    # the window is at most 5 + 2 * NEIGHBOURS + LANDMARKS pages, the page itself included:
    # within SIBLING_LINKS others for any session length, so the pager is always whole
    for pages in (*range(1, 200), 1_000, 1_001, 12_345):
        for page in {1, min(2, pages), pages // 2 or 1, pages - 1 or 1, pages}:
            budget = paging.SiblingBudget(page, pages)
            window = paging.page_window(page, pages)
            assert budget.granted == set(window) and len(window) - 1 <= paging.SIBLING_LINKS, (page, pages)
    # past the window, pages are granted as asked until 25 others are: page 1 of 1,000 has
    # 1-3, landmarks 84, 168, ... 924 and 1,000 (14 others), so 11 more
    budget = paging.SiblingBudget(1, 1_000)
    assert [k for k in range(4, 80) if budget.allows(k)] == list(range(4, 15))
    assert len(budget.granted - {1}) == 25 and not budget.allows(79) and budget.allows(168) and budget.allows(1)

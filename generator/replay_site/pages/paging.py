"""Where each step of a session lives: long sessions are split into pages of steps, and which
of them a page links.

A session of up to PAGE_STEPS steps is one page, `sessions/<slug>.html`. A longer one
keeps that file as its first page and adds `sessions/<slug>/<k>.html` for pages 2..n, so a
link to the session still opens at its start and every link the site writes to a step
(`page#step-N`) names the page that holds it. Pages stay small enough for a browser to
open at once however long the session is.
"""
from __future__ import annotations

import posixpath

PAGE_STEPS = 200
# The pager of a long session shows the pages next to the current one, the first and the
# last, and at most LANDMARKS pages spread evenly between (so that any page is a few clicks
# away without JavaScript): a page's links do not grow with the number of pages.
NEIGHBOURS = 2
LANDMARKS = 12
# A page links at most SIBLING_LINKS other pages of its session whatever the session's length
# (issue 17: every page of a 50-page session linked all 50): the pager's window first, then the
# pages of the steps the page lists, first asked, first granted (SiblingBudget).
SIBLING_LINKS = 25
# The index's session table is cut the same way: `index.html` shows the first INDEX_ROWS
# sessions (and the totals over all of them), `index-<k>.html` the k-th INDEX_ROWS; each
# page stays well under 1 MB however many sessions the site holds (~1 KB a row).
INDEX_ROWS = 400


def page_count(steps: int) -> int:
    return max(1, -(-steps // PAGE_STEPS))


def page_of(step: int) -> int:
    """The page (1-based) that holds step number `step` (1-based)."""
    return max(1, -(-step // PAGE_STEPS))


def page_range(page: int, steps: int) -> range:
    """The step numbers shown on `page`."""
    first = (page - 1) * PAGE_STEPS + 1
    return range(first, min(steps, page * PAGE_STEPS) + 1)


def page_path(slug: str, page: int = 1) -> str:
    """A page's path relative to the site root."""
    return f"sessions/{slug}.html" if page == 1 else f"sessions/{slug}/{page}.html"


def atif_path(slug: str) -> str:
    """A session's ATIF trajectory (`build --atif`), beside its first page."""
    return f"sessions/{slug}.atif.json"


def index_path(page: int) -> str:
    return "index.html" if page == 1 else f"index-{page}.html"


def index_page_count(sessions: int) -> int:
    return max(1, -(-sessions // INDEX_ROWS))


def root_of(path: str) -> str:
    """The relative prefix from a site file back to the site root ('', '../', '../../')."""
    return "../" * path.count("/")


def relative(target: str, from_path: str) -> str:
    """A link from the site file `from_path` to the site file `target` (both root-relative)."""
    folder = posixpath.dirname(from_path)
    # the usual links (from the site's root, to a file in the same folder) without relpath,
    # which cost a search shard a third of its time: one link per step
    if not any(part in ("", ".", "..") for part in target.split("/")):
        if not folder:
            return target
        if target.startswith(folder + "/") and "/" not in target[len(folder) + 1:]:
            return target[len(folder) + 1:]
    return posixpath.relpath(target, folder or ".")


def step_href(slug: str, step: int, from_path: str) -> str:
    """A link to step `step` of session `slug` from the site file `from_path`."""
    target = page_path(slug, page_of(step))
    anchor = f"#step-{step}"
    return anchor if target == from_path else relative(target, from_path) + anchor


def pages_of(steps: list) -> list[list]:
    """A session's steps cut into its pages (one empty page for a session without steps)."""
    return [steps[start:start + PAGE_STEPS] for start in range(0, len(steps), PAGE_STEPS)] or [[]]


def page_window(page: int, pages: int) -> list[int]:
    """The pages the pager of `page` links: the first, the last, NEIGHBOURS either side and
    landmarks at a round stride, in order (at most 5 + 2 * NEIGHBOURS + LANDMARKS)."""
    stride = max(1, -(-pages // LANDMARKS))
    shown = {1, pages, *range(max(1, page - NEIGHBOURS), min(pages, page + NEIGHBOURS) + 1)}
    shown.update(range(stride, pages, stride))
    return sorted(shown)


class SiblingBudget:
    """The pages of its session that page `page` may link: its pager's window, then each page
    asked about until SIBLING_LINKS others are granted. An entry on a page beyond the budget is
    shown as text, which a script makes a link with the rule of `page_pattern`."""

    def __init__(self, page: int, pages: int):
        self.limit = SIBLING_LINKS
        self.granted = {page}
        for k in page_window(page, pages):
            self.allows(k)

    def allows(self, page: int) -> bool:
        if page not in self.granted and len(self.granted) <= self.limit:  # `granted` holds the page itself
            self.granted.add(page)
        return page in self.granted


def page_pattern(slug: str, from_path: str) -> dict[str, str]:
    """How a script finds page k of a session from `from_path` without a list of every page:
    page 1 is `first`, page k > 1 is `later` + k + `suffix`."""
    second = relative(page_path(slug, 2), from_path)
    return {"first": relative(page_path(slug, 1), from_path), "later": second.removesuffix("2.html"), "suffix": ".html"}

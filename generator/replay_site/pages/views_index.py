"""View models of the index's pages: which sessions a page lists, the links between pages
and the project breakdown, bounded so that a page stays small at any number of sessions."""
from __future__ import annotations

from typing import Any

from replay_site.pages import formatting, paging
from replay_site.pages.views_pages import PageLink

# Projects in the index's breakdown: an organisation's thousands would outweigh the table.
INDEX_PROJECTS = 100


def index_page_links(page: int, pages: int) -> list[PageLink]:
    """The links between the index's pages (none for a one-page index): the same window as a
    long session's pager, so that a page's links do not grow with the number of pages."""
    if pages <= 1:
        return []
    window = paging.page_window(page, pages)
    return [PageLink(k, "#" if k == page else paging.index_path(k), k == page,
                     "prev" if k == page - 1 else "next" if k == page + 1 else None,
                     f"{k:,}", index > 0 and k > window[index - 1] + 1)
            for index, k in enumerate(window)]


def index_projects(by_project: dict[str, Any]) -> tuple[list[tuple[str, Any]], str]:
    """The projects the index's breakdown lists, by name: all of them, or at most
    INDEX_PROJECTS, those with the most sessions; and a line saying how many are left out."""
    if len(by_project) <= INDEX_PROJECTS:
        return list(by_project.items()), ""
    largest = sorted(by_project.items(), key=lambda item: (-item[1].sessions, item[0]))[:INDEX_PROJECTS]
    left = len(by_project) - INDEX_PROJECTS
    return sorted(largest), (f"The {INDEX_PROJECTS} projects with the most sessions; {formatting.counted(left, 'more project')} "
                             "in sessions.json.")


def index_rows_label(page: int, sessions: int) -> str:
    """Which sessions an index page lists: "501–1,000 of 5,000"."""
    first = (page - 1) * paging.INDEX_ROWS + 1
    last = min(sessions, page * paging.INDEX_ROWS)
    return f"{formatting.tokens(first)}–{formatting.tokens(last)} of {formatting.tokens(sessions)}"

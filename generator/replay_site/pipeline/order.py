"""The site's order and each page's neighbours, from the summaries alone."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from replay_site.figures.summary import SessionSummary
from replay_site.pages import paging
from replay_site.pages.render import Link, PageNav


def site_order(summaries: list[SessionSummary]) -> list[SessionSummary]:
    """Top-level sessions newest first; each followed by its descendants in reading order."""
    children = defaultdict(list)
    known = {(s.family, s.id) for s in summaries}
    for s in summaries:
        if s.parent and (s.family, s.parent) in known:
            children[(s.family, s.parent)].append(s)
    tops = [s for s in summaries if not (s.parent and (s.family, s.parent) in known)]
    tops.sort(key=lambda s: (s.started_at or "", s.page), reverse=True)
    ordered: list[SessionSummary] = []
    placed: set[str] = set()

    def add(summary: SessionSummary) -> None:
        if summary.page in placed:  # a log claiming to be its own ancestor must not loop
            return
        placed.add(summary.page)
        ordered.append(summary)
        for child in children.get((summary.family, summary.id), []):
            add(child)

    for top in tops:
        add(top)
    ordered.extend(s for s in summaries if s.page not in placed)
    return ordered


def navigation(summaries: list[SessionSummary]) -> dict[str, tuple[PageNav, SessionSummary]]:
    """Each page's slug -> its nav links (prev/next in index order, parent, children)."""
    by_id = {}
    for s in summaries:
        by_id.setdefault((s.family, s.id), s)
    navs = {}
    for index, s in enumerate(summaries):
        slug = Path(s.page).stem
        link = lambda other: Link(other.title, Path(other.page).name)  # noqa: E731 - pages are siblings
        nav = PageNav(slug)
        if index > 0:
            nav.prev = link(summaries[index - 1])
        if index + 1 < len(summaries):
            nav.next = link(summaries[index + 1])
        parent = by_id.get((s.family, s.parent))
        if s.parent and parent:
            spawned_at = parent.child_steps.get(s.id)
            nav.parent = link(parent)
            if spawned_at:  # the link goes to the step that spawned this session, on its page
                nav.parent.href = paging.step_href(Path(parent.page).stem, spawned_at, s.page)
        kids = [by_id[(s.family, cid)] for cid in s.children if (s.family, cid) in by_id]
        nav.children = {kid.id: Link(kid.title, Path(kid.page).name, kid) for kid in kids}
        navs[slug] = (nav, s)
    return navs

"""Where the pages of a session are and how one page links the others: the pager (a window of
pages, each with its steps), the page ranges for a reader without JavaScript, and the links to
steps, within the page's budget of paging.SIBLING_LINKS other pages. A step on a page beyond
the budget gets the href "": the template prints its entry as text with the step's number,
which app.js makes a link from the session map's page rule (JavaScript only adds)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from replay_site.pages import paging

StepHref = Callable[[int], str]


@dataclass
class Layout:
    """Where the pages of one session live. `single`: one page holding every step (export)."""

    slug: str
    steps: int
    single: bool = False
    first: int = 1  # a single page of part of a session starts at its first step's number
    _prefixes: dict[tuple[int, str], str] = field(default_factory=dict, repr=False)

    @property
    def pages(self) -> int:
        return 1 if self.single else paging.page_count(self.steps)

    def path(self, page: int) -> str:
        return paging.page_path(self.slug, page)

    def page_of(self, step: int) -> int:
        return 1 if self.single else paging.page_of(step)

    def steps_of(self, page: int) -> range:
        return range(self.first, self.first + self.steps) if self.single else paging.page_range(page, self.steps)

    def step_href(self, step: int, from_path: str) -> str:
        """paging.step_href, with each page-to-page link worked out once (pages link to the
        same few pages thousands of times: errors, prompts)."""
        if self.single:
            return f"#step-{step}"
        key = (self.page_of(step), from_path)
        prefix = self._prefixes.get(key)
        if prefix is None:
            prefix = self._prefixes[key] = paging.step_href(self.slug, step, from_path).partition("#")[0]
        return f"{prefix}#step-{step}"

    def linker(self, page: int) -> StepHref:
        """Page `page`'s links to steps: "" for a step on a page beyond its budget. The budget
        goes to the pages asked about first, so a page asks in the order its entries matter."""
        path = self.path(page)
        budget = paging.SiblingBudget(page, self.pages)
        return lambda step: self.step_href(step, path) if budget.allows(self.page_of(step)) else ""


@dataclass
class StepLink:
    number: int
    href: str  # "" beyond the page's budget: shown as text
    label: str


@dataclass
class PageLink:
    number: int
    href: str
    current: bool
    rel: str | None  # prev | next for the neighbouring pages
    label: str  # "48 · 9,401–9,600"
    gap_before: bool  # pages left out of the window between this link and the one before


@dataclass
class PageRanges:
    """Where the steps are, for a reader without JavaScript (a link to a step on another page
    lands at the top of this one): every page's range, or the rule alone in a very long session."""

    here: str
    others: list[str]  # "page 48: steps 9,401–9,600"
    rule: str


def relinked_chart(chart: Any, href: StepHref) -> Any:
    """A chart whose data table links each row's first step on the page holding it."""
    for row in chart.rows:
        if row.step is not None:
            row.href = href(row.step)
    return chart


def range_text(steps: range) -> str:
    return f"{steps.start:,}–{steps.stop - 1:,}" if len(steps) > 1 else f"{steps.start:,}"


def page_links(layout: Layout, page: int, path: str) -> list[PageLink]:
    if layout.pages <= 1:
        return []
    window = paging.page_window(page, layout.pages)
    return [PageLink(k, "#" if k == page else paging.relative(layout.path(k), path), k == page,
                     "prev" if k == page - 1 else "next" if k == page + 1 else None,
                     f"{k} · {range_text(layout.steps_of(k))}", index > 0 and k > window[index - 1] + 1)
            for index, k in enumerate(window)]


# Pages listed one by one for a reader without JavaScript up to this many; beyond, the rule.
RANGES_LISTED = 60


def page_ranges(layout: Layout, page: int) -> PageRanges | None:
    if layout.pages <= 1:
        return None
    others = [f"page {k}: steps {range_text(layout.steps_of(k))}" for k in range(1, layout.pages + 1) if k != page] \
        if layout.pages <= RANGES_LISTED else []
    return PageRanges(f"This is page {page} of {layout.pages}, steps {range_text(layout.steps_of(page))}.", others,
                      f"Steps are {paging.PAGE_STEPS} to a page: step N is on page N ÷ {paging.PAGE_STEPS}, rounded up.")

"""Page view models of a session: what the session template prints, page by page.

Figures are formatted here once (formatting.py), running costs added up once as the pages come,
and every link to a step names the page that holds it (paging.py). A long session becomes
several pages of paging.PAGE_STEPS steps. The header and the session map (a few numbers per
error and per page, for the keys and old links) are on every page; the whole session's error
list and prompt outline (their first LISTED entries) only on the first, since repeating them
made the session's HTML grow with pages × errors; a later page lists its own errors and prompts
and links to the full lists. A page links at most paging.SIBLING_LINKS other pages of its
session (views_pages.py); its other entries are text that a script links.
A standalone page (export) is one page of all steps.
"""
from __future__ import annotations

import bisect
import dataclasses
import posixpath
from dataclasses import dataclass, field
from typing import Any

from replay_site.figures.failures import WhatWentWrong, WrongFold
from replay_site.figures.ledger import LedgerFold
from replay_site.figures.summary import SessionSummary, ending
from replay_site.model import CostTotal, Fact, Problem, PullRequest, Session, Step
from replay_site.pages import charts, formatting, highlight, paging, timeline, views_audit
from replay_site.pages.formatting import CostText
from replay_site.pages.views_pages import Layout, PageLink, PageRanges, StepLink, page_links, page_ranges, relinked_chart
from replay_site.pages.views_steps import (
    LinkView,
    SideFiles,
    StepEntry,
    StepViews,
    nav_entry,
    step_view,
)

# The prompt outline shows this much of each user prompt.
PROMPT_CHARS = 80
# Entries of the whole session's error list and prompt outline on its first page: past this,
# the page would grow with the session's length; every later page lists its own.
LISTED = 1_000


@dataclass
class Header:
    """The session's header, the same on every page (its links are made per page)."""

    title: str
    agent: str
    models: str
    started: str
    duration: str
    steps: str
    tool_calls: str
    errors: str
    declined: str | None  # "2 calls declined by the user": refusals, not errors
    tokens: str
    tokens_breakdown: str
    tokens_with_children: str | None
    cost: CostText
    cost_with_children: CostText | None
    unpriced_models: str
    facts: list[Fact]
    status: str | None
    outcome: tuple[str, str, str, str]  # (name, mark, word, why an unknown one is unknown)
    cwd: str | None
    git: str | None
    source: str
    warnings: str
    records: str | None  # the account of its lines, where some were of unknown kinds or skipped
    problems: list[Problem]
    local_time: bool
    relation: str
    children_not_exported: int
    redactions: list[tuple[str, str]]
    priced: bool
    description: str  # one line for link previews (Open Graph), from the figures above
    part: str | None = None  # an export of some steps: which, of how many
    pull_requests: list[LinkView] = field(default_factory=list)  # href "" when the URL is not a safe link
    kept_since: str | None = None  # the log is gone from disk: read from the archive, which keeps it since then
    atif: str | None = None  # the site path of the session's ATIF trajectory, when the build writes one (--atif)
    prompts_only: bool = False  # the log was deleted before it was archived: its prompts alone, from the agent's history


def part_note(steps: range, total: int) -> str:
    return f"steps {steps.start:,}–{steps.stop - 1:,} of {total:,}"


@dataclass
class PageView:
    number: int
    pages: int
    path: str
    root: str
    header: Header
    errors: list[StepLink]  # the whole session's on the first page, this page's on the others
    mattered: int | None  # on the first page, the step of the failure that mattered: its entry leads the list
    prompts: list[StepLink]
    errors_left: str | None  # on the first page, when its list stops at LISTED: where the rest are
    prompts_left: str | None
    all_errors: str | None  # on a later page: the link to the full list on the first page
    all_prompts: str | None
    prompt_total: str
    errors_here: str  # "N errors" of this page's list, for a later page's heading
    checkpoints: list[StepLink]
    page_links: list[PageLink]
    page_ranges: PageRanges | None
    steps_total: str
    last_step: int
    scrubber: timeline.Scrubber | None
    steps: StepViews  # made when a template first prints them
    index: list[tuple[StepEntry, str]]  # (step, navigator label)
    session_map: dict[str, Any]
    parent: LinkView | None
    children: list[LinkView]
    prev: LinkView | None
    next: LinkView | None
    charts: list[Any] = field(default_factory=list)
    # The first page's audit blocks: what went wrong (sessions with a failure) and the ledger.
    card: views_audit.CardView | None = None
    ledger: views_audit.LedgerView | None = None


def _new_facts(session: Session, summary: SessionSummary, with_usage) -> list:
    """The format's own facts, less those the header already says (a task that is the title,
    a completion its outcome says, a step count or a token total that is the header's): a
    header says each fact once."""
    said = {("Task", summary.title), ("Steps", str(summary.steps)), ("Completed", "yes" if summary.outcome == "completed" else None),
            *(("Total tokens", str(usage.total)) for usage in (session.usage, with_usage) if usage is not None)}
    return [fact for fact in session.facts if (fact.label, fact.value.replace(",", "")) not in said]


def header(session: Session, summary: SessionSummary, standalone: bool) -> Header:
    usage, cost = session.usage, session.cost
    rolled = session.rolled_up_children()
    with_usage = session.usage_with_children if rolled else None
    failed = f" ({summary.failed_tool_calls:,} failed)" if summary.failed_tool_calls else ""
    agent = summary.agent + (f" {session.agent_version}" if session.agent_version else "")
    git = " ".join(part for part in (session.git_branch, (session.git_commit or "")[:12]) if part) or None
    return Header(
        title=summary.title, agent=agent, models=", ".join(summary.models) or "—",
        started=formatting.when(session.started_at, session.local_time),
        duration=formatting.duration(session.duration_s),
        steps=f"{summary.steps:,}", tool_calls=f"{summary.tool_calls:,}{failed}",
        errors=formatting.counted(summary.errors, "error"),
        declined=formatting.counted(summary.declined, "call") + " declined by the user" if summary.declined else None,
        tokens=formatting.tokens(usage.total), tokens_breakdown=formatting.usage_breakdown(usage),
        tokens_with_children=formatting.tokens(with_usage.total) if with_usage is not None else None,
        cost=formatting.total_cost(cost),
        cost_with_children=formatting.total_cost(session.cost_with_children) if rolled else None,
        unpriced_models=", ".join(cost.unpriced_models), facts=_new_facts(session, summary, with_usage),
        status=session.status if session.status not in (summary.outcome, formatting.outcome(summary.outcome)[1]) else None,
        outcome=(summary.outcome, *formatting.outcome(summary.outcome), ending(session)[1] if summary.outcome == "unknown" else ""),
        cwd=session.cwd, git=git, source=session.source, warnings=_warnings(session.problems),
        records=formatting.records_line(session.records)
        if session.records["unknown"] or any(p.kind == "bad_line" for p in session.problems) else None,
        problems=session.problems, local_time=session.local_time, relation=session.relation.capitalize(),
        children_not_exported=len(session.children) if standalone else 0,
        redactions=[(kind, formatting.counted(count, "replacement")) for kind, count in sorted(getattr(summary, "redactions", {}).items())],
        priced=cost.priced_steps > 0,
        pull_requests=[_pull_request(pr) for pr in session.pull_requests],
        kept_since=session.kept_since,
        prompts_only=session.prompts_only,
        description=f"{agent} session, {summary.steps:,} steps, {formatting.counted(summary.errors, 'error')}, "
                    f"started {formatting.when(session.started_at, session.local_time)}",
    )


def _pull_request(pr: PullRequest) -> LinkView:
    """`#142 owner/repo`, linked to its page when the URL is a web link."""
    label = " ".join(part for part in (f"#{pr.number}" if pr.number is not None else "", pr.repository or "") if part) or pr.url
    if highlight.is_linkable(pr.url):
        return LinkView(label, pr.url)
    return LinkView(label if label == pr.url else f"{label} ({pr.url})", "")


def _warnings(problems: list[Problem]) -> str:
    skipped = sum(1 for p in problems if p.kind == "bad_line")
    unknown = sum(1 for p in problems if p.kind == "unknown_event")
    other = len(problems) - skipped - unknown
    parts = [(skipped, "skipped line"), (unknown, "unknown event"), (other, "other warning")]
    return ", ".join(formatting.counted(count, noun) for count, noun in parts if count)


@dataclass
class SessionIndex:
    """What every page needs from the whole session, gathered in one pass over its steps."""

    errors: list[tuple[int, str]]
    prompts: list[tuple[int, str]]
    checkpoints: list[tuple[int, str]]
    priced: bool  # some step has a price: every step shows the running total
    error_steps: list[int] = field(default_factory=list)  # the numbers of `errors`, for bisecting per page
    # when priced, the running total before each page's first step: a range of pages rendered
    # on its own goes on from there (build/session_files.py), the float sums added in order
    costs_before: list[CostTotal] = field(default_factory=list)

    def cost_before(self, page: int) -> CostTotal | None:
        return self.costs_before[page - 1] if self.priced else None

    def errors_on(self, steps: range) -> list[tuple[int, str]]:
        return _within(self.errors, steps)

    def prompts_on(self, steps: range) -> list[tuple[int, str]]:
        return _within(self.prompts, steps)


def _within(numbered: list[tuple[int, str]], steps: range) -> list[tuple[int, str]]:
    """The entries of a list sorted by step number whose step is in `steps`."""
    start = bisect.bisect_left(numbered, steps.start, key=lambda entry: entry[0])
    stop = bisect.bisect_left(numbered, steps.stop, key=lambda entry: entry[0])
    return numbered[start:stop]


def _rebase(href: str, page_path: str) -> str:
    """A nav link written relative to sessions/ (PageNav), made relative to `page_path`."""
    target, hash_mark, fragment = href.partition("#")
    rebased = paging.relative(posixpath.normpath(posixpath.join("sessions", target)), page_path)
    return rebased + hash_mark + fragment


def _link(link: Any, page_path: str) -> LinkView | None:
    if link is None:
        return None
    return LinkView(link.title, _rebase(link.href, page_path), child_figures(link.summary) if getattr(link, "summary", None) else "")


def child_figures(child: SessionSummary) -> str:
    parts = [formatting.counted(child.steps, "step"), formatting.counted(child.tool_calls, "tool call"),
             formatting.counted(child.errors, "error")]
    cost = formatting.summary_cost(child)
    if cost.mark != "none":
        parts.append(cost.text)
    return " · ".join(parts)


@dataclass
class SessionDigest:
    """What every page of a session needs from all of its steps, worked out while the whole
    session is in memory (the build's first pass), so that its pages can then be made from
    one page of steps at a time."""

    steps: int
    local_time: bool
    header: Header
    index: SessionIndex
    charts: list[Any]  # the first page's charts; their links to steps are `#step-N` until placed
    ledger: views_audit.LedgerHead
    wrong: WhatWentWrong | None
    timeline: timeline.Timeline | None = None


def digest(session: Session, summary: SessionSummary, standalone: bool = False, folded: StepFolds | None = None) -> SessionDigest:
    """`folded`: what needs the steps' texts, gathered already (the session's steps being
    StepFigures)."""
    if folded is None:
        folded = StepFolds()
        for step in session.steps:
            folded.add(step)
    shown = [chart for chart in (charts.cost_bars(session), charts.reward_bars(session)) if chart]
    return SessionDigest(len(session.steps), session.local_time, header(session, summary, standalone),
                         folded.index(session.cost.priced_steps > 0), shown, views_audit.ledger_head(folded.ledger.ledger()), folded.wrong.result(summary.outcome),
                         timeline.timeline(session))


class StepFolds:
    """What a session's pages need from its steps' texts, calls and outputs, told one step at
    a time: the ledger, what went wrong, the lists of errors, prompts and checkpoints."""

    def __init__(self) -> None:
        self.ledger, self.wrong = LedgerFold(), WrongFold()
        self._errors: list[tuple[int, str]] = []
        self._prompts: list[tuple[int, str]] = []
        self._checkpoints: list[tuple[int, str]] = []
        # the running total before each page's first step (SessionIndex.costs_before), kept
        # whether or not a step turns out priced: that is known at the end
        self._costs_before: list[CostTotal] = []
        self._running = CostTotal()
        self._added = 0

    def add(self, step: Step) -> None:
        if self._added % paging.PAGE_STEPS == 0:
            self._costs_before.append(dataclasses.replace(self._running))
        self._running.add(step.cost, step.model)
        self._added += 1
        self.ledger.add(step)
        self.wrong.add(step)
        if step.error_count:
            self._errors.append((step.number, views_audit.error_label(step)))
        if step.kind == "user" and not step.collapsed and (step.text or step.title):
            self._prompts.append((step.number, formatting.first_line(step.text or step.title or "", PROMPT_CHARS)))
        if step.checkpoint:
            self._checkpoints.append((step.number, step.checkpoint))

    def index(self, priced: bool) -> SessionIndex:
        return SessionIndex(self._errors, self._prompts, self._checkpoints, priced, [number for number, _ in self._errors],
                            self._costs_before if priced else [])


def page_view(whole: SessionDigest, layout: Layout, page: int, page_steps: list[Step], nav: Any,
              side: SideFiles, shard: str | None, running: formatting.RunningCost) -> PageView:
    """Page `page` of a session from its steps; `running` has seen every step before them
    (pages come in order)."""
    path = layout.path(page)
    shown = layout.steps_of(page)
    index, head = whole.index, whole.header
    if len(page_steps) != len(shown) or (page_steps and page_steps[0].number != shown.start):
        raise ValueError(f"page {page} of {layout.slug or 'the session'} got steps other than its own")
    first = "" if page == 1 else paging.relative(layout.path(1), path)
    errors = index.errors[:LISTED] if page == 1 else index.errors_on(shown)
    mattered = whole.wrong.first.step if page == 1 and whole.wrong and whole.wrong.first else None
    lead = next((entry for entry in index.errors if entry[0] == mattered), None) if mattered else None
    if lead:  # the card's pick first, then the rest in step order (README, "What went wrong")
        errors = [lead, *(entry for entry in errors if entry[0] != mattered)][:LISTED]
    prompts = index.prompts[:LISTED] if page == 1 else index.prompts_on(shown)
    # The page's budget of linked pages goes first to the pager's window (layout.linker), then
    # to the card's steps and each error group's first and last, then to the lists in the
    # order they are printed: the entries made first are linked first.
    href = layout.linker(page)
    card = views_audit.card_view(whole.wrong, href) if page == 1 and whole.wrong else None
    checkpoints = [StepLink(n, href(n), f"{name} (step {n})") for n, name in index.checkpoints]
    error_links = [StepLink(n, href(n), f"step {n}: {label}") for n, label in errors]
    ledger_block = views_audit.ledger_view(whole.ledger, href) if page == 1 and (whole.ledger.files or whole.ledger.commands) else None
    shown_charts = [relinked_chart(chart, href) for chart in whole.charts] if page == 1 else []
    prompt_links = [StepLink(n, href(n), f"#{n} {text}") for n, text in prompts]
    children = {cid: _link(link, path) for cid, link in nav.children.items()} if nav else {}
    costs = [running.after(step) for step in page_steps] if index.priced else [None] * len(page_steps)
    steps = StepViews(page_steps, lambda step, cost: step_view(step, side, path, whole.local_time, cost, children), costs)
    prev_link, next_link = (_link(nav.prev, path), _link(nav.next, path)) if nav else (None, None)
    session_map = {
        "pages": {"size": whole.steps if layout.single else paging.PAGE_STEPS, "steps": whole.steps,
                  **({"first": "", "later": "", "suffix": ""} if layout.single else paging.page_pattern(layout.slug, path))},
        "errors": _errors_near(index.error_steps, shown),
        "timeline": whole.timeline.samples if whole.timeline else None,
        "prev": prev_link.href if prev_link else None,
        "next": next_link.href if next_link else None,
        "shard": paging.root_of(path) + shard if shard else None,  # site-relative -> from this page
    }
    return PageView(
        number=page, pages=layout.pages, path=path, root=paging.root_of(path), header=head,
        errors=error_links, mattered=mattered if lead else None, prompts=prompt_links,
        errors_left=_left(len(errors), len(index.errors), "error") if page == 1 else None,
        prompts_left=_left(len(prompts), len(index.prompts), "prompt") if page == 1 else None,
        all_errors=f"{first}#errors" if first and index.errors else None,
        all_prompts=f"{first}#prompts" if first and index.prompts else None,
        prompt_total=formatting.counted(len(index.prompts), "prompt"),
        errors_here=formatting.counted(len(errors), "error"),
        checkpoints=checkpoints, page_links=page_links(layout, page, path), page_ranges=page_ranges(layout, page),
        steps_total=formatting.counted(whole.steps, "step"), last_step=whole.steps,
        scrubber=timeline.scrubber(whole.timeline, shown) if whole.timeline and shown else None,
        steps=steps, index=[nav_entry(step) for step in page_steps],
        session_map=session_map, parent=_link(nav.parent, path) if nav else None,
        children=[link for link in children.values() if link], prev=prev_link, next=next_link,
        charts=shown_charts, card=card, ledger=ledger_block,
    )


def _left(listed: int, total: int, noun: str) -> str | None:
    """What a first page's capped list leaves to the pages that hold the rest."""
    if listed >= total:
        return None
    return f"The first {listed:,} of {total:,} {noun}s are listed here; each page of the session lists its own."


def _errors_near(numbers: list[int], shown: range) -> list[int]:
    """The error steps a page's keys need: its own, and the nearest before and after it (the
    page there has its own), so that the map does not grow with the session's length."""
    start = bisect.bisect_left(numbers, shown.start)
    stop = bisect.bisect_left(numbers, shown.stop)
    return numbers[max(start - 1, 0):stop + 1]

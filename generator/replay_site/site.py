"""The build pipeline: discover -> read -> price -> summarize -> render -> write.

Reading and rendering a session is a function of that session alone, so sources can be
processed independently (in parallel, or skipped when unchanged, later). A first pass
keeps only small summaries, which fix the site's order and each page's neighbours; the
second pass reads each source again and writes its pages, one family in memory at a time.
"""
from __future__ import annotations

import traceback
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from . import __version__
from .compare_site import ComparePicker, write_comparisons
from .costs import PriceBook, price_session, pricing_source
from .discover import default_roots, discover, pick_readers
from .model import CostTotal, Problem, Session
from .readers import SessionSource, registry
from .render import Link, PageNav, Renderer
from .summary import SessionSummary, page_slug, summarize
from .totals import site_figures

Progress = Callable[[int, int], None]


@dataclass
class BuildOptions:
    format: str = "auto"
    theme: str = "default"
    title: str = "Agent sessions"
    prices: PriceBook | None = None
    compare: list[str] = field(default_factory=list)  # "A:B" pairs -> compare/<a>--<b>.html


@dataclass
class BuildResult:
    out: Path
    summaries: list[SessionSummary] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def steps(self) -> int:
        return sum(s.steps for s in self.summaries)


def examples_dir() -> Path:
    """The bundled example sessions (tests/data in a checkout, replay_site/examples in the wheel)."""
    bundled = Path(__file__).parent / "examples"
    return bundled if bundled.is_dir() else Path(__file__).resolve().parents[2] / "tests" / "data"


def default_sources(format_name: str = "auto") -> list[Path]:
    return default_roots(pick_readers(format_name))


def read_source(source: SessionSource, book: PriceBook | None) -> tuple[list[Session], list[Problem]]:
    """Read and price one source. A reader that fails is a reported problem, never a failed build."""
    try:
        sessions = registry()[source.format].read(source)
    except Exception as exc:  # a reader bug on one odd file must not cost the user the whole site
        detail = traceback.format_exception_only(exc)[-1].strip()
        return [], [Problem("warning", f"could not be read ({detail}); skipped", source.rel)]
    for session in sessions:
        price_session(session, book)
    return sessions, []


def _order(summaries: list[SessionSummary]) -> list[SessionSummary]:
    """Top-level sessions newest first; each followed by its descendants in reading order."""
    children = defaultdict(list)
    known = {s.id for s in summaries}
    for s in summaries:
        if s.parent and s.parent in known:
            children[s.parent].append(s)
    tops = [s for s in summaries if not (s.parent and s.parent in known)]
    tops.sort(key=lambda s: (s.started_at or "", s.page), reverse=True)
    ordered: list[SessionSummary] = []

    def add(summary: SessionSummary) -> None:
        ordered.append(summary)
        for child in children.get(summary.id, []):
            add(child)

    for top in tops:
        add(top)
    return ordered


def build(roots: list[Path], out: Path, options: BuildOptions, progress: Progress | None = None) -> BuildResult:
    from .writer import SiteWriter

    readers = pick_readers(options.format)
    result = BuildResult(out)
    sources = discover(roots, readers, result.problems)
    agents = {name: reader.label for name, reader in registry().items()}

    picker = ComparePicker(options.compare)  # checks the pairs' syntax before any work

    # Pass 1: summaries only.
    for index, source in enumerate(sources):
        sessions, problems = read_source(source, options.prices)
        result.problems.extend(problems)
        for top in sessions:
            for session in top.walk():
                slug = page_slug(session, session.source)
                result.summaries.append(summarize(session, agents.get(session.format, session.format), f"sessions/{slug}.html"))
                result.problems.extend(session.problems)
                picker.offer(source, session, slug, session is top)
        if progress:
            progress(index + 1, 2 * len(sources))
    result.summaries = _order(result.summaries)

    # Pass 2: pages.
    renderer = Renderer(options.theme, options.title, pricing_source(options.prices))
    writer = SiteWriter(out)
    navs = _navigation(result.summaries)
    for index, source in enumerate(sources):
        sessions, _ = read_source(source, options.prices)
        for top in sessions:
            for session in top.walk():
                slug = page_slug(session, session.source)
                summary = navs[slug][1]
                page = renderer.session_page(session, summary, navs[slug][0])
                writer.write(f"sessions/{slug}.html", page.html)
                for name, text in sorted(page.files.items()):
                    writer.write(name, text)
        if progress:
            progress(len(sources) + index + 1, 2 * len(sources))

    for name, data in renderer.static_files().items():
        writer.write(name, data)
    comparisons = write_comparisons(picker, renderer, writer, lambda ref: _load_one(ref, options))
    writer.write("index.html", renderer.index_page(result.summaries, site_figures(result.summaries), comparisons))
    writer.write("sessions.json", sessions_json(result.summaries, renderer))
    writer.finish()
    return result


def _load_one(reference: str, options: BuildOptions) -> Session:
    """A log named by --compare that is not among the built sources."""
    from .catalog import load_session  # catalog builds on this module

    return load_session(reference, [], options.format, options.prices)


def _navigation(summaries: list[SessionSummary]) -> dict[str, tuple[PageNav, SessionSummary]]:
    """Each page's slug -> its nav links (prev/next in index order, parent, children)."""
    by_id = {}
    for s in summaries:
        by_id.setdefault(s.id, s)
    navs = {}
    for index, s in enumerate(summaries):
        slug = Path(s.page).stem
        link = lambda other: Link(other.title, Path(other.page).name)  # noqa: E731 - pages are siblings
        nav = PageNav(slug)
        if index > 0:
            nav.prev = link(summaries[index - 1])
        if index + 1 < len(summaries):
            nav.next = link(summaries[index + 1])
        if s.parent and s.parent in by_id:
            nav.parent = link(by_id[s.parent])
        nav.children = {cid: Link(by_id[cid].title, Path(by_id[cid].page).name, by_id[cid]) for cid in s.children if cid in by_id}
        navs[slug] = (nav, s)
    return navs


def sessions_json(summaries: list[SessionSummary], renderer: Renderer) -> bytes:
    document = {
        "generator": f"replay-site {__version__}",
        "pricing": renderer.env.globals["pricing"],
        "sessions": [s.to_json() for s in summaries],
    }
    return orjson.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)

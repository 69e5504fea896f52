"""The build pipeline: discover -> read -> price -> summarize -> render -> write.

Reading and rendering a session is a function of that session alone, so sources are
processed independently: in worker processes (`jobs`), and not at all when the cache says
they are unchanged (cache.py). A first pass keeps only small summaries, which fix the
site's order and each page's neighbours; the second pass reads each source again and
writes its pages, one family in memory at a time.
"""
from __future__ import annotations

import multiprocessing
import os
import traceback
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path

import orjson

from . import __version__, paging, search
from .cache import BuildCache, settings_key
from .compare_site import ComparePicker, write_comparisons
from .costs import PriceBook, price_session, pricing_source
from .discover import default_roots, discover, pick_readers
from .model import Problem, Session
from .readers import SessionSource, registry
from .redact import redact_session
from .render import Link, PageNav, Renderer, theme_search_path
from .summary import SessionSummary, page_slug, summarize
from .totals import site_figures
from .workers import WorkerPool
from .writer import FolderWriter, SiteWriter

Progress = Callable[[int, int], None]


@dataclass
class BuildOptions:
    format: str = "auto"
    theme: str = "default"
    title: str = "Agent sessions"
    prices: PriceBook | None = None
    compare: list[str] = field(default_factory=list)  # "A:B" pairs -> compare/<a>--<b>.html
    jobs: int = 1  # worker processes; 0 = one per core when the build is large enough
    redact: bool = True  # replace credentials in every text before rendering (redact/)
    redact_patterns: tuple[str, ...] = ()  # user regexes redacted as well (--redact-pattern)
    incremental: bool = True  # reuse what the last build of the same folder learned (cache.py)
    force: bool = False  # build into a folder holding files replay-site did not write (kept as they are)


@dataclass
class BuildResult:
    out: Path
    summaries: list[SessionSummary] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def steps(self) -> int:
        return sum(s.steps for s in self.summaries)


def examples_dir() -> Path:
    """The bundled example sessions: one clean, realistic session per format, package data
    (tests/data holds the deliberately broken fixtures, never shipped)."""
    return Path(__file__).parent / "examples"


def default_sources(format_name: str = "auto") -> list[Path]:
    return default_roots(pick_readers(format_name))


def read_source(source: SessionSource, book: PriceBook | None, redact: bool = True,
                redact_patterns: tuple[str, ...] = ()) -> tuple[list[Session], list[Problem]]:
    """Read, price and (if asked) redact one source. A reader that fails is a reported
    problem, never a failed build."""
    try:
        sessions = registry()[source.format].read(source)
    except Exception as exc:  # a reader bug on one odd file must not cost the user the whole site
        detail = traceback.format_exception_only(exc)[-1].strip()
        return [], [Problem("warning", f"could not be read ({detail}); skipped", source.rel)]
    for session in sessions:
        price_session(session, book)
        if redact:
            redact_session(session, redact_patterns)
    return sessions, []


def _order(summaries: list[SessionSummary]) -> list[SessionSummary]:
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


def build(roots: list[Path], out: Path, options: BuildOptions, progress: Progress | None = None) -> BuildResult:
    """Build the site in a staging folder and publish it whole (writer.py): a build that
    fails or is stopped leaves the previous site as it was."""
    with SiteWriter(out, roots, options.force) as writer:
        result = _build(roots, writer, options, progress)
    result.problems.extend(Problem("warning", "not written by replay-site, so left in place", path)
                           for path in writer.leftovers)
    return result


def _build(roots: list[Path], writer: SiteWriter, options: BuildOptions, progress: Progress | None) -> BuildResult:
    out = writer.out
    result = BuildResult(out)
    sources = discover(roots, pick_readers(options.format), result.problems)
    picker = ComparePicker(options.compare)  # checks the pairs' syntax before any work
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, 2 * len(sources))

    cache = BuildCache(out, _cache_key(options), enabled=options.incremental)
    with _executor(options.jobs, len(sources)) as pool:
        # Pass 1: summaries, from the cache for unchanged sources (a --compare pair needs the
        # sessions themselves, so then every source is read).
        per_source: list[tuple[list[SessionSummary], list[Problem]]] = []
        stale: list[int] = []
        for index, source in enumerate(sources):
            cached = None if options.compare else cache.summaries(source)
            per_source.append(cached or ([], []))
            if cached is None:
                stale.append(index)
            else:
                tick()
        work = pool.map(partial(_summarize_source, options=options), [sources[i] for i in stale])
        for index, (summaries, problems, offered) in zip(stale, work):
            per_source[index] = (summaries, problems)
            picker.merge(offered)
            tick()
        for summaries, problems in per_source:
            result.summaries.extend(summaries)
            result.problems.extend(problems)
        result.summaries = _order(result.summaries)

        # Pass 2: pages, each worker writing its own files atomically; a source whose pages
        # would come out the same is left as it is.
        all_navs = _navigation(result.summaries)
        tasks = []
        for index, source in enumerate(sources):
            navs = {Path(s.page).stem: all_navs[Path(s.page).stem] for s in per_source[index][0]}
            kept = cache.unchanged_pages(source, navs, out)
            if kept is None or not writer.keep(kept):
                tasks.append((index, (source, navs)))
                continue
            cache.remember(source, *per_source[index], navs, kept)
            tick()
        pages = pool.map(partial(_write_source_pages, options=options, out=writer.root), [task for _, task in tasks])
        for (index, (source, navs)), (written, problems) in zip(tasks, pages):
            writer.written |= written
            result.problems.extend(problems)
            cache.remember(source, *per_source[index], navs, sorted(written))
            tick()

    renderer = _renderer(options.theme, options.title, pricing_source(options.prices))
    for name, data in renderer.static_files().items():
        writer.write(name, data)
    comparisons = write_comparisons(picker, renderer, writer, lambda ref: _load_one(ref, options))
    writer.write("index.html", renderer.index_page(result.summaries, site_figures(result.summaries), comparisons))
    writer.write("sessions.json", sessions_json(result.summaries, renderer))
    for name, data in search.site_files(writer.root, result.summaries).items():
        writer.write(name, data)
    writer.finish()
    cache.save()
    return result


def _cache_key(options: BuildOptions) -> str:
    """Everything besides the logs that shapes the pages."""
    settings = {"format": options.format, "title": options.title, "prices": repr(options.prices),
                "pricing": pricing_source(options.prices), "redact": options.redact,
                "redact_patterns": list(options.redact_patterns) if options.redact else []}
    return settings_key(theme_search_path(options.theme), settings)


def _summarize_source(source: SessionSource, options: BuildOptions) -> tuple[list[SessionSummary], list[Problem], ComparePicker]:
    """Pass 1 for one source: its sessions' summaries and problems, nothing kept but what a
    --compare pair names."""
    agents = {name: reader.label for name, reader in registry().items()}
    picker = ComparePicker(options.compare)
    sessions, problems = read_source(source, options.prices, options.redact, options.redact_patterns)
    summaries = []
    for top in sessions:
        family = f"sessions/{page_slug(top, top.source)}.html"
        for session in top.walk():
            slug = page_slug(session, session.source)
            summaries.append(summarize(session, agents.get(session.format, session.format), f"sessions/{slug}.html", family))
            problems.extend(session.problems)
            picker.offer(source, session, slug, session is top)
    return summaries, problems, picker


def _write_source_pages(task: tuple[SessionSource, dict[str, tuple[PageNav, SessionSummary]]], options: BuildOptions,
                        out: Path) -> tuple[set[str], list[Problem]]:
    """Pass 2 for one source: read it again and write its pages; returns the files written
    and the pages that could only be written as an error notice."""
    source, navs = task
    renderer = _renderer(options.theme, options.title, pricing_source(options.prices))
    writer = FolderWriter(out)
    problems: list[Problem] = []
    sessions, _ = read_source(source, options.prices, options.redact, options.redact_patterns)
    for top in sessions:
        for session in top.walk():
            slug = page_slug(session, session.source)
            nav, summary = navs[slug]
            try:
                page = renderer.session_page(session, summary, nav)
            except Exception as exc:  # one unrenderable session must not cost the user the site
                detail = traceback.format_exception_only(exc)[-1].strip()
                problems.append(Problem("warning", f"page of session {session.id} could not be rendered ({detail})", session.source))
                page = renderer.failed_page(summary, nav, detail)
            writer.write(f"sessions/{slug}.html", page.html)
            for name, data in search.session_files(session, slug).items():
                writer.write(name, data)
            for name, text in sorted(page.files.items()):
                writer.write(name, text)
    return writer.written, problems


@lru_cache(maxsize=4)
def _renderer(theme: str, title: str, pricing: str) -> Renderer:
    """One renderer per process and settings: building the jinja environment is not free."""
    return Renderer(theme, title, pricing)


class _InlineExecutor:
    """The executor interface, run in this process: for one job, and small builds where
    starting worker processes costs more than it saves."""

    def __enter__(self):
        return self

    def __exit__(self, *_exc) -> None:
        return None

    @staticmethod
    def map(function, items):
        return map(function, items)


def _executor(jobs: int, sources: int):
    # Starting spawned workers costs about a second; tests/benchmark.py puts the break-even
    # near 90 sources on 2 cores, so automatic mode adds a worker per 48 sources.
    workers = jobs if jobs > 0 else min(os.cpu_count() or 1, max(1, sources // 48))
    if workers <= 1:
        return _InlineExecutor()
    # spawn, not fork: the CLI's progress bar runs a thread, and forking a threaded
    # process can deadlock the children.
    return WorkerPool(workers, multiprocessing.get_context("spawn"))


def _load_one(reference: str, options: BuildOptions) -> Session:
    """A log named by --compare that is not among the built sources."""
    from .catalog import load_session  # catalog builds on this module

    return load_session(reference, [], options.format, options.prices, options.redact, options.redact_patterns)


def _navigation(summaries: list[SessionSummary]) -> dict[str, tuple[PageNav, SessionSummary]]:
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


def sessions_json(summaries: list[SessionSummary], renderer: Renderer) -> bytes:
    document = {
        "generator": f"replay-site {__version__}",
        "pricing": renderer.env.globals["pricing"],
        "sessions": [s.to_json() for s in summaries],
    }
    return orjson.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)

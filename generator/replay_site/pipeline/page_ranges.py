"""Pass 2 for a long session: its pages cut into ranges that several workers render at once,
each range read from the spool with the session's digest (spool.read_pages), so that the
session's pages take the time of a range rather than of all of them (issue 20).

A page depends only on the digest and its own steps (the running cost goes on from the
digest's total before the page), so a range writes the very pages one worker would have. Its
part of the session's search shard goes to a file beside the spool; the build joins the
parts in page order into the shard one worker would have written (gather). A range the
renderer fails on costs its session all of its files, as a failure in one worker would: the
build takes back the other ranges' files and writes the session's notice page instead."""
from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from contextlib import suppress
from dataclasses import dataclass
from functools import partial
from itertools import groupby, pairwise
from pathlib import Path

from replay_site.pipeline import spool
from replay_site.pipeline.build_options import BuildOptions
from replay_site.runtime.task_memory import fewer_young_collections, release_freed_memory, young_collections_only
from replay_site.pipeline.session_files import write_range, write_shard
from replay_site.pipeline.source_passes import renderer_for
from replay_site.catalogue import confirm_deferred, release_scanner
from replay_site.costs import pricing_source
from replay_site.figures.summary import SessionSummary, page_slug
from replay_site.load import one_line
from replay_site.model import CostTotal, Problem
from replay_site.pages import paging, search
from replay_site.pages.render import EarlySteps, PageNav, Renderer
from replay_site.store.publish import PublishError
from replay_site.store.writer import FolderWriter, folder_writer

# A range's pages at least: a range costs a task and a read of its session's digest (~10 ms
# for 10,000 steps), a page of steps ~70 ms of rendering.
MIN_RANGE_PAGES = 2
# Each range takes this share of the pages still to cut (1 / (RANGE_SHARE * workers)), so that
# ranges shrink towards the end: a worker done early takes another, and the last ranges, which
# the build waits for, are short (pages differ in cost: the first holds the session's lists,
# some steps hold long outputs; and a worker takes its next range before it is done with the
# one it has). Equal ranges, 2 per worker, left the build process idle for a quarter of the
# pass on a 10,000-step session while its one worker wrote the range it held in reserve.
RANGE_SHARE = 2
# A build that reads in this process (-j 0 with little to read) starts workers for pass 2 when
# this many pages are to be written by range (~0.7 s of rendering; forking two workers from
# the build costs a few hundredths of that).
MIN_POOL_PAGES = 10
# A source this large is likely to hold such a session (a generated Claude Code log holds
# ~3,000 steps in 8 MiB, real ones fewer): its workers are started before it is read, and make
# ready to render meanwhile (warm_up).
LONG_SOURCE_BYTES = 8 << 20


@dataclass(frozen=True)
class PageRange:
    """Pages `pages` (from 1) of the session at `position` (from 0) of the spool file `spooled`."""

    spooled: str
    position: int
    pages: range
    nav: PageNav
    summary: SessionSummary

    @property
    def part(self) -> str:
        """Where the range's part of the session's search shard waits to be gathered."""
        return f"{self.spooled}.{self.position}.{self.pages.start}.shard"


@dataclass
class RangeWritten:
    written: set[str]
    part: search.ShardPart | None
    detail: str | None = None  # why the session could not be written: its notice page says so
    problem: Problem | None = None


def page_ranges(spooled: str, summaries: list[SessionSummary], navs: dict[str, tuple[PageNav, SessionSummary]],
                workers: int) -> Iterator[PageRange]:
    """The ranges of the sessions of one spooled source long enough to be shared among
    `workers`, by session and in page order. The spool holds a source's sessions in the order
    of its summaries (source_passes.read_and_summarize); each range checks it got its own."""
    for position, summary in enumerate(summaries):
        pages = paging.page_count(summary.steps)
        if workers < 2 or pages < 2 * MIN_RANGE_PAGES:
            continue
        nav, _ = navs[Path(summary.page).stem]
        for start, stop in pairwise(_bounds(pages, workers)):
            yield PageRange(spooled, position, range(start, stop), nav, summary)


def _bounds(pages: int, workers: int) -> list[int]:
    """Where ranges of pages 1..`pages` start, then where the last stops: each range a share
    of what is left (RANGE_SHARE), none shorter than MIN_RANGE_PAGES."""
    bounds, start = [1], 1
    while (left := pages + 1 - start) >= 2 * MIN_RANGE_PAGES:
        start += max(MIN_RANGE_PAGES, -(-left // (RANGE_SHARE * workers)))
        bounds.append(start)
    return bounds + [pages + 1]


@dataclass(frozen=True)
class EarlyPages:
    """Pages `first`, `first` + 1, ... of the one session of a source pass 1 is still reading
    (read as a stream, so spooled a part at a time: source_passes._streamed), at `offsets` of
    the spool file `spooled`, with the running cost before each (None while none is priced)."""

    spooled: str
    first: int
    offsets: tuple[int, ...]
    costs_before: tuple[CostTotal | None, ...]


class PagesAhead:
    """Pass 1 of a long session, read in this process, hands its pages to pass 2's workers
    as they are spooled, and they render their steps' HTML (most of a page's cost) on the
    cores idle meanwhile (render_early); each range then takes it for the pages it was
    rendered right for (Renderer.session_pages) and renders the others itself. Pages still
    waiting when pass 1 ends are left to the ranges."""

    def __init__(self, pool, options: BuildOptions) -> None:
        self._pool, self._options = pool, options
        self._waiting: list[tuple[Future, str]] = []  # each task, and the spool file it reads

    def __call__(self, spooled: str, first: int, offsets: tuple[int, ...], costs_before: tuple[CostTotal | None, ...]) -> None:
        """Pages `first`, `first` + 1, ... are at `offsets` of `spooled` (EarlyPages)."""
        self._waiting = [(future, file) for future, file in self._waiting if not future.done()]
        task = EarlyPages(spooled, first, offsets, costs_before)
        self._waiting.append((self._pool.submit(render_early, task, self._options), spooled))

    def abandon(self, spooled: str) -> None:
        """Pages handed on from `spooled` are not to be taken: pass 1 abandoned the file (the
        session would not stream as a whole reading gives it) and reads the source whole into
        a file of the same name."""
        Path(_stopped(spooled)).touch()
        Path(_abandoned(spooled)).touch()

    def stop(self) -> None:
        """No more pages early: the ranges start now, and would otherwise render a page a
        worker is still rendering early. This process is done redacting (pages come from the
        spool): it drops the scanner's catalogue, which its workers, forked before it loaded,
        never shared (~25 MiB through pass 2 and the site-wide files), once it has scanned the
        texts put off while the catalogue loaded."""
        for future, spooled in self._waiting:
            if not (future.done() or future.cancel()):  # started, or queued for a worker: it stops before its next page
                Path(_stopped(spooled)).touch()
        confirm_deferred()
        release_scanner()
        release_freed_memory()


def render_early(task: EarlyPages, options: BuildOptions) -> None:
    """A worker's task while pass 1 reads on: the steps' HTML of some pages, each in a file
    beside the spool for the range that writes the page (_take_early). Whatever fails here
    (a page rendered before its session's end, a damaged spool) costs only the time: the
    range renders the page itself, and meets the failure there."""
    renderer = renderer_for(options.theme, options.title, pricing_source(options.prices))
    with young_collections_only(), fewer_young_collections(), suppress(Exception):
        pages = spool.read_early(task.spooled, task.offsets)
        for number, (steps, before) in enumerate(zip(pages, task.costs_before), start=task.first):
            if os.path.exists(_stopped(task.spooled)):
                break
            early = renderer.early_steps(number, steps, before)
            if early is not None:
                path = _early_path(task.spooled, number)
                with open(f"{path}.part", "wb") as stream:
                    pickle.dump(early, stream, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(f"{path}.part", path)  # a range sees it whole or not at all


def _stopped(spooled: str) -> str:
    return f"{spooled}.stop"


def _abandoned(spooled: str) -> str:
    return f"{spooled}.abandoned"


def _early_path(spooled: str, page: int) -> str:
    return f"{spooled}.{page}.steps"


def _take_early(spooled: str, page: int) -> EarlySteps | None:
    path = _early_path(spooled, page)
    if os.path.exists(_abandoned(spooled)):
        return None
    try:
        with open(path, "rb") as stream:
            early = pickle.load(stream)
    except FileNotFoundError:
        return None
    os.unlink(path)
    return early


def write_page_range(task: PageRange, options: BuildOptions, out: Path) -> RangeWritten:
    """A worker's task: write the pages of one range and gather their part of the shard."""
    renderer = renderer_for(options.theme, options.title, pricing_source(options.prices))
    writer = folder_writer(out)
    with young_collections_only(), fewer_young_collections():
        try:
            head, whole, pages = spool.read_pages(task.spooled, task.position, task.pages.start - 1, task.pages.stop - 1)
            if page_slug(head, head.source) != task.nav.slug:
                raise ValueError(f"the spool holds session {head.id} where {task.summary.id} was expected")
        except PublishError:
            raise
        except Exception as exc:  # a damaged spool file: the session becomes its notice page
            detail = f"could not be read again ({one_line(exc)})"
            return RangeWritten(set(), None, detail, Problem("warning", detail, task.summary.source))
        # only a source read as a stream has its pages rendered early: its one session
        ready = partial(_take_early, task.spooled) if task.position == 0 else None
        written = write_range(writer, renderer, whole, pages, task.nav, task.pages, task.part, ready)
    if isinstance(written, Exception):
        detail = one_line(written)
        return RangeWritten(writer.written, None, detail,
                            Problem("warning", f"page of session {head.id} could not be rendered ({detail})", head.source))
    return RangeWritten(writer.written, written)


def gather(writer: FolderWriter, ranges: Iterable[PageRange], done: Iterable[RangeWritten],
           renderer: Callable[[], Renderer]) -> Iterator[tuple[str, set[str], list[Problem]]]:
    """The sessions written by range, as (spool file, the files written, problems) once
    every range of a session is done (`done`: the ranges' results, in their order): its
    shard joined from the ranges' parts, or, when a range failed, every range's files taken
    back and its notice page written (the first failure in page order, as one worker meets it)."""
    for _, session in groupby(zip(ranges, done), key=lambda pair: (pair[0].spooled, pair[0].position)):
        session = list(session)
        first = session[0][0]
        written = set().union(*(result.written for _, result in session))
        failed = next((result for _, result in session if result.detail is not None), None)
        if failed is None:
            shard = search.SessionShard(first.nav.slug)
            for _, result in session:
                shard.extend(result.part)
            written |= write_shard(writer, shard)
            problems = []
        else:
            writer.remove(written)
            writer.write(first.nav.page, renderer().failed_page(first.summary, first.nav, failed.detail))
            written, problems = {first.nav.page}, [failed.problem]
        for task, _ in session:
            Path(task.part).unlink(missing_ok=True)
        yield first.spooled, written, problems


def warm_up(options: BuildOptions, parsers: bool = True) -> None:
    """A worker's first task, or the build's before it forks pass 2's workers: load what a
    session page needs (Renderer.warm_up). Without `parsers`, for the worker that renders a
    long session's pages early: that one loads a parser (markdown's, a lexer) when a text
    first needs it, as it is the build's busier process while the session is read, and a
    session may need none (the 10,000-step benchmark session needs neither the markdown
    parser nor the Python lexer: ~0.07 s of that worker's CPU)."""
    renderer_for(options.theme, options.title, pricing_source(options.prices)).warm_up(parsers)


def split_workers(jobs: int, workers: int) -> int:
    """How many workers pass 2 may share a long session's pages among: the build's, or, when
    it reads in this process because it has little to read (-j 0), one per core."""
    return workers if workers > 1 or jobs != 0 else os.cpu_count() or 1

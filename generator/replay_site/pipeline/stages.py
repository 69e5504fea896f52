"""The build pipeline: discover -> read -> price -> summarize -> render -> write.

Reading and rendering a session is a function of that session alone, so sources are
processed independently: in worker processes (`jobs`), and not at all when the cache says
their bytes are unchanged (cache.py). A first pass reads each source once and keeps only
small summaries, which fix the site's order and each page's neighbours; the sessions wait
on disk (a file per source, the spool) for the second pass, which writes their pages a
page of steps at a time (session_files.py). So a log appended to while the build runs
(the session running right now) gives pages that agree with sessions.json, and the cache
records exactly the bytes that were read.
"""
from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from replay_site.pipeline.build_options import BuildOptions
from replay_site.pipeline.compare_pages import ComparePicker, write_comparisons
from replay_site.runtime.executors import InlineExecutor, executor_for, executor_of
from replay_site.pipeline.order import navigation, site_order
from replay_site.pipeline.page_ranges import (
    LONG_SOURCE_BYTES,
    MIN_POOL_PAGES,
    PageRange,
    PagesAhead,
    gather,
    page_ranges,
    split_workers,
    warm_up,
    write_page_range,
)
from replay_site.pipeline.site_record import build_inputs, record_site
from replay_site.pipeline.source_passes import (
    Place,
    SourcePages,
    pickled_tasks,
    read_and_set_aside,
    read_and_summarize,
    read_back,
    renderer_for,
    run_pickled,
    write_source_pages,
)
from replay_site.catalogue import FoundLater, confirm_deferred, deferred_scans
from replay_site.costs import pricing_source
from replay_site.costs.table import prices_ahead
from replay_site.archive.recover import discover_kept  # issue 29
from replay_site.discover import pick_readers
from replay_site.figures.inputs import Inputs, account
from replay_site.figures.site_files import changed_files, sessions_csv, sessions_json
from replay_site.figures.summary import SessionSummary, share_strings
from replay_site.figures.totals import site_figures
from replay_site.load import load_session
from replay_site.model import Problem
from replay_site.pages import search
from replay_site.pages.themes import theme_search_path
from replay_site.readers import SessionSource
from replay_site.redact import decisions, start_scanner
from replay_site.store.cache import BuildCache, file_states, settings_key
from replay_site.store.detections import DetectionMemory
from replay_site.store.file_state import FileState
from replay_site.store.fragments import FragmentMemo
from replay_site.store.states import cache_path, listing_for_build, unchanged_outputs
from replay_site.store.writer import SiteWriter, site_writer

Progress = Callable[[int, int], None]


class UnreviewedSecrets(Exception):
    """--strict: redaction found strings the decisions file does not name; nothing is published."""

    def __init__(self, count: int) -> None:
        super().__init__(f"--strict: redaction found {count} strings not reviewed yet; run `replay-site redactions` "
                         f"on the same sources and decide on them in {decisions.FILE}")
        self.count = count


@dataclass
class BuildResult:
    out: Path
    summaries: list[SessionSummary] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    inputs: Inputs = field(default_factory=Inputs)  # the account of everything read

    @property
    def steps(self) -> int:
        return sum(s.steps for s in self.summaries)

    @property
    def unredacted(self) -> int:
        """Likely secrets a --no-redact build left in its pages."""
        return sum(s.secrets_left for s in self.summaries)


def build(roots: list[Path], out: Path, options: BuildOptions, progress: Progress | None = None) -> BuildResult:
    """Build the site in a staging folder and publish it whole (writer.py): a build that
    fails or is stopped leaves the previous site as it was. A build that went on while the
    secret scanner's catalogue loaded, as if it found nothing in the texts it was asked about
    meanwhile, and then found something in one of them, is made again (catalogue.deferred_scans)."""
    try:
        # --strict stops on what redaction found: there it must all be found first
        with deferred_scans() if not options.strict else nullcontext(), site_writer(out, roots, options.force) as writer:
            result = _build(roots, writer, options, progress)
    except FoundLater:
        with site_writer(out, roots, options.force) as writer:
            result = _build(roots, writer, options, progress)
    result.problems.extend(Problem("warning", "not written by replay-site, so left in place", path)
                           for path in writer.leftovers)
    return result


def _build(roots: list[Path], writer: SiteWriter, options: BuildOptions, progress: Progress | None) -> BuildResult:
    out = writer.out
    result = BuildResult(out)
    started_ns = time.time_ns()
    inputs = build_inputs(roots, options)
    on_disk = _on_disk(out, roots)
    # before discovery: a file changed after it makes the record stale; none for a store's
    # objects (only a build reads them: entry.py answers for folders on this machine)
    listing = listing_for_build(inputs) if on_disk else None
    sources = _discover(roots, out, options, result.problems)
    picker = ComparePicker(options.compare)  # checks the pairs' syntax before any work
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, 2 * len(sources))

    cache = BuildCache(out, _cache_key(options), enabled=options.incremental)
    # Pass 1: summaries, from the cache for sources whose bytes are unchanged (a --compare
    # pair needs the sessions themselves, so then every source is read).
    per_source: list[_SourceState] = []
    stale: list[int] = []
    for index, source in enumerate(sources):
        cached = None if options.compare else cache.lookup(source)
        if cached is None:
            per_source.append(_SourceState([], [], None))
            stale.append(index)
        else:
            per_source.append(_SourceState(*cached))
    stale_bytes = [_bytes_of([sources[i]]) for i in stale]
    with tempfile.TemporaryDirectory(prefix="replay-site-spool-") as spool_folder, \
            prices_ahead([sources[i].path for i in stale], wanted=not options.scheduler), \
            _executor(options, sum(stale_bytes), len(stale)) as pool, \
            _scanning_here(options, pool, stale), \
            _page_workers(options, pool, stale_bytes) as page_pool:
        for _ in range(len(sources) - len(stale)):  # after the workers started: a progress bar runs a thread
            tick()
        # A cluster's workers cannot see this machine's spool: pass 2 reads the logs again there.
        spooling = None if options.scheduler else spool_folder
        ahead = PagesAhead(page_pool, options) if page_pool is not None else None  # this process reads
        reading = dict(options=options, spool_folder=spooling, ahead=ahead)
        pooled = spooling and pool.processes > 1  # workers of this machine beside this process (a cluster's cannot read the spool)
        task = partial(read_and_set_aside, folder=spooling, **reading) if pooled else partial(read_and_summarize, **reading)
        places = {}
        for index, read in zip(stale, pool.map(task, [(i, sources[i]) for i in stale])):
            if pooled:  # what each source's read gives the build waits on disk
                read, places[index] = read
            share_strings(read.summaries)
            per_source[index] = _SourceState(read.summaries, read.problems, read.states, read.spooled, fresh=True)
            picker.merge(read.picker)
            tick()
        if ahead is not None:
            ahead.stop()
        pool.end_workers()  # before the build takes in what they read
        result.summaries = _taken_back(per_source, places)
        for state in per_source:
            result.problems.extend(state.problems)
        if options.strict and options.redact and (unreviewed := sum(s.unreviewed for s in result.summaries)):
            raise UnreviewedSecrets(unreviewed)

        # Pass 2: pages, each worker writing its own files atomically; a source whose pages
        # would come out the same is left as it is.
        all_navs = navigation(result.summaries)
        tasks = []
        for index, source in enumerate(sources):
            state = per_source[index]
            navs = {Path(s.page).stem: all_navs[Path(s.page).stem] for s in state.summaries}
            kept = None if state.fresh else cache.unchanged_pages(source, navs)
            if kept is None or not writer.keep(kept):
                tasks.append((index, navs))
                continue
            cache.remember(source, state.states, state.summaries, state.problems, navs, kept)
            tick()
        ranges, executor = _pass_two(pool, page_pool, options, tasks, per_source)
        source_tasks = [_source_pages(sources[i], navs, per_source[i], ranges) for i, navs in tasks]
        write_pages = partial(write_source_pages, options=options, out=writer.root)
        if pooled:  # pass 2's workers to be forked: read back by whoever runs each (pickled_tasks)
            source_tasks, write_pages = pickled_tasks(Path(spooling) / "pages.pickle", source_tasks), partial(run_pickled, write_pages)
            for index, navs in tasks:
                cache.page_keys(sources[index], navs)
            # ... and without the summaries set aside in pass 1, which the build takes back after
            # (pages it holds beside pass 2's workers are copied as it touches them)
            del all_navs
            result.summaries = []
            tasks = [(index, {} if index in places else navs) for index, navs in tasks]
            for index in places:
                per_source[index].summaries = []
        if tasks:  # pass 2's workers forked without the catalogue, with the renderer warm
            pool.reading_done(partial(warm_up, options))
        made = []  # the sources whose pages pass 2 wrote, and what it made of each
        with executor as pass_two:
            # the ranges first: a long session's pages are the longest work
            written_by_range = pass_two.map(partial(write_page_range, options=options, out=writer.root), ranges)
            pages = pass_two.map(write_pages, source_tasks)
            by_spool: dict[str, tuple[set[str], list[Problem]]] = {}
            renderer = partial(renderer_for, options.theme, options.title, pricing_source(options.prices))
            for spooled, written, problems in gather(writer, ranges, written_by_range, renderer):
                files, found = by_spool.setdefault(spooled, (set(), []))
                files |= written
                found += problems
            for (index, navs), (written, problems, same) in zip(tasks, pages):
                state = per_source[index]
                if state.spooled in by_spool:  # every task reading the file is done
                    Path(state.spooled).unlink(missing_ok=True)
                    by_range, range_problems = by_spool[state.spooled]
                    written, problems = written | by_range, problems + range_problems
                writer.written |= written
                result.problems.extend(problems)
                made.append((index, navs, same, sorted(written)))
                tick()
        if places:
            pool.end_workers()
            result.summaries = _taken_back(per_source, places)
    for index, navs, same, written in made:
        state = per_source[index]
        cache.remember(sources[index], state.states if same else None, state.summaries, state.problems, navs, written)

    files_read = _files_read(sources, per_source)
    result.inputs = account(files_read, result.problems, result.summaries)
    unchanged = not (stale or tasks or options.compare) and cache.same_sources() and on_disk
    site_files = unchanged_outputs(out, cache.key) if unchanged else None
    rows = None
    if site_files is None or not writer.keep(sorted(site_files)):
        rows = FragmentMemo(cache_path(out, "rows.json"), cache.key, options.incremental) if on_disk else None
        _write_site_files(writer, result, picker, options, rows)
    confirm_deferred()  # before anything of this build is kept or published
    if rows:
        rows.save()
    writer.finish()
    cache.save()
    record_site(out, inputs, len(roots), listing, writer.written, options, cache, started_ns=started_ns,
                sessions=len(result.summaries), steps=result.steps, problems=result.problems)
    return result


def _write_site_files(writer: SiteWriter, result: BuildResult, picker: ComparePicker, options: BuildOptions,
                      rows: FragmentMemo | None) -> None:
    """The files made from all sessions together: assets, comparisons, index, sessions.json and
.csv, files.html, search; the rows of the index and files.html rendered once, then taken from `rows`."""
    renderer = renderer_for(options.theme, options.title, pricing_source(options.prices))
    for name, data in renderer.static_files().items():
        writer.refresh(name, data)
    comparisons = write_comparisons(picker, renderer, writer, lambda ref: load_session(ref, [], options.reading))
    for name, html in renderer.index_pages(result.summaries, site_figures(result.summaries), comparisons, result.inputs, rows):
        writer.refresh(name, html)
    writer.refresh("sessions.json", sessions_json(result.summaries, renderer.env.globals["pricing"], result.inputs))
    writer.refresh("sessions.csv", sessions_csv(result.summaries))
    writer.refresh("files.html", renderer.files_page(changed_files(result.summaries), rows))
    # Read from the staging folder: kept pages' search files are linked there from the old site.
    for name, data in search.site_files(writer.root, result.summaries).items():
        writer.refresh(name, data)


def _discover(roots: list[Path], out: Path, options: BuildOptions, problems: list[Problem]) -> list[SessionSource]:
    """The sources, with discovery's memory (the readers' answers for every file: a Claude
    Code log's first line) let go of once it is saved, not held by the build, and by every
    worker forked from it, to the end (the large benchmark corpus: ~5 MiB)."""
    memory = DetectionMemory(cache_path(out, "discovery.pickle")) if options.incremental else None
    # issue 29: discovery keeps every log in the archive and adds the sessions of archived logs gone from disk
    sources = discover_kept(roots, pick_readers(options.format), problems, memory, out, options.archive, not options.no_archive)
    if memory:
        memory.save()
    return sources


def _on_disk(out: Path, roots: list[Path]) -> bool:
    """Whether the site and its sources are folders of this machine (not objects in a store)."""
    return all(isinstance(path, Path) for path in (out, *roots))


@dataclass
class _SourceState:
    """What the build knows of one source between the passes: never its sessions, only where
    the sessions read in pass 1 wait for pass 2 (`spooled`), so memory stays flat."""

    summaries: list[SessionSummary]
    problems: list[Problem]
    states: list[FileState] | None  # the bytes the summaries come from (cache.py)
    spooled: str | None = None
    fresh: bool = False  # read in this build


def _taken_back(per_source: list[_SourceState], places: dict[int, Place]) -> list[SessionSummary]:
    """Every source's summaries in the site's order, those of the sources at `places` (their
    summaries, problems and file states) taken back from where pass 1 set them aside."""
    for index, place in places.items():
        state = per_source[index]
        state.summaries, state.problems, state.states = read_back(place)
        share_strings(state.summaries)
    return site_order([summary for state in per_source for summary in state.summaries])


@contextmanager
def _scanning_here(options: BuildOptions, pool, stale: list[int]) -> Iterator[None]:
    """A build reading in this process has the secret scanner loaded by a process of its own
    (catalogue.start_scanner), while it reads and prices; forked before any page worker, so
    that it holds none of their pipes."""
    if stale and options.redact and isinstance(pool, InlineExecutor):
        start_scanner()
    yield


def _page_workers(options: BuildOptions, pool, sizes: list[int]):
    """Workers for pass 2 started before pass 1, when this process is to read (-j 0, little to
    read) a source (of the stale sources, `sizes` bytes each) large enough to hold a session worth sharing
    by page range: they make ready to render (page_ranges.warm_up) on the cores idle while this
    process reads."""
    largest = max(sizes, default=0)
    if options.scheduler or options.jobs != 0 or pool.processes > 1 or largest < LONG_SOURCE_BYTES:
        return nullcontext(None)
    workers = split_workers(options.jobs, pool.processes)
    if workers < 2:
        return nullcontext(None)
    # Workers that only render: the secret scanner's catalogue (~0.4 s of a core) loads in a
    # process of its own beside the reading (_scanning_here), not in these.
    page_pool = executor_of(workers, scanner=False)
    for _ in range(page_pool.processes):
        page_pool.submit(partial(warm_up, options, parsers=False))
    return page_pool


def _pass_two(pool, page_pool, options: BuildOptions, tasks: list[tuple[int, dict]], per_source: list[_SourceState]):
    """The ranges of long sessions' pages to write apart (page_ranges.py), and the executor
    of pass 2: the build's, the workers started for it (_page_workers), or, for a build
    reading in this process (-j 0, little to read), workers started now for pages enough to
    pay for them."""
    if options.scheduler:  # a cluster reads the logs again: no spool to read ranges from
        return [], nullcontext(pool)
    pool = page_pool or pool
    workers = split_workers(options.jobs, pool.processes)
    ranges = [page for index, navs in tasks if (spooled := per_source[index].spooled)
              for page in page_ranges(spooled, per_source[index].summaries, navs, workers)]
    if not ranges or pool.processes > 1:
        return ranges, nullcontext(pool)
    if sum(len(page.pages) for page in ranges) < MIN_POOL_PAGES:
        return [], nullcontext(pool)
    return ranges, executor_of(min(workers, len(ranges) + len(tasks)))


def _source_pages(source: SessionSource, navs: dict, state: _SourceState, ranges: list[PageRange]) -> SourcePages:
    """The task of pass 2 for one source, without the sessions written by range."""
    apart = {page.position: page.nav.slug for page in ranges if page.spooled == state.spooled}
    by_range = set(apart.values())
    rest = {slug: nav for slug, nav in navs.items() if slug not in by_range}
    return source, rest, state.spooled, state.states, frozenset(apart)


def _files_read(sources: list[SessionSource], per_source: list[_SourceState]) -> int:
    """How many files the sources hold: counted from the file states each source carries
    (a folder source's `files` walks its folder again), listed only for a source without."""
    paths: set[str] = set()
    for source, state in zip(sources, per_source):
        if state.states is not None:
            paths.update(file.path for file in state.states)
        else:
            paths.update(map(str, source.files))
    return len(paths)


def _bytes_of(sources: Iterable[SessionSource]) -> int:
    return sum(state.size for source in sources for state in file_states(source.files) or [])


def _executor(options: BuildOptions, work_bytes: int, sources: int):
    if options.scheduler:
        from replay_site.runtime.cluster import DaskExecutor  # dask is an extra, and slow to import

        return DaskExecutor(options.scheduler)
    return executor_for(options.jobs, work_bytes, sources)


def _cache_key(options: BuildOptions) -> str:
    """Everything besides the logs that shapes the pages."""
    settings = {"format": options.format, "title": options.title, "prices": repr(options.prices),
                "pricing": pricing_source(options.prices), "redact": options.redact,
                "redact_patterns": list(options.redact_patterns) if options.redact else [], "anonymize": options.anonymize,
                "decisions": [sorted(options.decisions.allow), sorted(options.decisions.redact)] if options.redact else []}
    return settings_key(theme_search_path(options.theme), settings)

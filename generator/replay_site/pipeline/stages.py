"""The build, as its stages in order: plan -> read -> order -> render -> reduce -> publish.

- plan: find the sources (discover.py) and ask the build cache which of them are unchanged;
- read: each changed source read once (a task of the executor's), redacted and priced, its
  summaries kept and its sessions spooled to disk for the render;
- order: the site's order and each page's neighbours, from the summaries alone;
- render: each source's pages written from the spool a page of steps at a time (a source
  whose pages would come out the same is left as it is);
- reduce: the files made from all sessions together (index, sessions.json, search, ...);
- publish: the staging folder swapped in whole (store/writer.py), then the output folder's
  state saved at once (store/site_store.py: the sources' records and the build's record).

How the tasks run (this process, worker processes, a dask cluster) is the runtime's business
(runtime/): the stages hand it plain functions and take back small results. A log appended to
while the build runs (the session running right now) gives pages that agree with
sessions.json, and the cache records exactly the bytes that were read.
"""
from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from replay_site import catalogue
from replay_site.costs import pricing_source
from replay_site.archive.recover import discover_kept
from replay_site.discover import pick_readers
from replay_site.figures.inputs import Inputs, account
from replay_site.figures.site_files import changed_files, sessions_csv, sessions_json
from replay_site.figures.summary import SessionSummary, share_strings
from replay_site.figures.totals import site_figures
from replay_site.load import load_session
from replay_site.model import Problem
from replay_site.pages import search
from replay_site.pages.themes import theme_search_path
from replay_site.pipeline.build_options import BuildOptions
from replay_site.pipeline.compare_pages import ComparePicker, write_comparisons
from replay_site.pipeline.order import navigation, site_order
from replay_site.pipeline.site_record import build_inputs, record_site
from replay_site.pipeline.source_passes import read_and_summarize, renderer_for, write_source_pages
from replay_site.readers import SessionSource
from replay_site.redact import decisions
from replay_site.runtime import Executor, executor_for, system
from replay_site.store.cache import BuildCache, file_states, settings_key
from replay_site.store.file_state import FileState
from replay_site.store.site_store import SiteStore
from replay_site.store.states import listing_for_build, unchanged_outputs
from replay_site.store.writer import SiteWriter, check_output, site_writer

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


@dataclass
class _SourceState:
    """What the build knows of one source between the stages: never its sessions, only where
    the sessions read wait for the render (`spooled`, at `place`), so memory stays flat."""

    summaries: list[SessionSummary]
    problems: list[Problem]
    states: list[FileState] | None  # the bytes the summaries come from (cache.py)
    spooled: str | None = None
    fresh: bool = False  # read in this build
    place: str | None = None  # the cluster worker holding the spool; None: this machine


@dataclass
class _Plan:
    sources: list[SessionSource]
    per_source: list[_SourceState]
    stale: list[int]  # the sources to read: not in the cache, or changed
    store: SiteStore  # what the last build of this output folder kept, and what this one keeps
    cache: BuildCache  # the store's records of the sources
    picker: ComparePicker
    ticks: Callable[[], None]


def build(roots: list[Path], out: Path, options: BuildOptions, progress: Progress | None = None) -> BuildResult:
    """Build the site in a staging folder and publish it whole (store/writer.py): a build that
    fails or is stopped leaves the previous site as it was."""
    check_output(out, roots, options.force)
    loads_catalogue = options.redact and not options.scheduler  # a cluster's workers load their own
    if loads_catalogue:
        catalogue.start_loading()  # beside the plan, on the other core (catalogue.py)
    result = BuildResult(out)
    inputs = build_inputs(roots, options)
    on_disk = _on_disk(out, roots)
    # before discovery: a file changed after it makes the record stale; none for a store's
    # objects (only a build reads them: cli/entry.py answers for folders on this machine)
    listing = listing_for_build(inputs) if on_disk else None
    plan = _plan(roots, out, options, result.problems, progress)
    stale_bytes = sum(state.size for i in plan.stale for state in file_states(plan.sources[i].files) or [])
    # The workers before the writer: one forked after it locked its staging folder would hold the lock as long as it lives.
    with tempfile.TemporaryDirectory(prefix="replay-site-spool-") as spool_folder, \
            executor_for(options.jobs, stale_bytes, len(plan.stale), options.scheduler,
                         catalogue.finish_loading if loads_catalogue else None) as executor, \
            site_writer(out, roots, options.force, system.rename_exchange()) as writer:
        _read(plan, executor, spool_folder, options)
        result.summaries = site_order([summary for state in plan.per_source for summary in state.summaries])
        for state in plan.per_source:
            result.problems.extend(state.problems)
        if options.strict and options.redact and (unreviewed := sum(s.unreviewed for s in result.summaries)):
            raise UnreviewedSecrets(unreviewed)
        rendered = _render(plan, navigation(result.summaries), executor, writer, options, result.problems)
        executor.close()  # every task is done: the workers' memory goes before the site-wide files
        result.inputs = account(_files_read(plan), result.problems, result.summaries)
        _reduce(plan, rendered, writer, result, options, on_disk)
        writer.finish()  # publish
    catalogue.finish_loading()  # a build that scanned nothing leaves no thread behind
    plan.store.save(record_site(out, inputs, len(roots), listing, writer.written, options, plan.cache,
                                sessions=len(result.summaries), steps=result.steps, problems=result.problems))
    result.problems.extend(Problem("warning", "not written by replay-site, so left in place", path)
                           for path in writer.leftovers)
    return result


def _plan(roots: list[Path], out: Path, options: BuildOptions, problems: list[Problem], progress: Progress | None) -> _Plan:
    """The sources, and which of them must be read: for the others, the cache's summaries (a
    --compare pair needs the sessions themselves, so then every source is read)."""
    store = SiteStore(out, _cache_key(options), enabled=options.incremental)
    sources = _discover(roots, store, out, options, problems)
    picker = ComparePicker(options.compare)  # checks the pairs' syntax before any work
    cache = store.cache
    per_source, stale = [], []
    for index, source in enumerate(sources):
        cached = None if options.compare else cache.lookup(source)
        if cached is None:
            per_source.append(_SourceState([], [], None))
            stale.append(index)
        else:
            per_source.append(_SourceState(*cached))
    done = 0

    def tick() -> None:  # each source is read (or taken from the cache), then rendered (or kept)
        nonlocal done
        done += 1
        if progress:
            progress(done, 2 * len(sources))

    for _ in range(len(sources) - len(stale)):
        tick()
    return _Plan(sources, per_source, stale, store, cache, picker, tick)


def _read(plan: _Plan, executor: Executor, spool_folder: str, options: BuildOptions) -> None:
    """Each stale source read once, its sessions spooled where its task ran."""
    task = partial(read_and_summarize, options=options, spool_folder=spool_folder)
    reads = executor.map_placed(task, [(i, plan.sources[i]) for i in plan.stale])
    for index, (read, place) in zip(plan.stale, reads):
        share_strings(read.summaries)
        plan.per_source[index] = _SourceState(read.summaries, read.problems, read.states, read.spooled, fresh=True, place=place)
        plan.picker.merge(read.picker)
        plan.ticks()


def _render(plan: _Plan, all_navs: dict, executor: Executor, writer: SiteWriter, options: BuildOptions,
            problems: list[Problem]) -> bool:
    """Each source's pages, each task writing its own files atomically; a source whose pages
    would come out the same is kept as the last build left it. Whether any was written."""
    tasks = []
    for index, source in enumerate(plan.sources):
        state = plan.per_source[index]
        navs = {Path(s.page).stem: all_navs[Path(s.page).stem] for s in state.summaries}
        kept = None if state.fresh else plan.cache.unchanged_pages(source, navs)
        if kept is None or not writer.keep(kept):
            tasks.append((index, navs))
            continue
        plan.cache.remember(source, state.states, state.summaries, state.problems, navs, kept)
        plan.ticks()
    write_pages = partial(write_source_pages, options=options, out=writer.root)
    pages = executor.map(write_pages, [_source_pages(plan, index, navs) for index, navs in tasks],
                         places=[plan.per_source[index].place for index, _ in tasks])
    for (index, navs), (written, found, same) in zip(tasks, pages):
        state = plan.per_source[index]
        writer.written |= written
        problems.extend(found)
        plan.cache.remember(plan.sources[index], state.states if same else None, state.summaries, state.problems, navs,
                            sorted(written))
        plan.ticks()
    return bool(tasks)


def _source_pages(plan: _Plan, index: int, navs: dict):
    state = plan.per_source[index]
    return plan.sources[index], navs, state.spooled, state.states


def _reduce(plan: _Plan, rendered: bool, writer: SiteWriter, result: BuildResult, options: BuildOptions, on_disk: bool) -> None:
    """The files made from all sessions together: assets, comparisons, index, sessions.json
    and .csv, files.html, search; kept as they are when no source changed, their rows of the
    index and files.html rendered once, then taken from the rows memo."""
    unchanged = not (plan.stale or rendered or options.compare) and plan.cache.same_sources() and on_disk
    site_files = unchanged_outputs(writer.out, plan.store.site) if unchanged else None
    if site_files is not None and writer.keep(sorted(site_files)):
        return
    rows = plan.store.rows(options.incremental) if on_disk else None
    renderer = renderer_for(options.theme, options.title, pricing_source(options.prices))
    for name, data in renderer.static_files().items():
        writer.refresh(name, data)
    comparisons = write_comparisons(plan.picker, renderer, writer, lambda ref: load_session(ref, [], options.reading))
    for name, html in renderer.index_pages(result.summaries, site_figures(result.summaries), comparisons, result.inputs, rows):
        writer.refresh(name, html)
    writer.refresh("sessions.json", sessions_json(result.summaries, renderer.env.globals["pricing"], result.inputs))
    writer.refresh("sessions.csv", sessions_csv(result.summaries))
    writer.refresh("files.html", renderer.files_page(changed_files(result.summaries), rows))
    # Read from the staging folder: kept pages' search files are linked there from the old site.
    for name, data in search.site_files(writer.root, result.summaries).items():
        writer.refresh(name, data)


def _discover(roots: list[Path], store: SiteStore, out: Path, options: BuildOptions, problems: list[Problem]) -> list[SessionSource]:
    """The sources, with discovery's memory (the readers' answers for every file) kept in the store for the next
    build; every log read is kept in the archive, which gives back the sessions of logs gone from disk (archive/)."""
    memory = store.detections() if options.incremental else None
    return discover_kept(roots, pick_readers(options.format), problems, memory, out, options.archive, not options.no_archive)


def _on_disk(out: Path, roots: list[Path]) -> bool:
    """Whether the site and its sources are folders of this machine (not objects in a store)."""
    return all(isinstance(path, Path) for path in (out, *roots))


def _files_read(plan: _Plan) -> int:
    """How many files the sources hold: counted from the file states each source carries
    (a folder source's `files` walks its folder again), listed only for a source without."""
    paths: set[str] = set()
    for source, state in zip(plan.sources, plan.per_source):
        if state.states is not None:
            paths.update(file.path for file in state.states)
        else:
            paths.update(map(str, source.files))
    return len(paths)


def _cache_key(options: BuildOptions) -> str:
    """Everything besides the logs that shapes the pages."""
    settings = {"format": options.format, "title": options.title, "prices": repr(options.prices),
                "pricing": pricing_source(options.prices), "redact": options.redact,
                "redact_patterns": list(options.redact_patterns) if options.redact else [], "anonymize": options.anonymize,
                "decisions": [sorted(options.decisions.allow), sorted(options.decisions.redact)] if options.redact else [],
                "atif": options.atif}  # issue 31: the pages link the ATIF files, which only --atif writes
    return settings_key(theme_search_path(options.theme), settings)


"""The two passes over one source, as the tasks a worker runs (pipeline.py maps them over
the sources): pass 1 reads the source once, summarizes its sessions and spools them; pass 2
writes their pages from the spool, a page of steps at a time."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from replay_site.pipeline import spool
from replay_site.pipeline.spool import SpoolWriter
from replay_site.pipeline.build_options import BuildOptions
from replay_site.pipeline.compare_pages import ComparePicker
from replay_site.pipeline.session_files import write_session
from replay_site.costs import pricing_source
from replay_site.figures.step_columns import StepColumns
from replay_site.figures.summary import SessionSummary, page_slug, summarize
from replay_site.load import one_line, read_source, stream_source, unread
from replay_site.model import Problem, Session, Step
from replay_site.pages import paging, views
from replay_site.pages.render import PageNav, Renderer
from replay_site.readers import SessionSource, registry
from replay_site.redact import STEPS_AT_ONCE, count_secrets
from replay_site.store.cache import file_states, same_readings, with_digests
from replay_site.store.file_state import FileState
from replay_site.store.publish import PublishError
from replay_site.store.writer import folder_writer


@dataclass
class SourceRead:
    summaries: list[SessionSummary]
    problems: list[Problem]
    picker: ComparePicker
    states: list[FileState] | None
    spooled: str | None


def read_once(source: SessionSource, options: BuildOptions) -> tuple[list[Session], list[Problem], list[FileState] | None]:
    """Read a source, with the states of exactly the bytes the reader saw. The files' stats
    are taken before and after reading: a log that grew meanwhile (a session running right
    now) still gives its sessions, but no states, so that nothing is cached from it."""
    before = file_states(source.files)
    states = with_digests(before) if before else None
    sessions, problems = read_source(source, options.reading)
    if states is None or file_states(source.files) != before:
        states = None
    return sessions, problems, states


def read_and_summarize(task: tuple[int, SessionSource], options: BuildOptions, spool_folder: str | None) -> SourceRead:
    """Pass 1 for one source: read it, keep its summaries and what a --compare pair names,
    and spool its sessions to disk for pass 2 (when there is a `spool_folder`, made here when
    this process is a cluster's worker that has none), each with what its pages need from
    all of its steps (views.digest)."""
    index, source = task
    picker = ComparePicker(options.compare)
    try:
        agents = {name: reader.label for name, reader in registry().items()}
        streamed = None
        if spool_folder:
            Path(spool_folder).mkdir(parents=True, exist_ok=True)
            if options.redact and not options.compare:
                streamed = _streamed(source, options, Path(spool_folder) / f"{index}.pickle", agents)
        if streamed is not None:
            return streamed
        sessions, problems, states = read_once(source, options)
        summaries, spooled = [], []
        for top in sessions:
            family = f"sessions/{page_slug(top, top.source)}.html"
            for session in top.walk():
                slug = page_slug(session, session.source)
                summary = summarize(session, agents.get(session.format, session.format), f"sessions/{slug}.html", family)
                if not options.redact:
                    summary.secrets_left = count_secrets([session], options.redact_patterns)
                summaries.append(summary)
                if spool_folder:
                    spooled.append((session, views.digest(session, summary)))
                problems.extend(session.problems)
                picker.offer(source, session, slug, session is top)
    except Exception as exc:  # one odd source must not cost the user the whole site
        return SourceRead([], [unread(exc, source.rel)], picker, None, None)
    kept = spool.write(spooled, Path(spool_folder) / f"{index}.pickle") if spool_folder else None
    return SourceRead(summaries, problems, picker, states, kept)


# Whole pages, about as many steps as redaction takes at once.
_PART_STEPS = max(1, STEPS_AT_ONCE // paging.PAGE_STEPS) * paging.PAGE_STEPS


def _streamed(source: SessionSource, options: BuildOptions, path: Path, agents: dict[str, str]) -> SourceRead | None:
    """Pass 1 for a source whose reader gives its one session out as it reads (load.StreamedRead):
    its pages spooled as they are cut, its summary and digest gathered from each step on the
    way (their figures kept by column: StepColumns), so that memory does not grow with the session's steps'
    texts. None when the source is not streamed, or would not come out as a whole reading
    gives it (NotTheSame): then it is read whole."""
    before = file_states(source.files)
    writer = None
    try:
        read = stream_source(source, options.reading)
        if read is None:
            return None
        # After the first look at the lines (their shape), but the states are dropped below
        # unless the files are still what they were before it.
        states = with_digests(before) if before else None
        writer = SpoolWriter(path)
        figures = StepColumns()
        folded = views.StepFolds()
        for part in read.parts(_PART_STEPS):
            for step in part:
                figures.add(step)
                folded.add(step)
            for page in paging.pages_of(part):
                writer.page(page)
        session = read.session()
        if states is None or file_states(source.files) != before:
            states = None
        slug = page_slug(session, session.source)
        href = f"sessions/{slug}.html"  # its own page, and its family's
        session.steps = figures
        summary = summarize(session, agents.get(session.format, session.format), href, href, folded.ledger.ledger())
        whole = views.digest(session, summary, folded=folded)
        session.steps = []
        writer.session(session, whole)
        spooled = writer.close()
    except Exception:  # NotTheSame, a reader's failure, a step that does not pickle, a full disk: as a whole reading meets it
        if writer is not None:
            writer.abandon()
        return None
    return SourceRead([summary], list(session.problems), ComparePicker(options.compare), states, spooled)


_Spooled = tuple[Session, views.SessionDigest, Iterable[list[Step]]]


def _sessions_again(source: SessionSource, spooled: str | None, states: list[FileState] | None,
                    navs: dict[str, tuple[PageNav, SessionSummary]], options: BuildOptions) -> Iterable[_Spooled] | None:
    """The sessions pass 1 summarized, one at a time with their pages of steps: from the
    spool (removed once read), else read again when the bytes are the same ones (None when
    the log changed since). A spool that is not on this machine (a cluster's task run on
    another worker than pass 1's) is as good as none."""
    if spooled and Path(spooled).exists():
        return spool.read(spooled)
    sessions, _, now = read_once(source, options)
    if not same_readings(now, states):
        return None
    walked = [session for top in sessions for session in top.walk()]
    return [(session, views.digest(session, navs[page_slug(session, session.source)][1]), paging.pages_of(session.steps))
            for session in walked]


SourcePages = tuple[SessionSource, dict[str, tuple[PageNav, SessionSummary]], str | None, list[FileState] | None]


def write_source_pages(task: SourcePages, options: BuildOptions, out: Path) -> tuple[set[str], list[Problem], bool]:
    """Pass 2 for one source: write its pages, a page at a time; returns the files written,
    the pages that could only be written as an error notice, and whether the pages show the
    summarized bytes."""
    source, navs, spooled, states = task
    renderer = renderer_for(options.theme, options.title, pricing_source(options.prices))
    writer = folder_writer(out)
    problems: list[Problem] = []
    detail = "the log changed while the site was being built; build again to see it"
    unwritten = dict(navs)
    try:
        sessions = _sessions_again(source, spooled, states, navs, options)
        for head, whole, pages in sessions or ():
            slug = page_slug(head, head.source)
            nav, summary = unwritten.pop(slug)
            failed = write_session(writer, renderer, whole, pages, nav, head if options.atif else None)  # issue 31: --atif
            if failed is not None:
                problems.append(Problem("warning", f"page of session {head.id} could not be rendered ({one_line(failed)})", head.source))
                writer.write(f"sessions/{slug}.html", renderer.failed_page(summary, nav, one_line(failed)))
    except PublishError:  # the output folder failed: the build stops (writer.py)
        raise
    except Exception as exc:  # a damaged spool file: the source's pages not written become notices
        sessions, detail = None, f"could not be read again ({one_line(exc)})"
    if sessions is None:
        for slug, (nav, summary) in unwritten.items():
            writer.write(f"sessions/{slug}.html", renderer.failed_page(summary, nav, detail))
        return writer.written, problems + ([Problem("warning", detail, source.rel)] if unwritten else []), False
    return writer.written, problems, True


@lru_cache(maxsize=4)
def renderer_for(theme: str, title: str, pricing: str) -> Renderer:
    """One renderer per process and settings: building the jinja environment is not free."""
    return Renderer(theme, title, pricing)

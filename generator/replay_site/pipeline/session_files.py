"""Pass 2 of a build for one session: its pages and side files written as they are rendered,
a page of steps at a time, then its search shard gathered from the same steps (so a long
session's steps are never all in memory here), or, when the renderer fails on it, none of
its files."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import PurePosixPath

from replay_site.atif_export import TrajectoryFile
from replay_site.model import Session, Step
from replay_site.pages import paging, search, views
from replay_site.pages.render import PageNav, Renderer
from replay_site.store.publish import PublishError
from replay_site.store.writer import FolderWriter


def write_session(writer: FolderWriter, renderer: Renderer, whole: views.SessionDigest, pages: Iterable[list[Step]],
                  nav: PageNav, atif_of: Session | None = None) -> Exception | None:
    """Write one session's files; returns the exception the renderer failed with, if it did,
    after taking back the files of the session it had written (the caller writes a notice
    page instead). A failure to write (PublishError) stops the build as always. `atif_of`
    (build --atif): the session, whose ATIF trajectory is gathered from the same steps."""
    shard = search.SessionShard(nav.slug)
    # issue 31 (--atif): the trajectory beside the page, its subagents' files named as they are written
    atif = TrajectoryFile(atif_of, {ident: PurePosixPath(paging.atif_path(PurePosixPath(link.href).stem)).name
                                    for ident, link in nav.children.items()}) if atif_of is not None else None
    if atif is not None:
        whole.header.atif = paging.atif_path(nav.slug)
    failed = _write_pages(writer, renderer, whole, pages, nav, shard, atif)
    if failed is None:
        write_shard(writer, shard)
        if atif is not None:
            with atif.file() as trajectory:
                writer.write(paging.atif_path(nav.slug), trajectory)
    return failed


def write_shard(writer: FolderWriter, shard: search.SessionShard) -> set[str]:
    files = shard.files()
    for name, data in files.items():
        writer.write(name, data)
    return set(files)


def _write_pages(writer: FolderWriter, renderer: Renderer, whole: views.SessionDigest, pages: Iterable[list[Step]],
                 nav: PageNav, shard: search.SessionShard, atif: TrajectoryFile | None) -> Exception | None:
    before = set(writer.written)

    def fed(pages: Iterable[list[Step]]) -> Iterator[list[Step]]:
        for steps in pages:
            shard.add(steps)
            if atif is not None:
                atif.add(steps)
            yield steps

    try:
        for name, text in renderer.session_pages(whole, fed(pages), nav):
            writer.write(name, text)
    except PublishError:
        raise
    except Exception as exc:  # one unrenderable session must not cost the user the site
        # no search shard either: its hits would link to steps on no page
        writer.remove(writer.written - before)
        return exc
    return None

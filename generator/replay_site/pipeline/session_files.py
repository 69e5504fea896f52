"""Pass 2 of a build for one session: its pages and side files written as they are rendered,
a page of steps at a time, then its search shard gathered from the same steps (so a long
session's steps are never all in memory here), or, when the renderer fails on it, none of
its files."""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from replay_site.model import Step
from replay_site.pages import search, views
from replay_site.pages.render import PageNav, Renderer
from replay_site.store.publish import PublishError
from replay_site.store.writer import FolderWriter


def write_session(writer: FolderWriter, renderer: Renderer, whole: views.SessionDigest, pages: Iterable[list[Step]],
                  nav: PageNav) -> Exception | None:
    """Write one session's files; returns the exception the renderer failed with, if it did,
    after taking back the files of the session it had written (the caller writes a notice
    page instead). A failure to write (PublishError) stops the build as always."""
    shard = search.SessionShard(nav.slug)
    failed = _write_pages(writer, renderer, whole, pages, nav, shard)
    if failed is None:
        write_shard(writer, shard)
    return failed


def write_shard(writer: FolderWriter, shard: search.SessionShard) -> set[str]:
    files = shard.files()
    for name, data in files.items():
        writer.write(name, data)
    return set(files)


def _write_pages(writer: FolderWriter, renderer: Renderer, whole: views.SessionDigest, pages: Iterable[list[Step]],
                 nav: PageNav, shard: search.SessionShard) -> Exception | None:
    before = set(writer.written)

    def fed(pages: Iterable[list[Step]]) -> Iterator[list[Step]]:
        for steps in pages:
            shard.add(steps)
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

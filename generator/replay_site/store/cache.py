"""Incremental builds: what the last build of the same output folder learned, per source.

A source is unchanged when every one of its files holds the same bytes as when the last
build read it. Deciding that reads no log in the common case: a file whose size, mtime and
inode are the recorded ones is taken as is; a file that was only touched (mtime changed,
bytes not) is recognised by its content digest (the whole file when small, head + tail +
size when large) and is not read again either. An unchanged source's summaries come from
here, and its pages are not rendered again when, besides, each page's neighbours and
figures are unchanged (a new session elsewhere can change a page's previous/next links) and
the files are still on disk. Anything that shapes pages — this package's code, the theme,
the title, prices, redaction — is part of the cache's key, so a change there starts from
scratch. The records are the sources part of the output folder's state file (site_store.py),
in the user's cache folder, never in the site, so that a site stays byte-identical however
it was built.
"""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from replay_site.version import __version__
from replay_site import installed
from replay_site.figures.summary import ModelFigures, SessionSummary
from replay_site.model import Problem
from replay_site.store.file_state import FileState, same_bytes, states_from_json, states_to_json
from replay_site.store.states import code_digest, tree_digest

# The libraries whose output is part of the pages (markup, highlighting, prices, redaction):
# another version may write other bytes, so it is another cache.
PAGE_LIBRARIES = ("jinja2", "pygments", "markdown-it-py", "genai-prices", "kingfisher-secret-scanner")


def _digest(value: Any) -> str:
    return hashlib.sha1(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


@lru_cache(maxsize=1)
def library_files() -> tuple[Path, ...]:
    """The installed metadata of the PAGE_LIBRARIES: entry.py watches these files, so that
    an upgrade (which replaces them) is a change it never answers from the record."""
    return tuple(Path(found) for name in PAGE_LIBRARIES if (found := installed.metadata_file(name)))


def settings_key(theme_folders: list[Path], settings: dict[str, Any]) -> str:
    libraries = {name: installed.version(name) for name in PAGE_LIBRARIES}
    return _digest([__version__, code_digest(), tree_digest(theme_folders), libraries, settings])


def file_states(paths: tuple[Path, ...]) -> list[FileState] | None:
    """The files' stat identity (no digest yet); None when one is missing or unreadable."""
    try:
        return [FileState.of(path) for path in paths]
    except OSError:
        return None


def with_digests(states: list[FileState]) -> list[FileState] | None:
    try:
        return [state.with_digest() for state in states]
    except OSError:
        return None


def still_the_same(recorded: list[FileState], paths: tuple[Path, ...]) -> list[FileState] | None:
    """The files' current states when they hold the recorded bytes, else None. Files whose
    stat is unchanged are not opened; a touched file is hashed, never parsed."""
    current = file_states(paths)
    if current is None or len(current) != len(recorded):
        return None
    return current if all(same_bytes(then, now) for then, now in zip(recorded, current)) else None


def same_readings(first: list[FileState] | None, second: list[FileState] | None) -> bool:
    """Whether two readings of a source's files saw the same bytes (paths, sizes, digests)."""
    def seen(states: list[FileState]) -> list[tuple[str, int, str]]:
        return [(state.path, state.size, state.digest) for state in states]
    return first is not None and second is not None and seen(first) == seen(second)


def nav_key(nav_and_summary: tuple[Any, SessionSummary]) -> str:
    """Everything a session page shows besides the session itself: links and figures."""
    return hashlib.sha1(orjson.dumps(nav_and_summary)).hexdigest()


class BuildCache:
    """The last build's record of each source (under the same key), and this build's."""

    def __init__(self, key: str, records: dict[str, dict[str, Any]]):
        self.key = key
        self.records = records
        self.fresh: dict[str, dict[str, Any]] = {}
        self._page_keys: dict[str, dict[str, str]] = {}  # unchanged_pages' nav keys, for remember

    @staticmethod
    def _id(source) -> str:
        return f"{source.format}\0{source.root}\0{source.rel}"

    def lookup(self, source) -> tuple[list[SessionSummary], list[Problem], list[FileState]] | None:
        """The source's summaries, problems and current file states when its bytes are the
        ones the last build read; None when it must be read."""
        record = self.records.get(self._id(source))
        if not record or not isinstance(record.get("files"), list):
            return None
        states = still_the_same(states_from_json(record["files"]), source.files)
        if states is None:
            return None
        summaries = [SessionSummary(**{**item, "by_model": {k: ModelFigures(**v) for k, v in item["by_model"].items()}})
                     for item in record["summaries"]]
        return summaries, [Problem(**item) for item in record["problems"]], states

    def unchanged_pages(self, source, navs: dict[str, Any]) -> list[str] | None:
        """The files written for `source` last time, when none of them needs writing again
        (the site writer's keep() finds out whether they are all still there)."""
        record = self.records.get(self._id(source))
        if record is None:
            return None
        if record.get("pages") != self.page_keys(source, navs):
            return None
        return record.get("written", [])

    def page_keys(self, source, navs: dict[str, Any]) -> dict[str, str]:
        """The keys of a source's pages (nav_key of each), worked out once for unchanged_pages and remember."""
        ident = self._id(source)
        if ident not in self._page_keys:
            self._page_keys[ident] = {slug: nav_key(value) for slug, value in navs.items()}
        return self._page_keys[ident]

    def same_sources(self) -> bool:
        """Whether this build recorded exactly the sources the last one did (none new, none gone)."""
        return self.records.keys() == self.fresh.keys()

    def remember(self, source, states: list[FileState] | None, summaries: list[SessionSummary],
                 problems: list[Problem], navs: dict[str, Any], written: list[str]) -> None:
        """Record what this build made of `source`; without file states (the log changed while
        it was read) nothing is recorded, so the next build reads it again."""
        if states is None:
            return
        ident = self._id(source)
        self.fresh[ident] = {
            "files": states_to_json(states),
            "summaries": summaries,  # dataclasses, as orjson writes them
            "problems": problems,
            "pages": self._page_keys.pop(ident, None) or {slug: nav_key(value) for slug, value in navs.items()},
            "written": sorted(written),
        }

    def files_read(self) -> dict[str, FileState]:
        """The state of every file this build recorded, by path."""
        return {state.path: state for record in self.fresh.values() for state in states_from_json(record["files"])}

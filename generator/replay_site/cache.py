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
scratch. The cache lives in the user's cache folder, never in the site, so that a site
stays byte-identical however it was built.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

from . import __version__
from .model import Problem
from .site_record import cache_folder, code_digest, tree_digest, write_json
from .summary import ModelFigures, SessionSummary

# Logs up to this size are hashed whole; larger ones by their first and last EDGE_BYTES and
# their size (an append always changes the size; hashing a 30 MB log whole on every
# touch would cost more than the rest of a no-op rebuild).
WHOLE_DIGEST_BYTES = 4 << 20
EDGE_BYTES = 256 << 10

# One file as a build saw it: [path, size, mtime_ns, inode, content digest].
FileState = list


def _digest(value: Any) -> str:
    return hashlib.sha1(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def settings_key(theme_folders: list[Path], settings: dict[str, Any]) -> str:
    return _digest([__version__, code_digest(), tree_digest(theme_folders), settings])


def content_digest(path: Path, size: int) -> str:
    """Digest of the first `size` bytes of `path`: all of them when few, else head + tail + size."""
    digest = hashlib.blake2b(str(size).encode(), digest_size=20)
    with path.open("rb") as stream:
        if size <= WHOLE_DIGEST_BYTES:
            digest.update(stream.read(size))
        else:
            digest.update(stream.read(EDGE_BYTES))
            stream.seek(size - EDGE_BYTES)
            digest.update(stream.read(EDGE_BYTES))
    return digest.hexdigest()


def file_states(paths: tuple[Path, ...]) -> list[FileState] | None:
    """The files' stat identity (no digest yet); None when one is missing or unreadable."""
    states = []
    for path in paths:
        try:
            stat = path.stat()
        except OSError:
            return None
        states.append([str(path), stat.st_size, stat.st_mtime_ns, stat.st_ino, ""])
    return states


def with_digests(states: list[FileState]) -> list[FileState] | None:
    try:
        return [[path, size, mtime, inode, content_digest(Path(path), size)] for path, size, mtime, inode, _ in states]
    except OSError:
        return None


def still_the_same(recorded: list[FileState], paths: tuple[Path, ...]) -> list[FileState] | None:
    """The files' current states when they hold the recorded bytes, else None. Files whose
    stat is unchanged are not opened; a touched file is hashed, never parsed."""
    current = file_states(paths)
    if current is None or len(current) != len(recorded):
        return None
    for now, then in zip(current, recorded):
        if now[:4] == then[:4]:
            now[4] = then[4]
            continue
        if now[0] != then[0] or now[1] != then[1]:
            return None  # another file, or other size: changed without reading a byte
        try:
            now[4] = content_digest(Path(now[0]), now[1])
        except OSError:
            return None
        if now[4] != then[4]:
            return None
    return current


def same_bytes(first: list[FileState] | None, second: list[FileState] | None) -> bool:
    """Whether two readings of a source's files saw the same bytes (paths, sizes, digests)."""
    return first is not None and second is not None and [s[:2] + s[4:] for s in first] == [s[:2] + s[4:] for s in second]


def nav_key(nav_and_summary: tuple[Any, SessionSummary]) -> str:
    """Everything a session page shows besides the session itself: links and figures."""
    nav, summary = nav_and_summary
    return _digest([repr(nav), asdict(summary)])


class BuildCache:
    def __init__(self, out: Path, key: str, enabled: bool = True):
        self.path = cache_folder() / f"{hashlib.sha1(str(out.resolve()).encode()).hexdigest()}.json"
        self.key = key
        self.records: dict[str, dict[str, Any]] = {}
        self.fresh: dict[str, dict[str, Any]] = {}
        if enabled:
            try:
                stored = json.loads(self.path.read_text())
                if stored.get("key") == key:
                    self.records = stored["sources"]
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                self.records = {}  # a missing or damaged cache only costs a full build

    @staticmethod
    def _id(source) -> str:
        return f"{source.format}\0{source.root}\0{source.rel}"

    def lookup(self, source) -> tuple[list[SessionSummary], list[Problem], list[FileState]] | None:
        """The source's summaries, problems and current file states when its bytes are the
        ones the last build read; None when it must be read."""
        record = self.records.get(self._id(source))
        if not record or not isinstance(record.get("files"), list):
            return None
        states = still_the_same(record["files"], source.files)
        if states is None:
            return None
        summaries = [SessionSummary(**{**item, "by_model": {k: ModelFigures(**v) for k, v in item["by_model"].items()}})
                     for item in record["summaries"]]
        return summaries, [Problem(**item) for item in record["problems"]], states

    def unchanged_pages(self, source, navs: dict[str, Any], out: Path) -> list[str] | None:
        """The files written for `source` last time, when none of them needs writing again."""
        record = self.records.get(self._id(source))
        if record is None or record.get("pages") != {slug: nav_key(value) for slug, value in navs.items()}:
            return None
        written = record.get("written", [])
        return written if all((out / name).is_file() for name in written) else None

    def same_sources(self) -> bool:
        """Whether this build recorded exactly the sources the last one did (none new, none gone)."""
        return self.records.keys() == self.fresh.keys()

    def remember(self, source, states: list[FileState] | None, summaries: list[SessionSummary],
                 problems: list[Problem], navs: dict[str, Any], written: list[str]) -> None:
        """Record what this build made of `source`; without file states (the log changed while
        it was read) nothing is recorded, so the next build reads it again."""
        if states is None:
            return
        self.fresh[self._id(source)] = {
            "files": states,
            "summaries": [asdict(s) for s in summaries],
            "problems": [asdict(p) for p in problems],
            "pages": {slug: nav_key(value) for slug, value in navs.items()},
            "written": sorted(written),
        }

    def save(self) -> None:
        """Replace the stored cache with this build's records (sources gone are forgotten)."""
        write_json(self.path, {"key": self.key, "sources": self.fresh})


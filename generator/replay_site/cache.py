"""Incremental builds: what the last build of the same output folder learned, per source.

A source whose files (path, size, mtime) are unchanged is not read again in the first pass:
its summaries come from here. Its pages are not rendered again either when, besides, each
page's neighbours and figures are unchanged (a new session elsewhere can change a page's
previous/next links) and the files are still on disk. Anything that shapes pages — this
package's code, the theme, the title, prices, redaction — is part of the cache's key, so a
change there starts from scratch. The cache lives in the user's cache folder, never in the
site, so that a site stays byte-identical however it was built.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from . import __version__
from .model import Problem
from .readers import SessionSource
from .summary import ModelFigures, SessionSummary


def cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "replay-site"


def _digest(value: Any) -> str:
    return hashlib.sha1(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def _tree_digest(folders: list[Path], suffixes: tuple[str, ...] | None = None) -> str:
    """Content hash of every file under `folders` (of the given suffixes)."""
    digest = hashlib.sha1()
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and (suffixes is None or path.suffix in suffixes):
                digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def settings_key(theme_folders: list[Path], settings: dict[str, Any]) -> str:
    code = _tree_digest([Path(__file__).parent], (".py",))
    return _digest([__version__, code, _tree_digest(theme_folders), settings])


def fingerprint(source: SessionSource) -> str:
    """Changes whenever any file of the source is touched, grows or is replaced."""
    files = []
    for path in source.files:
        try:
            stat = path.stat()
        except OSError:
            return ""
        files.append([str(path), stat.st_size, stat.st_mtime_ns])
    return _digest([source.format, source.rel, str(source.root), files])


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
    def _id(source: SessionSource) -> str:
        return f"{source.format}\0{source.root}\0{source.rel}"

    def _record(self, source: SessionSource) -> dict[str, Any] | None:
        record = self.records.get(self._id(source))
        return record if record and record.get("fingerprint") == fingerprint(source) else None

    def summaries(self, source: SessionSource) -> tuple[list[SessionSummary], list[Problem]] | None:
        record = self._record(source)
        if record is None:
            return None
        summaries = [SessionSummary(**{**item, "by_model": {k: ModelFigures(**v) for k, v in item["by_model"].items()}})
                     for item in record["summaries"]]
        return summaries, [Problem(**item) for item in record["problems"]]

    def unchanged_pages(self, source: SessionSource, navs: dict[str, Any], out: Path) -> list[str] | None:
        """The files written for `source` last time, when none of them needs writing again."""
        record = self._record(source)
        if record is None or record.get("pages") != {slug: nav_key(value) for slug, value in navs.items()}:
            return None
        files = record.get("files", [])
        return files if all((out / name).is_file() for name in files) else None

    def remember(self, source: SessionSource, summaries: list[SessionSummary], problems: list[Problem],
                 navs: dict[str, Any], files: list[str]) -> None:
        self.fresh[self._id(source)] = {
            "fingerprint": fingerprint(source),
            "summaries": [asdict(s) for s in summaries],
            "problems": [asdict(p) for p in problems],
            "pages": {slug: nav_key(value) for slug, value in navs.items()},
            "files": sorted(files),
        }

    def save(self) -> None:
        """Replace the stored cache with this build's records (sources gone are forgotten)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(dir=self.path.parent, prefix=".tmp-")
            with os.fdopen(handle, "w") as stream:
                json.dump({"key": self.key, "sources": self.fresh}, stream)
            os.replace(temp, self.path)
        except OSError:
            pass  # a cache that cannot be written only makes the next build a full one

"""What is installed beside replay-site, as importlib.metadata answers it: a distribution's
version and its METADATA file (the libraries that shape the pages are part of the build
cache's key, and the console entry watches their metadata), and the entry points of a group
(plugin readers). The answers are remembered in the cache folder with the state of every
folder on sys.path, and asked again when one of those folders changed: installing,
upgrading or removing a package makes or removes a folder in its site-packages. Asking cost
a rebuild after one appended turn ~35 ms of CPU (importing importlib.metadata ~15 ms, then
each answer a search of every distribution along the path). Standard library only."""
from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

from replay_site.caches import cache_folder, replace_file_at_once

_FILE = "installed.json"
_memo: dict[str, Any] | None = None  # this process's answers, read once
_paths: list[list[Any]] = []  # the state of sys.path they hold for


def version(distribution: str) -> str | None:
    """The installed version of `distribution`, None when it is not installed."""
    def ask() -> str | None:
        import importlib.metadata

        try:
            return importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            return None

    return _answer(f"version {distribution}", ask)


def metadata_file(distribution: str) -> str | None:
    """The real path of the installed METADATA file of `distribution` (an upgrade replaces it)."""
    def ask() -> str | None:
        import importlib.metadata

        try:
            files = importlib.metadata.distribution(distribution).files or []
        except importlib.metadata.PackageNotFoundError:
            return None
        return next((os.path.realpath(file.locate()) for file in files if file.name == "METADATA"), None)

    return _answer(f"metadata {distribution}", ask)


def entry_points(group: str) -> list[tuple[str, str]]:
    """The (name, value) of each entry point in `group`, in importlib.metadata's order."""
    def ask() -> list[list[str]]:
        import importlib.metadata

        return [[point.name, point.value] for point in importlib.metadata.entry_points(group=group)]

    return [(name, value) for name, value in _answer(f"entry points {group}", ask)]


def path_state() -> list[list[Any]]:
    """Each folder on sys.path with its modification time (None when it is not a folder)."""
    state = []
    for entry in sys.path:
        try:
            state.append([entry, os.stat(entry or os.curdir).st_mtime_ns])
        except OSError:
            state.append([entry, None])
    return state


def _answer(question: str, ask: Callable[[], Any]) -> Any:
    global _memo, _paths
    if _memo is None:
        _paths = path_state()
        try:
            stored = json.loads((cache_folder() / _FILE).read_bytes())
            _memo = stored["answers"] if stored["paths"] == _paths else {}
        except (OSError, ValueError, KeyError, TypeError):
            _memo = {}
    if question not in _memo:
        _memo[question] = ask()
        replace_file_at_once(cache_folder() / _FILE, [json.dumps({"paths": _paths, "answers": _memo}).encode()])
    return _memo[question]

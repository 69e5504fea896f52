"""Discovery's memory: what each reader's detect() answered for each file, by the file's
state (file_state.py); a part of the output folder's store (site_store.py)."""
from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

from replay_site.store.file_state import FileState
from replay_site.store.states import replace_file


class DetectionMemory:
    """What each reader's detect() answered for each file, kept between builds in the user's
    cache folder (discover.DetectionMemory). A file of the same stat has the same head, so the same
    answers: a rebuild reads no head but those of changed files (reading and parsing the
    heads of 262 logs cost ~0.1 s). The answers are the readers' own objects, so the file is
    a pickle, in the user's own cache folder like the build's spool; it is read only when the
    state file lists it (`listed`) and it holds the store's key (this package's code among
    what it hashes), and a memory that cannot be read is only a slower discovery."""

    def __init__(self, path: Path, key: str, listed: bool = True) -> None:
        self.path, self.key = path, key
        self.files: dict[str, tuple[FileState, dict[str, Any]]] = {}
        self.seen: set[str] = set()
        self.changed = not listed  # a memory not listed is written whatever it learns
        if not listed:
            return
        try:
            with path.open("rb") as stream:
                stored = pickle.load(stream)
            if stored["key"] == key:
                self.files = stored["files"]
            else:
                self.changed = True
        except Exception:  # noqa: BLE001 - missing, damaged or from another version: start empty
            self.files, self.changed = {}, True

    def recall(self, path: Path, status: os.stat_result, names: list[str]) -> dict[str, Any] | None:
        key = str(path)
        self.seen.add(key)
        known = self.files.get(key)
        if known is None or not known[0].same_stat(_state(path, status)) or not all(n in known[1] for n in names):
            return None
        return {name: known[1][name] for name in names}

    def learn(self, path: Path, status: os.stat_result, answers: dict[str, Any]) -> None:
        self.files[str(path)] = (_state(path, status), answers)
        self.changed = True

    def save(self) -> None:
        """Keep what this discovery saw (files gone are forgotten)."""
        if not self.changed and self.seen == self.files.keys():
            return
        files = {key: value for key, value in self.files.items() if key in self.seen}
        try:
            data = pickle.dumps({"key": self.key, "files": files}, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError):
            return  # a plugin's answer that cannot be kept only costs the next build the head reads
        replace_file(self.path, data)


def _state(path: Path, status: os.stat_result) -> FileState:
    """A file's state from the stat discovery took; a store's object's from the store (its digest)."""
    return FileState.of_status(path, status) if isinstance(path, Path) else FileState.of(path)

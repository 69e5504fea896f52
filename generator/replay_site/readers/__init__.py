"""The reader registry: one subpackage per format, built-ins and plugins alike.

A reader is any object with the attributes of `Reader`. Built-ins are listed in
BUILTIN (one line per format); third-party packages add theirs through the
entry-point group `replay_site.readers`, and both land in the same dict.
Discovery (discover.py) walks each source once and reads each candidate file's head
once; readers only `detect` their files from a head and `group` the files they detected.
The kit every reader shares: `jsonl` (tolerant lines), `files` (safe opening, heads),
`fields` (typed getters, text made encodable, stubs, titles, unanswered calls), `timestamps`.
"""
from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Protocol

from replay_site import installed
from replay_site.model import Session, Step
from replay_site.readers.fields import settle, settle_head, settle_step
from replay_site.readers.files import Head

BUILTIN = {
    "glue": "replay_site.readers.glue.reader:READER",
    "gptme": "replay_site.readers.gptme.reader:READER",
    "codex": "replay_site.readers.codex.reader:READER",
    "rlm": "replay_site.readers.rlm.reader:READER",
    "claude": "replay_site.readers.claude.reader:READER",
}


@dataclass(frozen=True)
class SessionSource:
    """The files of one session (or one family of sessions) and where they were found."""

    format: str
    path: Path  # the main file or folder
    root: Path  # the SOURCE argument it was found under
    related: tuple[Path, ...] = ()  # files read together with it (subagents, parts)
    # A log gone from disk, read from the archive's copy (archive/): the date the archive
    # first kept it, which its pages show. Readers never look at it.
    kept_since: str | None = None

    @cached_property
    def rel(self) -> str:
        """The path relative to its SOURCE argument, so output never depends on the build's cwd
        (worked out once: a rebuild asks it of every source several times, and pathlib's
        relative_to is slow)."""
        if self.path == self.root:
            return self.path.name
        try:
            return self.path.relative_to(self.root).as_posix()
        except ValueError:
            return self.path.name

    def label(self, path: Path) -> str:
        """How a warning names one of this source's files."""
        if path == self.root:
            return path.name
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.name

    @property
    def files(self) -> tuple[Path, ...]:
        main = tuple(sorted(p for p in self.path.rglob("*") if p.is_file())) if self.path.is_dir() else (self.path,)
        return main + self.related


class Reader(Protocol):
    name: str  # the --format value
    label: str  # what the index calls the agent

    def default_dirs(self) -> list[Path]:
        """Folders the agent writes its logs to on this machine (existing or not)."""

    def detect(self, path: Path, head: Head) -> Any:
        """What `path` is to this reader, from its head alone (any value), or None when not its."""

    def group(self, found: dict[Path, Any], root: Path) -> Iterable[SessionSource]:
        """The sessions made of the files `detect` recognised under `root` (a file or a folder)."""

    def read(self, source: SessionSource) -> list[Session]:
        """Read one source into sessions (children nested). Never raises on bad content."""


class FileReader:
    """What the built-in readers share: `read`, which passes every session through the
    reader boundary (`fields.settle`)."""

    def read(self, source: SessionSource) -> list[Session]:
        sessions = self.read_sessions(source)
        for session in sessions:
            settle(session)
        return sessions

    def read_sessions(self, source: SessionSource) -> list[Session]:
        raise NotImplementedError

    def stream(self, source: SessionSource) -> SessionStream | None:
        """The source's one session given out as it is read, when the reader can (else None:
        `read` it whole). A long log's session then need not be held whole."""
        return None


class SessionStream:
    """One session (without children, never in local time) given out as a reader reads it:
    `steps()` once, in order, numbered, each final; then `session()`, the session without
    its steps. Both pass through the reader boundary, a step at a time."""

    def raw_steps(self) -> Iterator[Step]:
        raise NotImplementedError

    def raw_session(self) -> Session:
        raise NotImplementedError

    def steps(self) -> Iterator[Step]:
        for step in self.raw_steps():
            settle_step(step)
            yield step

    def session(self) -> Session:
        session = self.raw_session()
        settle_head(session)
        return session


def _load(spec: str) -> Reader:
    """The object an entry point names: `module:attribute` (dotted), extras left out."""
    module, _, attribute = spec.partition("[")[0].partition(":")
    found = importlib.import_module(module.strip())
    for name in attribute.strip().split("."):
        found = getattr(found, name)
    return found


@cache
def registry() -> dict[str, Reader]:
    readers = {name: _load(spec) for name, spec in BUILTIN.items()}
    for name, spec in installed.entry_points("replay_site.readers"):
        readers.setdefault(name, _load(spec))
    return readers

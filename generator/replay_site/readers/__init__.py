"""The reader registry: one subpackage per format, built-ins and plugins alike.

A reader is any object with the attributes of `Reader`. Built-ins are listed in
BUILTIN (one line per format); third-party packages add theirs through the
entry-point group `replay_site.readers` (the entry point's name is the reader's `name`):

    [project.entry-points."replay_site.readers"]
    mytool = "mytool_replay.reader:READER"

and both land in the same dict. A plugin never breaks a command and never replaces a reader
silently: one that fails to load (its import or attribute raises), whose reader has another
name than its entry point or lacks a `Reader` method, or that has the name of a built-in or
of a plugin loaded before it, is left out with one warning naming it and why
(`plugin_problems`, which discovery adds to the problems of every build and every command
that reads logs). A built-in always wins: a plugin that reads a built-in's format better
takes a name of its own (`--format mytool`).

Discovery (discover.py) walks each source once and reads each candidate file's head
once; readers only `detect` their files from a head and `group` the files they detected.
The kit every reader shares: `jsonl` (tolerant lines), `files` (safe opening, heads),
`fields` (typed getters, text made encodable, stubs, titles, unanswered calls), `timestamps`.
"""
from __future__ import annotations

import importlib
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Protocol

from replay_site import installed
from replay_site.model import Problem, Session, Step
from replay_site.reader_folders import GROUP
from replay_site.readers.fields import settle, settle_head, settle_step
from replay_site.readers.files import Head

BUILTIN = {
    "glue": "replay_site.readers.glue.reader:READER",
    "gptme": "replay_site.readers.gptme.reader:READER",
    "codex": "replay_site.readers.codex.reader:READER",
    "pi": "replay_site.readers.pi.reader:READER",
    "opencode": "replay_site.readers.opencode.reader:READER",
    "copilot": "replay_site.readers.copilot.reader:READER",
    "aider": "replay_site.readers.aider.reader:READER",
    "goose": "replay_site.readers.goose.reader:READER",
    "kimi": "replay_site.readers.kimi.reader:READER",
    "cursor": "replay_site.readers.cursor.reader:READER",
    "rlm": "replay_site.readers.rlm.reader:READER",
    "atif": "replay_site.readers.atif.reader:READER",
    "openhands": "replay_site.readers.openhands.reader:READER",
    "crush": "replay_site.readers.crush.reader:READER",
    "hermes": "replay_site.readers.hermes.reader:READER",
    "gemini": "replay_site.readers.gemini.reader:READER",
    "qwen": "replay_site.readers.qwen.reader:READER",
    "droid": "replay_site.readers.droid.reader:READER",
    "amp": "replay_site.readers.amp.reader:READER",
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
    # A session whose log is gone, of which only the prompts an agent's history lists are
    # left (readers/claude/history.py): its reader reads them, not a log.
    prompts_only: bool = False

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
    # The environment variables `default_dirs` reads (HOME for Path.home()): a change to one
    # is a change the console entry's "nothing changed" path must see (reader_folders.py).
    env_vars: tuple[str, ...]

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


def registry() -> dict[str, Reader]:
    """Every reader by name: the built-ins, then the plugins that loaded (see the module's docstring)."""
    return _loaded()[0]


def plugin_problems() -> list[Problem]:
    """One warning for each plugin reader left out."""
    return list(_loaded()[1])


@cache
def _loaded() -> tuple[dict[str, Reader], tuple[Problem, ...]]:
    readers = {name: _load(spec) for name, spec in BUILTIN.items()}
    problems = []
    for name, spec in installed.entry_points(GROUP):
        reader, why = _plugin(name, spec, readers)
        if reader is not None:
            readers[name] = reader
        else:
            problems.append(Problem("warning", f"plugin reader {name!r} ({spec}) {why}; left out"))
    return readers, tuple(problems)


def _plugin(name: str, spec: str, readers: dict[str, Reader]) -> tuple[Reader | None, str]:
    """The plugin reader an entry point names, or None and why it is left out."""
    if name in BUILTIN:
        return None, "has the name of a built-in reader, which is kept"
    if name in readers:
        return None, "has the name of another plugin reader, loaded before it"
    try:
        reader = _load(spec)
    except Exception as exc:  # whatever a third party's import raises, the command goes on
        return None, f"could not be loaded ({traceback.format_exception_only(exc)[-1].strip()})"
    if getattr(reader, "name", None) != name:
        return None, f"reads logs as {getattr(reader, 'name', None)!r}, not by its entry point's name"
    finding = ("detect", "group") if not hasattr(reader, "find") else ()
    lacking = [attribute for attribute in ("label", "default_dirs", *finding, "read") if not hasattr(reader, attribute)]
    if lacking:
        return None, f"is not a reader (it has no {', '.join(lacking)})"
    return reader, ""

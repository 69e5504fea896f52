"""ATIF trajectories (Harbor RFC 0001, `schema_version` "ATIF-v1.0" … "ATIF-v1.8") -> Sessions.

A trajectory is one JSON object (Harbor writes `agent/trajectory.json` in each trial); a
JSONL file whose lines are trajectories (datasets of them) is read too, a session a line.
A trajectory may name other files: a subagent's (`subagent_trajectory_ref.trajectory_path`)
and the one it continues in after a summarization (`continued_trajectory_ref`); files named
so beside it are read with it, as its children and its later steps. The steps themselves are
read in trajectory.py.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replay_site.model import Session
from replay_site.readers import FileReader, SessionSource, jsonl
from replay_site.readers.atif.trajectory import FORMAT, TrajectoryReader
from replay_site.readers.files import Head, open_log, plain_name, read_head

# The version tag, wherever in the head the writer put it (Harbor writes it first).
_VERSION = re.compile(rb'"schema_version"\s*:\s*"ATIF-v[0-9]')
_REFERENCE = re.compile(rb'"(?:trajectory_path|continued_trajectory_ref)"\s*:\s*"((?:[^"\\]|\\.){1,500})"')
_LONGEST_REFERENCE = 2048  # bytes: a match of _REFERENCE (1,000 for the name at most, a few for the key and spaces)
_SEARCHED_AT_ONCE = 1 << 20


@dataclass(frozen=True)
class Found:
    """An ATIF file as its head shows it: one trajectory (json) or one a line (jsonl), and
    the files it names (as written, relative to its folder)."""

    lines: bool
    names: tuple[str, ...]


def _references(path: Path, head: Head) -> tuple[str, ...]:
    """The files a trajectory names, wherever in it it names them: a long trajectory's
    subagent steps come after the head, so the rest of a file the head did not hold is
    searched too, a MiB at a time (only files already known to be ATIF get here)."""
    found = [match.group(1) for match in _REFERENCE.finditer(head.data)]
    if not head.complete:
        try:
            with open_log(path) as stream:
                carried = b""
                while chunk := stream.read(_SEARCHED_AT_ONCE):
                    block = carried + chunk
                    found.extend(match.group(1) for match in _REFERENCE.finditer(block))
                    carried = block[-_LONGEST_REFERENCE:]  # a name cut by the chunk's end is whole in the next block
        except OSError:  # unreadable past its head (a damaged stream): the names the head holds
            pass
    return tuple(dict.fromkeys(name.decode("utf-8", "replace") for name in found))


def _named(path: Path, name: str) -> Path | None:
    """The local file a trajectory_path names, beside the file naming it; URLs and store refs are not files."""
    if "://" in name or not name:
        return None
    return Path(name) if Path(name).is_absolute() else path.parent / name


class AtifReader(FileReader):
    name = FORMAT
    label = "ATIF trajectory"
    env_vars: tuple[str, ...] = ()

    def default_dirs(self) -> list[Path]:
        # Harbor writes trajectories into each job's trial folders, wherever the job ran:
        # there is no per-user folder to look in.
        return []

    def detect(self, path: Path, head: Head) -> Found | None:
        suffix = plain_name(path).suffix
        if suffix not in (".json", ".jsonl") and not head.named:
            return None
        if head.data.lstrip()[:1] != b"{":
            return None
        first = head.first_object()
        if suffix == ".jsonl" or (suffix != ".json" and first is not None):
            # a trajectory a line: the first line says so (parsed once for every reader)
            version = first.get("schema_version") if first else None
            return Found(True, ()) if isinstance(version, str) and version.startswith("ATIF-") else None
        # Harbor writes the version first; a writer sorting its keys puts the agent block (with
        # its tool definitions, which can be long) before it: the whole head is searched.
        if not _VERSION.search(head.data):
            return None
        return Found(False, _references(path, head))

    def group(self, found: dict[Path, Found], root: Path) -> Iterator[SessionSource]:
        if not root.is_dir():
            if root in found:
                yield SessionSource(self.name, root, root, tuple(sorted(self._named_from(root, found[root]) - {root})))
            return
        # Files naming each other are read together: each set of files linked by their names is
        # one source, headed by a file no other names (the first in path order when all are named).
        links: dict[Path, set[Path]] = {path: set() for path in found}
        named: set[Path] = set()
        for path, item in found.items():
            for name in item.names:
                target = _named(path, name)
                if target is not None and target in found and target != path and not found[target].lines:
                    links[path].add(target)
                    links[target].add(path)
                    named.add(target)
        placed: set[Path] = set()
        for path in sorted(found):
            if path in placed:
                continue
            family, pending = set(), [path]
            while pending:
                member = pending.pop()
                if member not in family:
                    family.add(member)
                    pending.extend(links[member] - family)
            placed |= family
            head = min(family, key=lambda member: (member in named, member))
            yield SessionSource(self.name, head, root, tuple(sorted(family - {head})))

    def _named_from(self, path: Path, item: Found) -> set[Path]:
        """The files a trajectory file names, and those they name in turn (a subagent's own
        subagents): a file given alone is read with every file of its family."""
        family, pending = {path}, [(path, item)]
        while pending:
            member, found = pending.pop()
            for name in found.names:
                target = _named(member, name)
                if target is None or target in family or not target.is_file():
                    continue
                family.add(target)
                try:
                    named = self.detect(target, read_head(target, named=True))
                except OSError:
                    continue
                if isinstance(named, Found) and not named.lines:
                    pending.append((target, named))
        return family

    def read_sessions(self, source: SessionSource) -> list[Session]:
        label = source.label(source.path)
        holder = Session(id=plain_name(source.path).stem, format=FORMAT, source=label)
        documents = self._documents(source.path, holder, label)
        related = {path.resolve(): path for path in source.related}

        def load(name: str) -> list[dict[str, Any]] | None:
            target = _named(source.path, name)
            if target is None or target.resolve() not in related:
                return None
            found = related[target.resolve()]
            return [document for _, document in self._documents(found, holder, source.label(found))] or None

        sessions = []
        for number, document in documents:
            fallback = holder.id if number is None else f"{holder.id}:{number}"
            session = TrajectoryReader(label, load).session(document, fallback)
            sessions.append(session)
        if not sessions:
            holder.warn("warning", "no ATIF trajectory could be read from this file")
            return [holder]
        sessions[0].problems[:0] = holder.problems
        return sessions

    def _documents(self, path: Path, holder: Session, label: str) -> list[tuple[int | None, dict[str, Any]]]:
        """The trajectories of one file: (None, the object) for a JSON file, (line, object) for JSONL."""
        if _one_a_line(path):
            return [(line, obj) for line, obj in jsonl.iter_objects(path, holder.problems, label) if _is_trajectory(obj, holder, line)]
        document = jsonl.load_json(path, holder.problems, label)
        return [(None, document)] if document is not None and _is_trajectory(document, holder, None) else []


def _one_a_line(path: Path) -> bool:
    """Whether a file holds a trajectory a line: by its name, or for a file named otherwise
    (given on the command line) by its first line being a whole object."""
    suffix = plain_name(path).suffix
    if suffix in (".json", ".jsonl"):
        return suffix == ".jsonl"
    try:
        return bool(read_head(path).objects(1))
    except OSError:
        return False


def _is_trajectory(obj: dict[str, Any], holder: Session, line: int | None) -> bool:
    version = obj.get("schema_version")
    if isinstance(version, str) and version.startswith("ATIF-") and isinstance(obj.get("steps"), list):
        return True
    holder.warn("bad_line", "not an ATIF trajectory (no ATIF schema_version and steps), skipped", line)
    return False


READER = AtifReader()

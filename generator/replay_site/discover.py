"""Find sessions: one walk of each SOURCE argument (or the agents' default folders), one head
read per candidate file, and each reader's `detect` and `group` on what was read."""
from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from .model import Problem
from .readers import Reader, SessionSource, registry
from .readers.files import Head, describe_error, file_kind, read_head

# Files worth a head read inside a folder; a file named on the command line is read whatever
# its name, since a copied log keeps its content but not always its name.
CANDIDATE_SUFFIXES = (".jsonl", ".json")


class DiscoveryError(Exception):
    """A source the user named cannot be used (missing, unreadable, or holds no session)."""


def pick_readers(format_name: str) -> list[Reader]:
    readers = registry()
    if format_name == "auto":
        return list(readers.values())
    if format_name not in readers:
        raise DiscoveryError(f"unknown format {format_name!r}; known: {', '.join(sorted(readers))}")
    return [readers[format_name]]


def default_roots(readers: Iterable[Reader]) -> list[Path]:
    """The agents' default log folders that exist on this machine, each once."""
    found: dict[Path, None] = {}
    for reader in readers:
        for folder in reader.default_dirs():
            if folder.is_dir():
                found.setdefault(folder.resolve())
    return list(found)


def discover(roots: list[Path], readers: list[Reader], problems: list[Problem]) -> list[SessionSource]:
    """Every session under `roots`, each file claimed by one reader only (the first that asks).

    A missing or unreadable root, or a root where no reader finds anything, is a
    DiscoveryError; a JSONL file under a folder that no reader claims is reported, never
    silently passed over.
    """
    sources: list[SessionSource] = []
    for root in roots:
        if not root.exists():
            raise DiscoveryError(f"{root}: no such file or folder")
        root = root.resolve()
        if not root.is_dir():
            try:
                read_head(root)
            except OSError as exc:
                raise DiscoveryError(f"{root}: {describe_error(exc)}") from None
        found = find_sources(root, readers, problems)
        if not found:
            raise DiscoveryError(f"{root}: no readable session found")
        sources.extend(found)
    return sorted(sources, key=lambda s: (s.root.as_posix(), s.rel, s.format))


def find_sources(root: Path, readers: list[Reader], problems: list[Problem]) -> list[SessionSource]:
    """The sessions under one root: walked once, each candidate's head read once, then every
    reader (in registry order) detects its files and groups them; a file goes to the first
    reader whose group claims it."""
    heads = walk(root, problems)
    claimed: set[Path] = set()
    sources: list[SessionSource] = []
    for reader in readers:
        detect = getattr(reader, "detect", None)
        if detect is None:  # a plugin reader that only offers find()
            offered = list(reader.find(root))
        else:
            tags = {path: tag for path, head in heads.items() if (tag := detect(path, head)) is not None}
            offered = list(reader.group(tags, root))
        for source in offered:
            files = set(source.files)
            if claimed & files:
                continue
            claimed |= files
            sources.append(source)
    for path in heads:
        if path.suffix == ".jsonl" and path not in claimed:
            problems.append(Problem("warning", "no reader recognises this file, skipped", _label(path, root)))
    return sources


def walk(root: Path, problems: list[Problem]) -> dict[Path, Head]:
    """The heads of the candidate files under `root` (or of `root` itself), in path order.

    Only regular files are opened (symlinks resolved first, non-blocking): FIFOs, devices and
    sockets are skipped with a warning, as are files that cannot be read.
    """
    if not root.is_dir():
        return _heads([root], root, problems, named=True)
    paths = []

    def unreadable(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else root
        problems.append(Problem("warning", f"folder not searched: {describe_error(exc)}", _label(where, root)))

    # Symlinked folders are not entered: a link back up the tree would loop.
    for folder, dirnames, filenames in os.walk(root, onerror=unreadable):
        dirnames.sort()
        paths.extend(Path(folder) / name for name in sorted(filenames) if name.endswith(CANDIDATE_SUFFIXES))
    return _heads(paths, root, problems, named=False)


def _heads(paths: list[Path], root: Path, problems: list[Problem], named: bool) -> dict[Path, Head]:
    heads: dict[Path, Head] = {}
    for path in paths:
        try:
            mode = os.stat(path).st_mode
            if not stat.S_ISREG(mode):
                problems.append(Problem("warning", f"{file_kind(mode)}, not a regular file: skipped", _label(path, root)))
                continue
            heads[path] = read_head(path, named)
        except OSError as exc:
            problems.append(Problem("warning", f"{describe_error(exc)}: skipped", _label(path, root)))
    return heads


def _label(path: Path, root: Path) -> str:
    if path == root:
        return path.name
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name

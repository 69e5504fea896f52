"""Find sessions: walk SOURCE arguments (or the agents' default folders) and ask each reader."""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .model import Problem
from .readers import Reader, SessionSource, registry


class DiscoveryError(Exception):
    """A source the user named cannot be used (missing, or holds no session)."""


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

    A missing root, or a root where no reader finds anything, is a DiscoveryError; a
    JSONL file under a folder that no reader claims is reported, never silently passed over.
    """
    sources: list[SessionSource] = []
    for root in roots:
        if not root.exists():
            raise DiscoveryError(f"{root}: no such file or folder")
        root = root.resolve()
        claimed: set[Path] = set()
        found_here = 0
        for reader in readers:
            for source in reader.find(root):
                files = set(source.files)
                if claimed & files:
                    continue
                claimed |= files
                sources.append(source)
                found_here += 1
        if not found_here:
            raise DiscoveryError(f"{root}: no readable session found")
        if root.is_dir():
            for stray in sorted(root.rglob("*.jsonl")):
                if stray not in claimed:
                    problems.append(Problem("warning", "no reader recognises this file, skipped", stray.relative_to(root).as_posix()))
    return sorted(sources, key=lambda s: (s.root.as_posix(), s.rel, s.format))

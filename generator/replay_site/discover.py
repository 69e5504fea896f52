"""Find sessions: one walk of each SOURCE argument (or the agents' default folders), one head
read per candidate file, and each reader's `detect` and `group` on what was read."""
from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from replay_site.model import Problem
from replay_site.readers import Reader, SessionSource, plugin_problems, registry
from replay_site.readers.files import COMPRESSED_SUFFIXES, describe_error, file_kind, is_local, plain_name, read_head
from replay_site.store.file_state import content_digest

# Files worth a head read inside a folder, plain or compressed (the content decides which);
# a file named on the command line is read whatever its name, since a copied log keeps its
# content but not always its name.
LOG_SUFFIXES = (".jsonl", ".json")
CANDIDATE_SUFFIXES = LOG_SUFFIXES + tuple(log + packed for log in LOG_SUFFIXES for packed in COMPRESSED_SUFFIXES)


def candidate_suffixes(readers: Iterable[Reader]) -> tuple[str, ...]:
    """The file endings worth a head read: the logs', and those a reader declares for a log of
    another kind (`suffixes`: OpenCode's SQLite database)."""
    extra = sorted({suffix for reader in readers for suffix in getattr(reader, "suffixes", ()) if isinstance(suffix, str)})
    return CANDIDATE_SUFFIXES + tuple(extra)


class DetectionMemory(Protocol):
    """What the readers answered for each file at a given stat, kept between builds
    (store/detections.py): a rebuild reads no head but those of changed files."""

    def recall(self, path: Path, status: os.stat_result, names: list[str]) -> dict[str, Any] | None: ...

    def learn(self, path: Path, status: os.stat_result, answers: dict[str, Any]) -> None: ...


class DiscoveryError(Exception):
    """A source the user named cannot be used (missing, unreadable, or holds no session)."""


def pick_readers(format_name: str) -> list[Reader]:
    readers = registry()
    if format_name == "auto":
        return list(readers.values())
    if format_name not in readers:
        raise DiscoveryError(f"unknown format {format_name!r}; known: {', '.join(sorted(readers))}{left_out_plugins()}")
    return [readers[format_name]]


def left_out_plugins() -> str:
    """The plugin readers left out, for an error that one of them may explain."""
    return "".join(f"; {problem}" for problem in plugin_problems())


def default_roots(readers: Iterable[Reader]) -> list[Path]:
    """The agents' default log folders that exist on this machine, each once."""
    found: dict[Path, None] = {}
    for reader in readers:
        for folder in reader.default_dirs():
            if folder.is_dir():
                found.setdefault(folder.resolve())
    return list(found)


def discover(roots: list[Path], readers: list[Reader], problems: list[Problem],
             memory: DetectionMemory | None = None, empty: list[Path] | None = None) -> list[SessionSource]:
    """Every session under `roots`, each file claimed by one reader only (the first that asks).

    A missing or unreadable root, or a root where no reader finds anything, is a
    DiscoveryError; a JSONL file under a folder that no reader claims is reported, never
    silently passed over. With a `memory`, a file the last build saw as it is now is not
    read again: the readers' answers for it are remembered. With `empty`, a root that is
    missing or holds no session is listed there instead (the archive may hold its logs).
    """
    problems.extend(plugin_problems())  # the plugin readers left out, so that no log goes unread unsaid
    sources: list[SessionSource] = []
    real_paths: dict[Path, Path] = {}  # each candidate's resolved path, as the walk found it
    for root in roots:
        if not root.exists():
            if empty is None:
                raise DiscoveryError(f"{root}: no such file or folder")
            empty.append(root)
            continue
        root = root.resolve() if is_local(root) else root
        if not root.is_dir():
            try:
                read_head(root)
            except OSError as exc:
                raise DiscoveryError(f"{root}: {describe_error(exc)}") from None
        found = find_sources(root, readers, problems, memory, real_paths)
        if not found:
            if empty is None:
                raise DiscoveryError(f"{root}: no readable session found{left_out_plugins()}")
            empty.append(root)
        sources.extend(found)
    ordered = sorted(sources, key=lambda s: (s.root.as_posix(), s.rel, s.format))
    # A log named twice (a root that is a symlink to a file under another root) is read once:
    # a source whose files were all read with another is left out.
    seen: set[Path] = set()
    kept = []
    for source in ordered:
        files = {real_paths.get(path) or path.resolve() for path in source.files}
        if files and files <= seen:
            continue
        seen |= files
        kept.append(source)
    return one_of_each(kept, problems)


def one_of_each(sources: list[SessionSource], problems: list[Problem]) -> list[SessionSource]:
    """The sources, a byte-identical copy of an earlier one's files (Claude Code's background
    copies, a Codex rollout in sessions/ and archived_sessions/) left out, among the files
    skipped. Only sources whose files' sizes are another's are hashed."""
    def sizes(source: SessionSource) -> tuple[int, ...] | None:
        try:
            return tuple(sorted(os.stat(path).st_size for path in source.files)) if is_local(source.path) else None
        except OSError:  # left for the reader, which reports it
            return None

    by_size: dict[tuple, list[int]] = {}
    for index, source in enumerate(sources):
        if (key := sizes(source)) is not None:
            by_size.setdefault((source.format, key), []).append(index)
    copies: set[int] = set()
    for indexes in by_size.values():
        first_of: dict[tuple[str, ...], int] = {}
        for index in indexes if len(indexes) > 1 else ():
            try:
                digests = tuple(sorted(content_digest(path, os.stat(path).st_size) for path in sources[index].files))
            except OSError:
                continue
            if digests in first_of:
                copies.add(index)
                problems.append(Problem("skipped_file", f"a byte-identical copy of {sources[first_of[digests]].rel}, "
                                        "shown once", sources[index].rel))
            else:
                first_of[digests] = index
    return [source for index, source in enumerate(sources) if index not in copies]


def find_sources(root: Path, readers: list[Reader], problems: list[Problem],
                 memory: DetectionMemory | None = None, real_paths: dict[Path, Path] | None = None) -> list[SessionSource]:
    """The sessions under one root: walked once, each candidate's head read once, then every
    reader (in registry order) detects its files and groups them; a file goes to the first
    reader whose group claims it. `real_paths` learns each candidate's resolved path."""
    detecting = [reader for reader in readers if getattr(reader, "detect", None) is not None]
    answers = _answers(root, detecting, problems, memory, {} if real_paths is None else real_paths,
                       candidate_suffixes(detecting))
    claimed: dict[Path, str] = {}  # file -> the format whose source holds it
    sources: list[SessionSource] = []
    for reader in readers:
        if reader not in detecting:  # a plugin reader that only offers find()
            offered = list(reader.find(root))
        else:
            tags = {path: tag for path, said in answers.items() if (tag := said[reader.name]) is not None}
            offered = list(reader.group(tags, root))
        for source in offered:
            files = set(source.files)
            if not files.isdisjoint(claimed):
                continue
            claimed.update(dict.fromkeys(files, source.format))
            sources.append(source)
    for path, said in answers.items():
        if plain_name(path).suffix == ".jsonl" and path not in claimed:
            problems.append(Problem("skipped_file", "no reader recognises this file", _label(path, root)))
        doubtful = [reader.name for reader in detecting if said[reader.name] is not None]
        if len(doubtful) > 1:
            # Content should tell producers apart; when it does not, say so rather than guess silently.
            problems.append(Problem("warning", f"both the {' and the '.join(doubtful)} readers recognise this file by its content; "
                                    f"read as {claimed.get(path, 'neither')}", _label(path, root)))
    return sources


def _answers(root: Path, readers: list[Reader], problems: list[Problem],
             memory: DetectionMemory | None, real_paths: dict[Path, Path],
             suffixes: tuple[str, ...]) -> dict[Path, dict[str, Any]]:
    """Each candidate file's detect() answer by reader name, in path order: remembered for a
    file of the same stat as when the memory learnt it, else from its head. Only regular
    files are opened (symlinks resolved first, non-blocking): FIFOs, devices and sockets are
    skipped with a warning, as are files that cannot be read."""
    named = not root.is_dir()  # a file named on the command line: recognised by content alone
    names = [reader.name for reader in readers]
    answers: dict[Path, dict[str, Any]] = {}
    for path in [root] if named else _candidates(root, problems, real_paths, suffixes):
        try:
            status = os.stat(path) if is_local(path) else path.stat()
            if not stat.S_ISREG(status.st_mode):
                problems.append(Problem("skipped_file", f"{file_kind(status.st_mode)}, not a regular file", _label(path, root)))
                continue
            said = memory.recall(path, status, names) if memory and not named else None
            if said is None:
                head = read_head(path, named)
                said = {reader.name: reader.detect(path, head) for reader in readers}
                if memory and not named:
                    memory.learn(path, status, said)
        except OSError as exc:
            problems.append(Problem("skipped_file", describe_error(exc), _label(path, root)))
            continue
        answers[path] = said
    return answers


def _candidates(root: Path, problems: list[Problem], real_paths: dict[Path, Path],
                suffixes: tuple[str, ...]) -> list[Path]:
    """The files under folder `root` worth a head read, in path order (their resolved paths in `real_paths`)."""
    if not is_local(root):
        return _stored_candidates(root, suffixes)
    paths = []

    def unreadable(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else root
        problems.append(Problem("warning", f"folder not searched: {describe_error(exc)}", _label(where, root)))

    # Symlinked folders are not entered: a link back up the tree would loop.
    for folder, dirnames, filenames in os.walk(root, onerror=unreadable):
        dirnames.sort()
        paths.extend(Path(folder) / name for name in sorted(filenames) if name.endswith(suffixes))
    # The walk enters no symlinked folder, so under a root that is its own real path only a
    # file itself can be a link: the others need no resolve() (~50 us each, per component).
    return _distinct(paths, real_paths, os.path.realpath(root) == os.fspath(root))


def _distinct(paths: list[Path], real_paths: dict[Path, Path], real_folders: bool) -> list[Path]:
    """Each log once: a compressed copy beside its plain file is passed over (Codex keeps both
    for a moment while it re-opens a compressed rollout; the plain one is the newer), and a file
    reached through symlinks is read at the path that is not a link (else the first in path order).
    `real_folders`: every path's folder is its own real path."""
    listed = set(paths)
    kept: dict[Path, Path] = {}
    for path in paths:
        if plain_name(path) != path and plain_name(path) in listed:
            continue
        try:
            real = real_paths[path] = path if real_folders and not os.path.islink(path) else path.resolve()
        except (OSError, RuntimeError):  # a symlink loop: left for the stat that reports it
            real = path
        if real not in kept or (kept[real].is_symlink() and not path.is_symlink()):
            kept[real] = path
    return sorted(kept.values())


def _stored_candidates(root, suffixes: tuple[str, ...]) -> list:
    """The objects under a store's folder `root` (a UPath) worth a head read, listed in one
    go and in os.walk's order (a folder's files before its subfolders, each by name), so that
    readers group them as they would the same files on disk."""
    def walk_order(relative: str) -> tuple:
        *folders, name = relative.split("/")
        return (*((1, folder) for folder in folders), (0, name))

    base = root.path.rstrip("/")
    names = [found.removeprefix(base).lstrip("/") for found in root.fs.find(base)]
    return [root.joinpath(*name.split("/")) for name in sorted(names, key=walk_order) if name.endswith(suffixes)]


def _label(path: Path, root: Path) -> str:
    if path == root:
        return path.name
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name

"""The site record: what a whole build saw and wrote (the state file's site part,
state_file.py), so that the console entry (entry.py) can tell that running the same command
again would change nothing. Standard library only: answering that must not import the
readers, the renderer or the price table."""
from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from replay_site.caches import replace_file_at_once
from replay_site.store.file_state import MISSING, FileState, content_digest, same_bytes

# The files and folders under a build's inputs, in walk order (tree_listing).
Listing = list[FileState]


def tree_digest(folders: list[Path], suffixes: tuple[str, ...] | None = None) -> str:
    """Content hash of every file under `folders` (of the given suffixes)."""
    digest = hashlib.sha1()
    for folder in folders:
        found = []
        for parent, _folders, names in os.walk(folder):  # os.walk: a rebuild walked this package's code with rglob in ~50 ms
            found += [os.path.join(parent, name) for name in names if suffixes is None or os.path.splitext(name)[1] in suffixes]
        for relative, path in sorted((Path(path).relative_to(folder).parts, path) for path in found):
            if os.path.isfile(path):
                with open(path, "rb") as stream:
                    digest.update("/".join(relative).encode() + b"\0" + stream.read())
    return digest.hexdigest()


@lru_cache(maxsize=1)
def code_digest() -> str:
    return tree_digest([Path(__file__).parents[1]], (".py",))


def tree_listing(paths: list[Path]) -> Listing | None:
    """Every file and folder under `paths` (files or folders, missing ones included as
    missing), in walk order, files without their digest until attach_digests() fills it.
    None when a symbolic link makes the walk unlike the readers' own, so that nothing is
    ever taken as unchanged on a guess."""
    entries: Listing = []
    pending = [str(path) for path in reversed(paths)]
    while pending:
        path = pending.pop()
        try:
            status = os.lstat(path)
        except OSError:
            entries.append(FileState(path, MISSING))
            continue
        if stat.S_ISLNK(status.st_mode):
            return None
        entry = FileState.of_status(path, status)
        entries.append(entry)
        if not entry.is_file:
            try:
                names = sorted(os.listdir(path), reverse=True)
            except OSError:
                return None
            pending.extend(os.path.join(path, name) for name in names)
    return entries


# What the console entry hands the build it runs: the listing it took (by the paths listed) and
# the key of its command line, which that build's record answers from then on (taken once).
_HANDED_OVER: dict[tuple[str, ...], Listing] = {}
_REQUEST: list[str] = []


def hand_over(paths: list[Path], listing: Listing | None) -> None:
    """Keep the listing of `paths` the console entry took for the build it is about to run:
    taken before that build's discovery too, it serves the build's record as well as a listing
    taken again would (a file changed since only makes the record stale)."""
    if listing is not None:
        _HANDED_OVER[tuple(map(str, paths))] = listing


def hand_over_request(key: str) -> None:
    """The command line the console entry runs a build for: that build's record names it, so
    that the state file is written once (not stamped again after the build)."""
    _REQUEST[:] = [key]


def request_for_build() -> str | None:
    return _REQUEST.pop() if _REQUEST else None


def listing_for_build(paths: list[Path]) -> Listing | None:
    """The listing handed over for exactly these paths (once), else tree_listing(paths)."""
    handed = _HANDED_OVER.pop(tuple(map(str, paths)), None)
    return handed if handed is not None else tree_listing(paths)


def attach_digests(listing: Listing, known: dict[str, FileState], hashed: tuple[str, ...]) -> None:
    """Fill in the content digests a later run needs to tell a touched file from a changed
    one: from `known` file states (taken when the build read the file) when they are of the
    same stat, else computed for the regular files under `hashed` (theme, prices: small).
    A file left without one is taken as changed whenever its stat moves."""
    for entry in listing:
        if not entry.is_file:
            continue
        state = known.get(entry.path)
        if state is not None and state.same_stat(entry):
            entry.digest = state.digest
        elif entry.path.startswith(hashed):
            try:
                if stat.S_ISREG(os.lstat(entry.path).st_mode):
                    entry.digest = content_digest(entry.path, entry.size)
            except OSError:
                pass


def changed_files(recorded: Listing, current: Listing | None) -> Listing | None:
    """The files of `current` whose bytes differ from `recorded`'s (none: the same bytes), or
    None when the listings differ otherwise (a file or folder added, removed, or not the
    same kind). Digests are kept in `current` (so it can be recorded in turn)."""
    if current is None or len(current) != len(recorded):
        return None
    changed = []
    for then, now in zip(recorded, current):
        if (now.path, now.kind) != (then.path, then.kind):
            return None
        if now.is_file and not same_bytes(then, now):
            changed.append(now)
    return changed


def output_states(out: Path, names: set[str]) -> dict[str, list[int]] | None:
    states = {}
    folder = os.fspath(out)
    for name in sorted(names):
        try:
            status = os.stat(os.path.join(folder, name))
        except OSError:
            return None
        states[name] = [status.st_size, status.st_mtime_ns]
    return states


def unchanged_outputs(out: Path, record: dict[str, Any] | None) -> set[str] | None:
    """The files the last build of `out` wrote (its site record, under this build's key), when
    all are still as it left them (the manifest aside: the writer writes that anew)."""
    from replay_site.store.publish import (
        MANIFEST,  # here: publish finds libc on import, which entry.py can do without
    )

    try:
        if output_states(out, set(record["outputs"])) != record["outputs"]:
            return None
        return set(record["outputs"]) - {MANIFEST}
    except (KeyError, TypeError):
        return None


def replace_file(path: Path, value: Any) -> None:
    """Replace `path` at once with `value`: as JSON, bytes already encoded, or an iterator of
    bytes written as they come."""
    replace_file_at_once(path, [value] if isinstance(value, bytes) else value if isinstance(value, Iterator) else [json.dumps(value).encode()])

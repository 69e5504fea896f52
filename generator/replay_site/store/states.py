"""The site record: what a whole build saw and wrote, so that the console entry (entry.py)
can tell that running the same command again would change nothing. Standard library only:
answering that must not import the readers, the renderer or the price table."""
from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from replay_site import cache_folder

# Logs up to this size are hashed whole; larger ones by their first and last EDGE_BYTES and
# their size (an append always changes the size; hashing a 30 MB log whole on every
# touch would cost more than the rest of a no-op rebuild).
WHOLE_DIGEST_BYTES = 4 << 20
EDGE_BYTES = 256 << 10

# The files and folders under a build's inputs, in walk order (tree_listing).
Listing = list[list]


def tree_digest(folders: list[Path], suffixes: tuple[str, ...] | None = None) -> str:
    """Content hash of every file under `folders` (of the given suffixes)."""
    digest = hashlib.sha1()
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and (suffixes is None or path.suffix in suffixes):
                digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@lru_cache(maxsize=1)
def code_digest() -> str:
    return tree_digest([Path(__file__).parents[1]], (".py",))


def cache_path(out: Path, kind: str) -> Path:
    """The cache file of one kind (`site.json`, `json`, ...) for the site built at `out`."""
    return cache_folder() / f"{hashlib.sha1(str(out.resolve()).encode()).hexdigest()}.{kind}"


def site_record_path(out: Path) -> Path:
    return cache_path(out, "site.json")


def content_digest(path: str | Path, size: int) -> str:
    """Digest of the first `size` bytes of `path`: all of them when few, else head + tail + size."""
    digest = hashlib.blake2b(str(size).encode(), digest_size=20)
    with open(path, "rb") as stream:
        if size <= WHOLE_DIGEST_BYTES:
            digest.update(stream.read(size))
        else:
            digest.update(stream.read(EDGE_BYTES))
            stream.seek(size - EDGE_BYTES)
            digest.update(stream.read(EDGE_BYTES))
    return digest.hexdigest()


def tree_listing(paths: list[Path]) -> Listing | None:
    """Every file and folder under `paths` (files or folders, missing ones included as
    missing), in walk order: a file as [path, size, mtime_ns, inode, digest], the digest
    empty until attach_digests() fills it. None when a symbolic link makes the walk unlike
    the readers' own, so that nothing is ever taken as unchanged on a guess."""
    entries: Listing = []
    pending = [str(path) for path in reversed(paths)]
    while pending:
        path = pending.pop()
        try:
            status = os.lstat(path)
        except OSError:
            entries.append([path, "missing"])
            continue
        if stat.S_ISLNK(status.st_mode):
            return None
        if stat.S_ISDIR(status.st_mode):
            try:
                names = sorted(os.listdir(path), reverse=True)
            except OSError:
                return None
            entries.append([path, "folder"])
            pending.extend(os.path.join(path, name) for name in names)
        else:
            entries.append([path, status.st_size, status.st_mtime_ns, status.st_ino, ""])
    return entries


def attach_digests(listing: Listing, known: dict[str, list], hashed: tuple[str, ...]) -> None:
    """Fill in the content digests a later run needs to tell a touched file from a changed
    one: from `known` file states ([path, size, mtime_ns, inode, digest], taken when the
    build read the file) when they are of the same stat, else computed for the regular
    files under `hashed` (theme, prices: small). A file left without one is taken as changed
    whenever its stat moves."""
    for entry in listing:
        if len(entry) != 5:
            continue
        state = known.get(entry[0])
        if state is not None and state[1:4] == entry[1:4]:
            entry[4] = state[4]
        elif entry[0].startswith(hashed):
            try:
                if stat.S_ISREG(os.lstat(entry[0]).st_mode):
                    entry[4] = content_digest(entry[0], entry[1])
            except OSError:
                pass


def changed_files(recorded: Listing, current: Listing | None) -> Listing | None:
    """The files of `current` whose bytes differ from `recorded`'s (none: the same bytes), or
    None when the listings differ otherwise (a file or folder added, removed, or not the
    same kind). A file of the same stat is the same; one only touched is hashed and the
    same when its size and content digest are. Digests are copied into `current` (so it
    can be recorded in turn)."""
    if current is None or len(current) != len(recorded):
        return None
    changed = []
    for then, now in zip(recorded, current):
        if now[0] != then[0] or (len(now) != 5) != (len(then) != 5) or (len(now) != 5 and now[1] != then[1]):
            return None
        if len(now) != 5 or now[1:4] == then[1:4]:
            now[4:] = then[4:]
            continue
        if now[1] != then[1] or not then[4]:
            changed.append(now)
            continue
        try:
            now[4] = content_digest(now[0], now[1])
        except OSError:
            return None
        if now[4] != then[4]:
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


def unchanged_outputs(out: Path, key: str) -> set[str] | None:
    """The files the last build of `out` with settings `key` wrote, when all are still as it
    left them (the manifest aside: the writer writes that anew)."""
    from replay_site.store.publish import (
        MANIFEST,  # here: publish finds libc on import, which entry.py can do without
    )

    try:
        record = json.loads(site_record_path(out).read_text())
        if record["key"] != key or output_states(out, set(record["outputs"])) != record["outputs"]:
            return None
        return set(record["outputs"]) - {MANIFEST}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def replace_file(path: Path, value: Any) -> None:
    """Replace `path` atomically (with `value` as JSON, or bytes already encoded); a cache
    that cannot be written only costs a later build time."""
    data = value if isinstance(value, bytes) else json.dumps(value).encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temp, path)
    except OSError:
        pass

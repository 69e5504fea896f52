"""The site record: what a whole build saw and wrote, so that the console entry (entry.py)
can tell that running the same command again would change nothing. Standard library only:
answering that must not import the readers, the renderer or the price table."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .writer import MANIFEST


def cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "replay-site"


def tree_digest(folders: list[Path], suffixes: tuple[str, ...] | None = None) -> str:
    """Content hash of every file under `folders` (of the given suffixes)."""
    digest = hashlib.sha1()
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and (suffixes is None or path.suffix in suffixes):
                digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def code_digest() -> str:
    return tree_digest([Path(__file__).parent], (".py",))


def code_digest() -> str:
    return tree_digest([Path(__file__).parent], (".py",))


def site_record_path(out: Path) -> Path:
    return cache_folder() / f"{hashlib.sha1(str(out.resolve()).encode()).hexdigest()}.site.json"


def tree_listing(paths: list[Path]) -> str | None:
    """Digest of the path, size, mtime and inode of every file under `paths` (files or
    folders, missing ones included as missing). None when a symbolic link makes the walk
    unlike the readers' own, so that nothing is ever taken as unchanged on a guess."""
    digest = hashlib.sha1()
    pending = [str(path) for path in reversed(paths)]
    while pending:
        path = pending.pop()
        try:
            stat = os.lstat(path)
        except OSError:
            digest.update(f"{path}\0missing\n".encode())
            continue
        if os.path.islink(path):
            return None
        if os.path.isdir(path):
            try:
                names = sorted(os.listdir(path), reverse=True)
            except OSError:
                return None
            digest.update(f"{path}\0dir\n".encode())
            pending.extend(os.path.join(path, name) for name in names)
        else:
            digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\0{stat.st_ino}\n".encode())
    return digest.hexdigest()


def output_states(out: Path, names: set[str]) -> dict[str, list[int]] | None:
    states = {}
    for name in sorted(names):
        try:
            stat = (out / name).stat()
        except OSError:
            return None
        states[name] = [stat.st_size, stat.st_mtime_ns]
    return states


def unchanged_outputs(out: Path, key: str) -> set[str] | None:
    """The files the last build of `out` with settings `key` wrote, when all are still as it
    left them (the manifest aside: the writer writes that anew)."""
    try:
        record = json.loads(site_record_path(out).read_text())
        if record["key"] != key or output_states(out, set(record["outputs"])) != record["outputs"]:
            return None
        return set(record["outputs"]) - {MANIFEST}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_json(path: Path, value: Any) -> None:
    """Replace `path` atomically; a cache that cannot be written only costs a later build time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(handle, "w") as stream:
            json.dump(value, stream)
        os.replace(temp, path)
    except OSError:
        pass

"""Archiving one log as a build finds it: not read at all when its stat is the one the
archive recorded; when it grew and still begins with the archived bytes, only what was
appended is read into a new chunk; else it is archived anew."""
from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import BinaryIO

from replay_site.archive.folder import WINDOW, Archive, Entry

_BLOCK = 1 << 20


def today() -> str:
    return datetime.now(timezone.utc).date().isoformat()


def keep(archive: Archive, path: Path, day: str, side: bool = False) -> Entry:
    """The archive's entry for the log at `path` (a file its reader may read beside a log
    when `side`), brought up to date; raises OSError."""
    name = str(path)
    with open(path, "rb") as stream:
        status = os.fstat(stream.fileno())
        entry = archive.entry(name)
        if entry and entry.size == status.st_size and entry.stat == (status.st_mtime_ns, status.st_ino):
            if entry.last_seen != day or entry.gone_since:
                entry = replace(entry, last_seen=day, gone_since=None)
                archive.save(entry)
            return entry
        whole, chunks, window = hashlib.sha256(), (), b""
        if entry and status.st_size >= entry.size:
            window = _prefix(stream, entry.size, whole)
            if whole.hexdigest() == entry.sha256:
                chunks = entry.chunks
            else:  # rewritten, not appended to: archived anew
                stream.seek(0)
                whole, window = hashlib.sha256(), b""
        start = stream.tell()
        if not chunks or status.st_size > start:
            chunk = archive.put(stream, window, whole)
            chunks += (chunk,)
            size = start + chunk.size
        else:  # only touched
            size = start
    kept = Entry(name, size, whole.hexdigest(), chunks, entry.first_seen if entry else day, day, None,
                 (status.st_mtime_ns, status.st_ino), side)
    archive.save(kept)  # last: a manifest names only chunks already in place
    return kept


def _prefix(stream: BinaryIO, size: int, whole) -> bytes:
    """The first `size` bytes of `stream` hashed into `whole`; their last WINDOW bytes."""
    left, tail = size, b""
    while left > 0:
        block = stream.read(min(_BLOCK, left))
        if not block:
            break
        whole.update(block)
        left -= len(block)
        tail = (tail + block)[-WINDOW:]
    return tail

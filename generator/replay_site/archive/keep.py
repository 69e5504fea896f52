"""Archiving one log as a build finds it: not read at all when its stat is the one the
archive recorded; when it grew and still begins with the archived bytes, only what was
appended is read into a new chunk; else it is archived anew, compressed against the head of
its peers' reference (Peers)."""
from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import BinaryIO

from replay_site.archive.folder import WINDOW, Archive, Chunk, Entry, Reference

_BLOCK = 1 << 20


def today() -> str:
    return datetime.now(timezone.utc).date().isoformat()


class Peers:
    """The logs of one agent under one root as a build archives them: a new log no larger
    than the largest one archived alone so far is compressed against its head (the
    reference); a larger one is archived alone and becomes the reference. A base is always
    a chunk stored alone, so reading a log never needs more than one other chunk."""

    def __init__(self) -> None:
        self.reference: Reference | None = None

    def base_for(self, size: int) -> Reference | None:
        return self.reference if self.reference and size <= self.reference.chunk.size else None

    def offer(self, chunk: Chunk, head: bytes) -> None:
        if not chunk.window and (self.reference is None or chunk.size > self.reference.chunk.size):
            self.reference = Reference.of(chunk, head)


def keep(archive: Archive, path: Path, day: str, side: bool = False, peers: Peers | None = None) -> Entry:
    """The archive's entry for the log at `path` (a file its reader may read beside a log
    when `side`), brought up to date, a new log compressed against its `peers`' reference;
    raises OSError."""
    name = str(path)
    with open(path, "rb") as stream:
        status = os.fstat(stream.fileno())
        entry = archive.entry(name)
        if entry and entry.size == status.st_size and entry.stat == (status.st_mtime_ns, status.st_ino):
            if entry.last_seen != day or entry.gone_since:
                entry = replace(entry, last_seen=day, gone_since=None)
                archive.save(entry)
            return entry
        whole, chunks, window, base = hashlib.sha256(), (), b"", None
        if entry and status.st_size >= entry.size:
            window = _prefix(stream, entry.size, whole)
            if whole.hexdigest() == entry.sha256:
                chunks, base = entry.chunks, entry.base
            else:  # rewritten, not appended to: archived anew
                stream.seek(0)
                whole, window = hashlib.sha256(), b""
        start = stream.tell()
        if not chunks:
            reference = peers.base_for(status.st_size) if peers else None
            chunk, head = archive.put(stream, reference or b"", whole)
            chunks, base, size = (chunk,), reference.chunk.object if reference else None, chunk.size
            if peers:
                peers.offer(chunk, head)
        elif status.st_size > start:
            chunk, _ = archive.put(stream, window, whole)
            chunks += (chunk,)
            size = start + chunk.size
        else:  # only touched
            size = start
    kept = Entry(name, size, whole.hexdigest(), chunks, entry.first_seen if entry else day, day, None,
                 (status.st_mtime_ns, status.st_ino), side, base)
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

"""Opening logs safely, and the one head read per file that discovery hands to every reader.

Sources are untrusted paths: a FIFO or a `/dev/zero` symlink named `*.jsonl` must never hang
or exhaust a build. Every open here is non-blocking and checked to be a regular file (after
symlinks are resolved) before a byte is read.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, BinaryIO

import orjson

BOM = b"\xef\xbb\xbf"
HEAD_CHUNK = 64 * 1024
HEAD_LINES = 30  # the most lines any reader's detect looks at
HEAD_LIMIT = 1024 * 1024  # a head never grows past this, however long its first lines are


class NotRegularFile(OSError):
    """A source that is a FIFO, device, socket or folder: never opened for reading."""


def file_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def open_regular(path: Path) -> BinaryIO:
    """`path` opened for binary reading, only if it is a regular file (symlinks followed).

    O_NONBLOCK makes opening a FIFO return at once instead of waiting for a writer; it has
    no effect on reading a regular file, which is all that is ever read.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{file_kind(mode)}, not read")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def describe_error(exc: OSError) -> str:
    """How a warning says why a file could not be read."""
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, NotRegularFile):
        return str(exc)
    return exc.strerror or str(exc)


@dataclass
class Head:
    """The first bytes of one file (whole lines, up to HEAD_LINES lines or HEAD_LIMIT bytes)."""

    path: Path
    data: bytes
    size: int
    named: bool = False  # given by path on the command line: recognised by content alone

    @property
    def complete(self) -> bool:
        return len(self.data) >= self.size

    def lines(self, limit: int = HEAD_LINES) -> list[bytes]:
        """The head's complete lines, stripped, blank ones included (line numbers matter to sniffers)."""
        body = self.data.removeprefix(BOM)
        parts = body.split(b"\n")
        if not self.complete:
            parts = parts[:-1]  # the last piece was cut by the head's limit
        return [part.strip() for part in parts[:limit]]

    @cached_property
    def _parsed(self) -> list[Any]:
        """Each head line parsed once (None for blank or invalid lines), shared by every reader."""
        parsed = []
        for raw in self.lines():
            try:
                parsed.append(orjson.loads(raw) if raw else None)
            except orjson.JSONDecodeError:
                parsed.append(None)
        return parsed

    def objects(self, limit: int = HEAD_LINES) -> list[dict[str, Any]]:
        """The JSON objects among the first `limit` lines, in order; other lines passed over."""
        return [value for value in self._parsed[:limit] if isinstance(value, dict)]

    def first_object(self, limit: int = 20) -> dict[str, Any] | None:
        found = self.objects(limit)
        return found[0] if found else None


def read_head(path: Path, named: bool = False) -> Head:
    """The head of `path`; raises OSError (PermissionError, NotRegularFile, …) when unreadable."""
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        chunks: list[bytes] = []
        total = newlines = 0
        while total < HEAD_LIMIT and newlines < HEAD_LINES:
            chunk = handle.read(HEAD_CHUNK)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            newlines += chunk.count(b"\n")
    data = b"".join(chunks)
    return Head(path, data, max(size, len(data)), named)

"""Opening logs safely, and the one head read per file that discovery hands to every reader.

Sources are untrusted paths: a FIFO or a `/dev/zero` symlink named `*.jsonl` must never hang
or exhaust a build. Every open here is non-blocking and checked to be a regular file (after
symlinks are resolved) before a byte is read.

A source may also be a URL (s3://, gs://, az://, memory://, ...): `location` makes it a
universal_pathlib UPath, whose Path-like methods the readers use as they use a Path's, and
which opens objects through fsspec (credentials and endpoints as each fsspec backend reads
them: AWS_ENDPOINT_URL, GOOGLE_APPLICATION_CREDENTIALS, ...). A local path stays a Path.
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


class StoreUnavailable(Exception):
    """A URL whose store this installation cannot reach (universal_pathlib or the fsspec backend missing)."""


def location(text: str | os.PathLike) -> Path:
    """A source or output as the user named it: a Path, or a UPath for a URL (file:// is local)."""
    text = os.fspath(text)
    if text.startswith("file://"):
        return Path(text.removeprefix("file://"))
    if "://" not in text:
        return Path(text)
    try:
        from upath import UPath  # an extra (s3, gcs, dask): only a URL needs it

        return UPath(text)
    except ImportError as exc:
        raise StoreUnavailable(f"{text}: {exc} (pip install 'replay-site[s3]' or '[gcs]')") from None


def is_local(path: object) -> bool:
    return isinstance(path, Path)


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
    no effect on reading a regular file, which is all that is ever read. An object of a
    store (a UPath) is opened through fsspec: object stores hold nothing but regular files.
    """
    if not is_local(path):
        return path.open("rb")
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
        size = os.fstat(handle.fileno()).st_size if is_local(path) else path.stat().st_size
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

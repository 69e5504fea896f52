"""Opening logs safely, and the one head read per file that discovery hands to every reader.

Sources are untrusted paths: a FIFO or a `/dev/zero` symlink named `*.jsonl` must never hang
or exhaust a build. Every open here is non-blocking and checked to be a regular file (after
symlinks are resolved) before a byte is read.

Agents compress old logs (Codex CLI 0.137+ keeps rollouts idle for a week as
`rollout-*.jsonl.zst`), so a log is opened by its content: zstd and gzip streams (told by their
magic bytes, whatever the name) are read decompressed, frame after frame, by `open_log`.
A source may also be a URL (s3://, gs://, az://, memory://, ...): `location` makes it a
universal_pathlib UPath, whose Path-like methods the readers use as they use a Path's, and
which opens objects through fsspec (credentials and endpoints as each fsspec backend reads
them: AWS_ENDPOINT_URL, GOOGLE_APPLICATION_CREDENTIALS, ...). A local path stays a Path.
"""
from __future__ import annotations

import io
import os
import stat
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, BinaryIO

import orjson
import zstandard

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
        # through a buffer of our own: fsspec's files read a line whole, with no size limit
        # (jsonl._lines asks for at most HUGE_LINE bytes at a time)
        return io.BufferedReader(path.open("rb"), HEAD_CHUNK)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{file_kind(mode)}, not read")
        # log lines run to kilobytes: iterating them through a 64 KiB buffer, not the default
        # 8 KiB, takes half the time
        return os.fdopen(fd, "rb", buffering=HEAD_CHUNK)
    except BaseException:
        os.close(fd)
        raise


ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
GZIP_MAGIC = b"\x1f\x8b"
COMPRESSED_SUFFIXES = (".zst", ".gz")
# Compressed bytes handed to the decompressor at a time: small, so that what one call gives
# back stays bounded however hostile the stream (a zstd RLE block turns 4 bytes into 128 KiB).
_COMPRESSED_CHUNK = 2048
# A compressed log may expand to at most this many times its size (plus a flat allowance):
# JSONL logs compress 5-20 times; a stream that expands far more is a bomb, read no further.
MAX_EXPANSION = 1000
EXPANSION_ALLOWANCE = 256 * 1024 * 1024


class DamagedStream(OSError):
    """A compressed log whose stream is cut short or corrupt: what came before it was read."""


def plain_name(path: Path) -> Path:
    """`path` without a compression suffix (`x.jsonl.zst` -> `x.jsonl`): what readers match names on."""
    return path.with_suffix("") if path.suffix in COMPRESSED_SUFFIXES else path


class _Decompressed(io.RawIOBase):
    """The decompressed bytes of a zstd or gzip file, across concatenated frames or members
    (Codex appends zstd frames to one file); a cut or corrupt stream raises DamagedStream."""

    def __init__(self, raw: BinaryIO, size: int, new_decoder: Callable[[], Any], what: str) -> None:
        self._raw, self._new, self._what = raw, new_decoder, what
        self._decoder = new_decoder()
        self._pending = b""  # decompressed, not yet handed out
        self._fed = False  # the current frame has been given bytes (an unfinished frame at EOF is a cut)
        self._given = 0
        self._limit = MAX_EXPANSION * size + EXPANSION_ALLOWANCE

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            data = self._decoder.unused_data if self._decoder.eof else b""
            if self._decoder.eof:
                self._decoder, self._fed = self._new(), False
            data += self._raw.read(_COMPRESSED_CHUNK)
            if not data:
                if self._fed:
                    raise DamagedStream(f"{self._what} stream cut short")
                return 0
            self._fed = True
            try:
                self._pending = self._decoder.decompress(data)
            except (zstandard.ZstdError, zlib.error) as exc:
                raise DamagedStream(f"{self._what} stream damaged ({exc})") from None
            self._given += len(self._pending)
            if self._given > self._limit:
                raise DamagedStream(f"{self._what} stream expands past {MAX_EXPANSION} times its size")
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size

    def fileno(self) -> int:
        return self._raw.fileno()

    def close(self) -> None:
        self._raw.close()
        super().close()


def is_decompressed(handle: BinaryIO) -> bool:
    """Whether `open_log` gave the decompressed content of a compressed file."""
    return isinstance(getattr(handle, "raw", None), _Decompressed)


def stored_size(path: Path, handle: BinaryIO) -> int:
    """The size of the file `handle` holds open, as stored (compressed, when it is)."""
    return os.fstat(handle.fileno()).st_size if is_local(path) else path.stat().st_size


def open_log(path: Path) -> BinaryIO:
    """`path` opened like `open_regular`, its content decompressed when it is a zstd or gzip
    stream (told by its first bytes, not its name)."""
    handle = open_regular(path)
    try:
        magic = handle.read(4)
        handle.seek(0)
    except BaseException:
        handle.close()
        raise
    if magic.startswith(ZSTD_MAGIC):
        decoder = _Decompressed(handle, stored_size(path, handle), lambda: zstandard.ZstdDecompressor().decompressobj(), "zstd")
    elif magic.startswith(GZIP_MAGIC):
        decoder = _Decompressed(handle, stored_size(path, handle), lambda: zlib.decompressobj(wbits=zlib.MAX_WBITS | 16), "gzip")
    else:
        return handle
    return io.BufferedReader(decoder, HEAD_CHUNK)  # type: ignore[return-value]


def moved_folder(variable: str, default: Path) -> Path:
    """An agent's folder: where the environment variable that moves it points, else `default`."""
    moved = os.environ.get(variable)
    return Path(moved).expanduser() if moved else default


def families(paths: Iterable[Path], parent_of: Mapping[Path, Path]) -> dict[Path, list[Path]]:
    """Files grouped under the top of their chain of parents (a session with its forks or
    subagents), each group in path order; a chain that loops stops where it would."""
    def top(path: Path) -> Path:
        seen = {path}
        while (up := parent_of.get(path)) is not None and up not in seen:
            seen.add(up)
            path = up
        return path

    grouped: dict[Path, list[Path]] = {}
    for path in sorted(paths):
        grouped.setdefault(top(path), []).append(path)
    return grouped


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
    size: int  # of the file on disk
    named: bool = False  # given by path on the command line: recognised by content alone
    whole: bool | None = None  # the head is the whole (decompressed) content; None: tell by size

    @property
    def complete(self) -> bool:
        return self.whole if self.whole is not None else len(self.data) >= self.size

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
    """The head of `path` (decompressed when it is compressed); raises OSError (PermissionError,
    NotRegularFile, DamagedStream, …) when unreadable."""
    with open_log(path) as handle:
        size = stored_size(path, handle)
        compressed = is_decompressed(handle)
        chunks: list[bytes] = []
        total = newlines = 0
        ended = False
        # read1 where the handle has it (a local or decompressed file: what is at hand, not
        # HEAD_CHUNK bytes by force); an object store's file has only read
        read_some = getattr(handle, "read1", handle.read)
        while total < HEAD_LIMIT and newlines < HEAD_LINES:
            try:
                chunk = read_some(HEAD_CHUNK)
            except DamagedStream:
                if not chunks:
                    raise
                chunk = b""  # the head's lines before the damage are still what the file is
            if not chunk:
                ended = True
                break
            chunks.append(chunk)
            total += len(chunk)
            newlines += chunk.count(b"\n")
    data = b"".join(chunks)
    return Head(path, data, max(size, len(data)), named, whole=ended if compressed else None)

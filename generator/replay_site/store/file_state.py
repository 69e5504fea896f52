""""The same file as last time": one description of a file as a build saw it, and one rule
telling whether it still holds the same bytes; files on disk and objects in a store alike. The build cache (cache.py), the site record
(states.py, read by the console entry) and discovery's memory (detections.py) all keep
FileStates. Standard library only: the console entry imports this to answer a build that
would change nothing.
"""
from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from datetime import datetime
from typing import Any, BinaryIO

# Logs up to this size are hashed whole; larger ones by their first and last EDGE_BYTES and
# their size (an append always changes the size; hashing a 30 MB log whole on every
# touch would cost more than the rest of a no-op rebuild).
WHOLE_DIGEST_BYTES = 4 << 20
EDGE_BYTES = 256 << 10

FILE, FOLDER, MISSING = "file", "folder", "missing"
# What object stores call an object's content digest (S3, Azure: ETag; GCS: md5Hash/crc32c).
_STORE_DIGESTS = ("ETag", "etag", "md5Hash", "crc32c", "content_md5")
STORE_DIGEST = "store:"
_TIME_FIELDS = ("LastModified", "last_modified", "mtime", "updated", "created")


def _time_ns(info: dict[str, Any]) -> int:
    value = next((info[key] for key in _TIME_FIELDS if info.get(key)), 0)
    if isinstance(value, datetime):
        return int(value.timestamp() * 1_000_000_000)
    if isinstance(value, (int, float)):
        return int(value * 1_000_000_000)
    try:
        return int(datetime.fromisoformat(str(value)).timestamp() * 1_000_000_000)
    except ValueError:
        return 0


def _stored(path: object) -> Any | None:
    """`path` as a UPath when it is an object in a store (a UPath, or a URL as a string)."""
    if isinstance(path, os.PathLike):
        return None
    if isinstance(path, str):
        if "://" not in path:
            return None
        from upath import UPath  # only a URL needs it (an extra)

        return UPath(path)
    return path


def _open(path: str | os.PathLike) -> BinaryIO:
    stored = _stored(path)
    return open(path, "rb") if stored is None else stored.open("rb")


def content_digest(path: str | os.PathLike, size: int) -> str:
    """Digest of the first `size` bytes of `path`: all of them when few, else head + tail + size.
    SHA-256 (cut to 40 hex digits), which processors hash in hardware: twice as fast here as
    blake2b, whose reference code hashed the logs of a cold build with 1.9% of its instructions."""
    digest = hashlib.sha256(str(size).encode())
    with _open(path) as stream:
        if size <= WHOLE_DIGEST_BYTES:
            digest.update(stream.read(size))
        else:
            digest.update(stream.read(EDGE_BYTES))
            stream.seek(size - EDGE_BYTES)
            digest.update(stream.read(EDGE_BYTES))
    return digest.hexdigest()[:40]


@dataclass(slots=True)
class FileState:
    """A path as a build saw it: a file with its stat identity (size, mtime, inode) and,
    once taken, the digest of its content (empty until then); or a folder, or nothing."""

    path: str
    kind: str = FILE
    size: int = 0
    mtime_ns: int = 0
    inode: int = 0
    digest: str = ""

    @classmethod
    def of_status(cls, path: str | os.PathLike, status: os.stat_result) -> FileState:
        if stat.S_ISDIR(status.st_mode):
            return cls(str(path), FOLDER)
        return cls(str(path), FILE, status.st_size, status.st_mtime_ns, status.st_ino)

    @classmethod
    def of(cls, path: str | os.PathLike) -> FileState:
        """The state of `path` now (links followed), without its digest; raises OSError. An
        object of a store has no inode; its digest is the store's own (ETag and the like)
        when the store gives one, so that telling whether it changed reads no byte."""
        stored = _stored(path)
        if stored is None:
            return cls.of_status(path, os.stat(path))
        info = stored.fs.info(stored.path)
        if info.get("type") == "directory":
            return cls(str(stored), FOLDER)
        tag = next((str(info[key]) for key in _STORE_DIGESTS if info.get(key)), "")
        return cls(str(stored), FILE, int(info.get("size") or 0), _time_ns(info), 0, STORE_DIGEST + tag if tag else "")

    @property
    def is_file(self) -> bool:
        return self.kind == FILE

    def same_stat(self, other: FileState) -> bool:
        """The same file by its stat alone (for a store's object: and by the store's digest)."""
        if (self.path, self.kind, self.size, self.mtime_ns, self.inode) != \
                (other.path, other.kind, other.size, other.mtime_ns, other.inode):
            return False
        return self.digest == other.digest or not (self.digest.startswith(STORE_DIGEST) and other.digest.startswith(STORE_DIGEST))

    def with_digest(self) -> FileState:
        """This state with its content digest (taken now unless the store gave it); raises OSError."""
        if self.digest:
            return FileState(self.path, self.kind, self.size, self.mtime_ns, self.inode, self.digest)
        return FileState(self.path, self.kind, self.size, self.mtime_ns, self.inode, content_digest(self.path, self.size))

    def to_json(self) -> list:
        """Compact: [path, size, mtime_ns, inode, digest] for a file, [path, kind] otherwise."""
        if self.kind == FILE:
            return [self.path, self.size, self.mtime_ns, self.inode, self.digest]
        return [self.path, self.kind]

    @classmethod
    def from_json(cls, value: list) -> FileState:
        if len(value) == 5:
            return cls(value[0], FILE, *value[1:])
        return cls(value[0], value[1])


def same_bytes(then: FileState, now: FileState) -> bool:
    """Whether `now` holds the bytes `then` recorded. The same stat is the same file (its
    digest is copied into `now`, which can be recorded in turn); another path, kind or size
    is another file without reading a byte; a file only touched (or without a recorded
    digest) is hashed, never parsed, and its digest kept in `now`."""
    if then.same_stat(now):
        now.digest = then.digest
        return True
    if (now.path, now.kind, now.size) != (then.path, then.kind, then.size) or not now.is_file or not then.digest:
        return False
    if not now.digest:  # a store's object has its digest already
        try:
            now.digest = content_digest(now.path, now.size)
        except OSError:
            return False
    return now.digest == then.digest


def states_to_json(states: list[FileState]) -> list[list]:
    return [state.to_json() for state in states]


def states_from_json(values: list[list]) -> list[FileState]:
    return [FileState.from_json(value) for value in values]

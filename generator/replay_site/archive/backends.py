"""Where the archive's objects lie: a folder of this machine, or an object store (s3.py). The
archive (folder.py) asks only for what both do alike: named objects, each written at once
(a reader sees the whole object or none), listed by prefix, read, sized, deleted. Names are
`/`-separated paths below the archive: `objects/ab/<sha256>.zst`, `logs/<key>.json.zst`."""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, Protocol

FOLDER_MODE, FILE_MODE = 0o700, 0o600
TEMPORARY = ".tmp-"  # a file being written; never an object


class Backend(Protocol):
    where: str  # how the user names the archive (a folder, an s3:// URL)

    def get(self, name: str) -> bytes:
        """The object's bytes; raises OSError (FileNotFoundError when there is none)."""

    def put(self, name: str, data: bytes) -> None:
        """The object written at once."""

    def put_from(self, fill: Callable[[BinaryIO], str]) -> str:
        """An object written by `fill` into a private stream, which returns its name; stored at
        once under it only when `fill` returns (never half). Returns the name."""

    def names(self, prefix: str) -> list[str]:
        """Every object whose name starts with `prefix`, sorted."""

    def size(self, name: str) -> int:
        """The object's stored size; 0 when there is none."""

    def delete(self, name: str) -> None:
        """The object gone (no error when there was none)."""


class FolderBackend:
    """A folder readable by the user alone (0700 folders, 0600 files). A temporary file is
    written beside its target and moved over it."""

    def __init__(self, folder: Path) -> None:
        self.folder = private_folder(folder)
        self.where = str(folder)

    def path(self, name: str) -> Path:
        return self.folder / name

    def get(self, name: str) -> bytes:
        return self.path(name).read_bytes()

    def put(self, name: str, data: bytes) -> None:
        target = self.path(name)
        private_folder(target.parent)
        # Not synced: a killed build loses nothing the kernel holds, and after a power cut an
        # entry that lost bytes fails its digest check (never rendered, named by `archive
        # verify`). A sync per log cost a cold build of the medium corpus about 1 s.
        write_at_once(target, [data], durable=False)

    def put_from(self, fill: Callable[[BinaryIO], str]) -> str:
        spool = private_folder(self.folder / "objects")
        handle, temporary = tempfile.mkstemp(dir=spool, prefix=TEMPORARY)
        try:
            with os.fdopen(handle, "wb") as out:
                name = fill(out)
            target = self.path(name)
            private_folder(target.parent)
            os.chmod(temporary, FILE_MODE)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return name

    def names(self, prefix: str) -> list[str]:
        top, _, start = prefix.rpartition("/")
        base = self.path(top) if top else self.folder
        found = []
        for folder, _, files in os.walk(base):
            for file in files:
                name = (Path(folder) / file).relative_to(self.folder).as_posix()
                if name.startswith(prefix) and not file.startswith(TEMPORARY):
                    found.append(name)
        return sorted(found)

    def size(self, name: str) -> int:
        try:
            return self.path(name).stat().st_size
        except OSError:
            return 0

    def delete(self, name: str) -> None:
        self.path(name).unlink(missing_ok=True)


def private_folder(path: Path) -> Path:
    """`path` made (parents too) and kept readable by the user alone."""
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    for folder in reversed(missing):
        folder.mkdir(mode=FOLDER_MODE, exist_ok=True)
    os.chmod(path, FOLDER_MODE)
    return path


def write_at_once(path: Path, chunks, durable: bool = True) -> None:
    """`path` replaced at once by the bytes (0600), synced to disk first when `durable`;
    raises OSError."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=TEMPORARY)
    try:
        with os.fdopen(handle, "wb") as stream:
            for chunk in chunks:
                stream.write(chunk)
            stream.flush()
            if durable:
                os.fsync(stream.fileno())
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise

"""The site writer: knows only files. A build writes into a staging folder beside the output
folder and publishes it whole in finish() (publish.py), so a site never mixes two builds and
a failed or killed build leaves the previous site as it was."""
from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from replay_site.store.publish import (
    MANIFEST,
    Exchange,
    NEW,
    PARTIAL,
    PublishError,
    carry_over,
    check_writable,
    discard,
    lock,
    output_folder,
    recover,
    remove_tree,
    swap,
    temp_prefix,
    unlock,
)

# mkstemp creates files readable by their owner only; a site is meant to be served and
# shared, so files get the usual permissions under the user's umask.
_UMASK = os.umask(0)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK
FOLDER_MODE = 0o777 & ~_UMASK
# A longer text is encoded and written a slice at a time: a 300 MB output's side file is not
# held a second time, encoded.
_TEXT_SLICE = 1 << 20


def _checked(relative: str) -> str:
    """`relative` when it names a file inside the site, else ValueError."""
    if any(part in ("", ".", "..") for part in relative.split("/")):
        raise ValueError(f"not a path inside the site: {relative!r}")
    return relative


class FolderWriter:
    """Writes files into a folder this build owns, which nothing serves until it is published:
    a file new to it is written in place; one already there (a file linked from the previous
    site, or written before) goes through a temp file and a rename, so it is replaced, never
    written through."""

    def __init__(self, root: Path):
        self.root = root
        self.written: set[str] = set()
        self._folders: set[str] = set()  # made already: a site's ~1000 files share a few folders

    def _target(self, relative: str) -> Path:
        return self.root.joinpath(*_checked(relative).split("/"))

    def write(self, relative: str, data: str | bytes | BinaryIO) -> None:
        """`data` may be a file to copy from (a long session's search shard: never all in memory)."""
        target = os.path.join(self.root, _checked(relative))
        payload = data.encode() if isinstance(data, str) and len(data) <= _TEXT_SLICE else data
        try:
            folder = os.path.dirname(target)
            if folder not in self._folders:
                os.makedirs(folder, exist_ok=True)
                self._folders.add(folder)
            handle, temp = _create(target)
            try:
                with open(handle, "wb") as stream:
                    if hasattr(payload, "read"):
                        shutil.copyfileobj(payload, stream)
                    elif isinstance(payload, str):
                        for start in range(0, len(payload), _TEXT_SLICE):
                            stream.write(payload[start:start + _TEXT_SLICE].encode())
                    else:
                        stream.write(payload)
                if temp is not None:
                    os.replace(temp, target)
            except BaseException:
                Path(temp or target).unlink(missing_ok=True)  # never half a file
                raise
        except OSError as exc:
            raise PublishError(f"cannot write {relative} of the site: {exc.strerror or exc}") from None
        self.written.add(relative)

    def remove(self, relatives: Iterable[str]) -> None:
        """Take back files this writer wrote (a session whose rendering failed midway)."""
        for relative in sorted(relatives):
            self._target(relative).unlink(missing_ok=True)
            self.written.discard(relative)

    def refresh(self, relative: str, data: str | bytes) -> None:
        """Write a file the previous site may hold with the same bytes (a site-wide file): a
        folder of one build has no previous site, so this writes it."""
        self.write(relative, data)


def _create(target: str) -> tuple[int, str | None]:
    """A descriptor to write `target` through: the new file itself, created with the mode the
    umask gives; or, when `target` exists, a temp file beside it (the second item) to rename onto it."""
    try:
        return os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666), None
    except FileExistsError:
        handle, temp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".tmp-")
        os.chmod(temp, FILE_MODE)
        return handle, temp


def folder_writer(root):
    """The writer a worker writes one source's files with: into a folder, or a store's (objects.py)."""
    if isinstance(root, Path):
        return FolderWriter(root)
    from replay_site.store.objects import ObjectWriter

    return ObjectWriter(root)


def check_output(out, sources: Iterable[Path] = (), force: bool = False) -> None:
    """Refuse an output folder the build could not publish at, before any work (PublishError);
    site_writer checks again once it has tidied what a killed build left."""
    if isinstance(out, Path):
        check_writable(out, output_folder(out, sources), force)


def site_writer(out, sources: Iterable[Path] = (), force: bool = False, exchange: Exchange | None = None):
    """The build's writer: a staging folder swapped in whole (in one step with `exchange`), or
    a store's objects in order."""
    if isinstance(out, Path):
        return SiteWriter(out, sources, force, exchange)
    from replay_site.store.objects import ObjectSiteWriter

    return ObjectSiteWriter(out, force)


class SiteWriter(FolderWriter):
    """Stages a whole site beside `out` and publishes it in finish(). Use it as a context
    manager: leaving the block without finish() (an error, Ctrl-C) removes the staging
    folder and leaves the previous site untouched."""

    def __init__(self, out: Path, sources: Iterable[Path] = (), force: bool = False, exchange: Exchange | None = None):
        self.out = out
        self._exchange = exchange
        self.live = output_folder(out, sources)
        self.force = force
        self._published = False
        self._lock: int | None = None
        try:
            # first undo what a killed build left, which may put the previous site back
            self.leftovers: list[str] = recover(self.live)  # paths replay-site did not write, left in place
        except OSError as exc:
            raise PublishError(f"cannot tidy the folder beside {out}: {exc.strerror}") from None
        check_writable(out, self.live, force)
        try:
            staging = Path(tempfile.mkdtemp(prefix=temp_prefix(self.live, NEW), dir=self.live.parent))
        except OSError as exc:
            raise PublishError(f"cannot create a folder beside {out}: {exc.strerror}") from None
        super().__init__(staging)
        # What keep() learnt of the previous site's folders and made in the staging one, for its next call.
        self._old_root: str | None = None
        self._old_folders: dict[str, bool] = {"": True}
        self._made: set[str] = set()
        try:
            self._lock = lock(staging)
            (staging / PARTIAL).touch()
        except OSError as exc:
            self.abort()
            raise PublishError(f"cannot write beside {out}: {exc.strerror}") from None

    def __enter__(self) -> SiteWriter:
        return self

    def __exit__(self, *_exc) -> None:
        if not self._published:
            self.abort()

    def keep(self, relatives: Iterable[str]) -> bool:
        """Take these files of the previous site into the new one unchanged (hard links, so
        nothing is copied and their times stay). False, and nothing taken, when one of them
        is not a regular file of the previous site itself (a symlink is never followed)."""
        relatives = list(relatives)
        # Strings, not Paths: a rebuild keeps every page of the site, and Path objects per
        # file cost more than the links themselves.
        live, staging = os.fspath(self.live), os.fspath(self.root)
        folders = self._old_folders  # whether a folder of the old site is itself, no link on the way
        if self._old_root is None:
            self._old_root = os.path.realpath(live)
        needed = set()
        for relative in relatives:
            _checked(relative)
            folder = relative.rpartition("/")[0]
            if folder not in folders:
                folders[folder] = os.path.realpath(os.path.join(live, folder)) == os.path.join(self._old_root, folder)
            try:
                regular = stat.S_ISREG(os.lstat(os.path.join(live, relative)).st_mode)
            except OSError:
                return False
            if not regular or not folders[folder]:
                return False
            needed.add(folder)
        try:
            for folder in needed - self._made:  # a build keeps ~200 sources' files: each folder is made once
                os.makedirs(os.path.join(staging, folder), exist_ok=True)
                self._made.add(folder)
            for relative in relatives:
                source, target = os.path.join(live, relative), os.path.join(staging, relative)
                try:
                    os.link(source, target, follow_symlinks=False)
                except FileExistsError:
                    os.unlink(target)
                    os.link(source, target, follow_symlinks=False)
                except OSError:  # a file system without hard links: a copy keeps the bytes and times
                    shutil.copy2(source, target, follow_symlinks=False)
        except OSError as exc:
            raise PublishError(f"cannot take {relative} into the new site: {exc.strerror}") from None
        self.written.update(relatives)
        return True

    def refresh(self, relative: str, data: str | bytes) -> None:
        """Write a site-wide file, or keep the previous site's when it holds these very bytes:
        after one appended turn most of them are the same (the assets, the search index's
        ~150 word buckets), and reading a file costs a fraction of creating one."""
        payload = data.encode() if isinstance(data, str) else data
        if not (self._holds(relative, payload) and self.keep([relative])):
            self.write(relative, payload)

    def _holds(self, relative: str, payload: bytes) -> bool:
        """Whether the previous site's file at `relative` (never through a symlink) holds `payload`."""
        try:
            handle = os.open(os.path.join(self.live, _checked(relative)), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return False
        with open(handle, "rb") as stream:
            if os.fstat(handle).st_size != len(payload):
                return False
            return stream.read() == payload

    def finish(self) -> None:
        """Record this build's files in the manifest, carry over the user's own files (with
        --force), and swap the staging folder into place; then empty the previous site's
        folder by the deletion rule."""
        self.write(MANIFEST, json.dumps(sorted(self.written | {MANIFEST}), indent=0))
        try:
            if self.force and self.live.is_dir():
                carry_over(self.live, self.root)  # what cannot be carried stays in the old folder, reported below
            mode = stat.S_IMODE(self.live.stat().st_mode) if self.live.is_dir() else FOLDER_MODE
            os.chmod(self.root, mode)
            (self.root / PARTIAL).unlink()
            previous = swap(self.root, self.live, self._exchange)
        except OSError as exc:
            raise PublishError(f"cannot publish the site at {self.out}: {exc.strerror}") from None
        self._published = True
        self._unlock()
        if previous is not None:
            try:
                self.leftovers += discard(previous, self.live)
            except OSError as exc:  # the new site is in place; the next build finishes the cleanup
                self.leftovers.append(f"{previous} ({exc.strerror})")

    def abort(self) -> None:
        """Drop the staging folder: everything in it is this build's (or a link to a file
        that is still in the output folder)."""
        if not self._published:
            self._unlock()
            remove_tree(self.root)

    def _unlock(self) -> None:
        if self._lock is not None:
            unlock(self._lock)
            self._lock = None

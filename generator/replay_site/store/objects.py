"""A site published to an object store (s3://, gs://, az://, memory://, through fsspec).

A store has no folder to swap in one step, so the order of writes keeps a reader from
following a link to a missing object: the session pages (and their search shards) first,
written in place by whoever renders them (the build's workers, on a cluster); then the
site's assets and search files; then `index.html` and `sessions.json`, which link to them;
then the manifest; last, the objects the previous build wrote that this one did not (the
previous manifest's, never anyone else's). A page rewritten in place is replaced whole: an
object PUT is atomic. The site's state file (site_store.py) is kept beside the manifest
(`CACHE_OBJECT`), so any machine that builds this site (a cluster's client) renders again
only what changed.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, BinaryIO

from replay_site.store.publish import MANIFEST, PublishError

CACHE_OBJECT = ".replay-site-cache.json"
# Written last, in this order: they link to everything else.
LAST = ("index.html", "sessions.json")


def _checked(relative: str) -> str:
    if any(part in ("", ".", "..") for part in relative.split("/")):
        raise ValueError(f"not a path inside the site: {relative!r}")
    return relative


class ObjectWriter:
    """Writes objects under a store folder (a UPath): the worker side, as FolderWriter is on disk."""

    def __init__(self, root: Any):
        self.root = root
        self.fs = root.fs
        self.base = root.path.rstrip("/")
        self.written: set[str] = set()

    def key(self, relative: str) -> str:
        return f"{self.base}/{_checked(relative)}"

    def write(self, relative: str, data: str | bytes | BinaryIO) -> None:
        payload = data.encode() if isinstance(data, str) else data
        if hasattr(payload, "read"):  # a file (a search shard): an object is sent whole
            payload = payload.read()
        try:
            self.fs.pipe_file(self.key(relative), payload)
        except OSError as exc:
            raise PublishError(f"cannot write {relative} of the site: {exc}") from None
        self.written.add(relative)

    def remove(self, relatives: Iterable[str]) -> None:
        for relative in sorted(relatives):
            try:
                self.fs.rm_file(self.key(relative))
            except FileNotFoundError:
                pass
            self.written.discard(relative)


class ObjectSiteWriter(ObjectWriter):
    """The build's side: SiteWriter's interface (keep, finish, leftovers) for a store folder."""

    def __init__(self, out: Any, force: bool = False):
        super().__init__(out)
        self.out = out
        self._last: dict[str, bytes] = {}
        self._published = False
        try:
            found = self.fs.find(self.base) if self.fs.isdir(self.base) else []
            self.existing = {name.removeprefix(self.base).lstrip("/") for name in found}
            self.previous = self._manifest() if MANIFEST in self.existing else None
        except OSError as exc:
            raise PublishError(f"cannot list the output {out}: {exc}") from None
        foreign = sorted(name for name in self.existing - (self.previous or set())
                         if not name.startswith(".replay-site"))
        if foreign and self.previous is None and not force:
            raise PublishError(f"the output {out} is not empty and was not written by replay-site; "
                               "name another place or use --force to build beside its objects")
        self.leftovers: list[str] = foreign if force else []

    def _manifest(self) -> set[str] | None:
        try:
            listed = json.loads(self.fs.cat_file(self.key(MANIFEST)))
        except (OSError, ValueError):
            return None
        return {item for item in listed if isinstance(item, str)} if isinstance(listed, list) else None

    def __enter__(self) -> ObjectSiteWriter:
        return self

    def __exit__(self, *_exc) -> None:
        if not self._published:
            self.abort()

    def write(self, relative: str, data: str | bytes | BinaryIO) -> None:
        if relative in LAST:
            self._last[relative] = data.encode() if isinstance(data, str) else data
            self.written.add(relative)
            return
        super().write(relative, data)

    def refresh(self, relative: str, data: str | bytes) -> None:
        """A site-wide object is written whole (comparing it would fetch the previous one)."""
        self.write(relative, data)

    def keep(self, relatives: Iterable[str]) -> bool:
        """Take these objects of the previous site as they are: True when all are there."""
        relatives = list(relatives)
        if not all(relative in self.existing for relative in relatives):
            return False
        self.written.update(relatives)
        return True

    def finish(self) -> None:
        for relative in LAST:
            if relative in self._last:
                super().write(relative, self._last.pop(relative))
        super().write(MANIFEST, json.dumps(sorted(self.written | {MANIFEST}), indent=0))
        self._published = True
        stale = sorted((self.previous or set()) - self.written - {MANIFEST})
        if stale:
            try:
                self.fs.rm([self.key(relative) for relative in stale])
            except OSError as exc:  # the new site is whole; the next build deletes them
                self.leftovers.append(f"{len(stale)} stale objects not deleted ({exc})")

    def abort(self) -> None:
        """Take back the objects this build added (pages it rewrote stay: they are whole)."""
        added = self.written - self.existing - set(self._last)
        self._last.clear()
        if added:
            try:
                self.fs.rm([self.key(relative) for relative in sorted(added)])
            except OSError:
                pass

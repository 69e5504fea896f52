"""Rows of the site-wide pages kept between builds (pages/render.py's `Fragments`): after one
session changed, the index and files.html render its rows again, not every session's.

A row is known by a digest of its template's name and everything it shows (render.py); the
whole memo is kept under the store's key (this package's code, the theme, the build's
settings, the page libraries' versions: cache.py), so a memo of another key is never read.
Only the rows this build used are kept, so the memo never grows past the site. It is a part of
the output folder's store (site_store.py: read only when the state file lists it), in the
user's cache folder, never in the site; one that cannot be read or written only costs a build
the rendering.
"""
from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import orjson

from replay_site.store.states import replace_file


class FragmentMemo:
    def __init__(self, path: Path, key: str, enabled: bool = True) -> None:
        """`enabled` False (--full, or a memo the state file does not list): nothing kept is read,
        and what this build renders is kept."""
        self.path, self.key = path, key
        self.kept: dict[str, str] = {}
        # The rows this build used, by key in the order used: a row not kept already is written
        # to a file as it comes (where in it: offset, length), not held to the end of the build
        # (3,000 index rows and files.html's of the large benchmark corpus: ~14 MiB as text).
        self.used: dict[str, tuple[int, int] | None] = {}
        self._rendered = tempfile.TemporaryFile()
        if not enabled:
            return
        try:
            stored = orjson.loads(path.read_bytes())
            if isinstance(stored, dict) and stored.get("key") == key and isinstance(stored.get("rows"), dict):
                self.kept = stored["rows"]
        except (OSError, ValueError):
            pass

    def get(self, key: str) -> str | None:
        html = self.kept.get(key)
        return html if isinstance(html, str) else None

    def __setitem__(self, key: str, html: str) -> None:
        if key in self.used:
            return
        if key in self.kept:
            self.used[key] = None
            return
        member = orjson.dumps(html)
        self.used[key] = (self._rendered.tell(), len(member))
        self._rendered.write(member)

    def save(self) -> None:
        """Keep the rows this build used (when they are not exactly the ones kept already)."""
        if self.used.keys() != self.kept.keys() or any(self.used.values()):
            replace_file(self.path, self._document())
        self._rendered.close()

    def _document(self) -> Iterator[bytes]:
        """The memo as orjson.dumps writes it, a row at a time: a session that changed tens of
        thousands of files has as many rows of files.html (the 200,000-step session: ~24 MB,
        dumped whole +55 MiB at its build's peak, tracemalloc)."""
        yield b'{"key":' + orjson.dumps(self.key) + b',"rows":{'
        for number, (key, where) in enumerate(self.used.items()):
            yield (b"," if number else b"") + orjson.dumps(key) + b":" + (self._written(*where) if where else orjson.dumps(self.kept[key]))
        yield b"}}"

    def _written(self, offset: int, length: int) -> bytes:
        self._rendered.seek(offset)
        return self._rendered.read(length)

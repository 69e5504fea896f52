"""Rows of the site-wide pages kept between builds (pages/render.py's `Fragments`): after one
session changed, the index and files.html render its rows again, not every session's.

A row is known by a digest of its template's name and everything it shows (render.py); the
whole memo is kept under the build cache's key (this package's code, the theme, the build's
settings, the page libraries' versions: cache.py), so a memo of another key is never read.
Only the rows this build used are kept, so the memo never grows past the site. It lives in the
user's cache folder beside the build cache, never in the site; one that cannot be read or
written only costs a build the rendering.
"""
from __future__ import annotations

import io
from pathlib import Path

import orjson

from replay_site.store.states import replace_file


class FragmentMemo:
    def __init__(self, path: Path, key: str, enabled: bool = True) -> None:
        """`enabled` False (--full): nothing kept is read, and what this build renders is kept."""
        self.path, self.key = path, key
        self.kept: dict[str, str] = {}
        self.used: dict[str, str] = {}
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
        self.used[key] = html

    def save(self) -> None:
        """Keep the rows this build used (when they are not exactly the ones kept already),
        letting go of each as it is written: the memo is done with. Dumping a row whole with
        the others would also leave its UTF-8 bytes in each row that has a non-ASCII character
        (str keeps them once asked for), a third copy of the rows in memory."""
        if self.used == self.kept:
            return
        self.kept = {}
        document = io.BytesIO()
        document.write(b'{"key":' + orjson.dumps(self.key) + b',"rows":{')
        for number, key in enumerate(list(self.used)):
            document.write(b"," if number else b"")
            document.write(orjson.dumps(key) + b":" + orjson.dumps(self.used.pop(key)))
        document.write(b"}}")
        replace_file(self.path, document.getbuffer())

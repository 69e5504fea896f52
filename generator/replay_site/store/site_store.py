"""One output folder's incremental state, kept between builds in one store folder of the
user's cache folder (state_file.py: where, and the state file's layout): the state file,
written at once once per build, holds the format number, the key (a hash of what every page
depends on: this package's code, the theme, the build's settings, the page libraries'
versions: cache.py), the site record the console entry answers from (states.py), and one
record per source (its files' states, summaries, problems, page keys and files written:
cache.py). The parts that are not JSON or are large sit beside it under the names it lists:
discovery's memory (detections.py, a pickle of the readers' own objects) and the rows of the
index and files.html (fragments.py).

A state of another format or key is not read at all, and the parts it lists with it: the
build is a full one, and what it writes replaces them (a part this build does not keep is
removed). Parts are written before the state file, and each holds the key it was written
under, so a build killed between them leaves nothing that a later build misreads. A damaged
state file only costs a full build. A site in an object store keeps its state file beside it
(objects.py), for whichever machine builds it next; its parts stay in this machine's store.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from replay_site.caches import cache_folder
from replay_site.store.cache import BuildCache
from replay_site.store.detections import DetectionMemory
from replay_site.store.fragments import FragmentMemo
from replay_site.store.objects import CACHE_OBJECT
from replay_site.store.state_file import FORMAT, output_hash, state_document, state_path, store_folder
from replay_site.store.states import replace_file

DISCOVERY, ROWS = "discovery.pickle", "rows.json"
# Format 0, before the store: files of the cache folder named after the output's hash.
_UNFOLDED = ("json", "site.json", "rows.json", "discovery.pickle")


class SiteStore:
    def __init__(self, out: Any, key: str, enabled: bool = True) -> None:
        """`enabled` False (--full): nothing kept is read; what this build learns is kept."""
        self.out, self.key = out, key
        self.folder = store_folder(out)
        self.path = state_path(out) if isinstance(out, Path) else out / CACHE_OBJECT
        stored = self._load() if enabled else {}
        self.site: dict[str, Any] | None = stored.get("site")  # the last build's site record
        self.listed = {name for name in stored.get("parts", []) if name in (DISCOVERY, ROWS)}
        self.cache = BuildCache(key, stored.get("sources", {}))
        self._parts: dict[str, DetectionMemory | FragmentMemo] = {}  # the parts this build keeps, by name

    def _load(self) -> dict[str, Any]:
        try:
            stored = orjson.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return {}
        if not isinstance(stored, dict) or stored.get("format") != FORMAT or stored.get("key") != self.key:
            return {}
        kinds = {"site": (dict, type(None)), "parts": list, "sources": dict}
        return stored if all(isinstance(stored.get(name), kind) for name, kind in kinds.items()) else {}

    def detections(self) -> DetectionMemory:
        memory = DetectionMemory(self.folder / DISCOVERY, self.key, DISCOVERY in self.listed)
        self._parts[DISCOVERY] = memory
        return memory

    def rows(self, enabled: bool = True) -> FragmentMemo:
        memo = FragmentMemo(self.folder / ROWS, self.key, enabled and ROWS in self.listed)
        self._parts[ROWS] = memo
        return memo

    def save(self, site: dict[str, Any] | None) -> None:
        """Keep this build's state: its parts, then the state file (with `site`, its site record,
        and the sources this build recorded: sources gone are forgotten), then remove what it
        no longer lists. A part this build did not use stays as the last build left it."""
        for part in self._parts.values():
            part.save()
        parts = sorted(name for name in (DISCOVERY, ROWS)
                       if (name in self._parts or name in self.listed) and (self.folder / name).is_file())
        document = state_document(self.key, parts, orjson.dumps(site), orjson.dumps(self.cache.fresh))
        if isinstance(self.path, Path):
            replace_file(self.path, document)
        else:
            try:
                self.path.write_bytes(b"".join(document))  # an object is replaced whole
            except OSError:
                pass  # as replace_file: a state that cannot be written only costs a later build time
        for name in sorted({DISCOVERY, ROWS} - set(parts)):
            _remove(self.folder / name)
        for kind in _UNFOLDED:
            _remove(cache_folder() / f"{output_hash(self.out)}.{kind}")


def _remove(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass  # left behind, it is never read: the state file does not list it

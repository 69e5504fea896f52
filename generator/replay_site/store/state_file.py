"""Where a build keeps what it learned about one output folder, and the layout of its state
file (coverage.py's status.json is the model). Standard library only: the console entry
reads the state file's site part to answer a build that would change nothing.

Each output folder has one store folder, `cache_folder()/sites/<hash of the output path>/`,
holding `state.json` and the parts it lists (site_store.py). The state file is one JSON
document written as three lines, so that the console entry reads the first two alone (the
sources' records of a large site are megabytes):

    {"format":1,"key":"<hash of what every page depends on>","parts":["rows.json", ...],
    "site":{<the site record: what the console entry needs>},
    "sources":{<one record per source>}}

A state of another format number is never read as this one: it costs one full build.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from replay_site.caches import cache_folder, replace_file_at_once

FORMAT = 1  # moved whenever the state's meaning changes
STATE = "state.json"
_SITE = b'"site":'
_END = b",\n"


def output_hash(out: Any) -> str:
    """The hash that names an output folder's store (an object store's URL as it is)."""
    return hashlib.sha1(str(out.resolve()).encode()).hexdigest()


def store_folder(out: Any) -> Path:
    return cache_folder() / "sites" / output_hash(out)


def state_path(out: Path) -> Path:
    return store_folder(out) / STATE


def state_document(key: str, parts: list[str], site: bytes, sources: bytes) -> Iterator[bytes]:
    """The state file's bytes: `site` and `sources` are JSON already (on one line each, as
    json and orjson write them without indent)."""
    yield json.dumps({"format": FORMAT, "key": key, "parts": parts}, separators=(",", ":")).encode()[:-1] + _END
    yield _SITE + site + _END
    yield b'"sources":' + sources + b"}"


def read_site(path: Path) -> dict[str, Any] | None:
    """The site record of the state file at `path`, reading its first two lines only; None
    when the file is missing, damaged or of another format."""
    try:
        with open(path, "rb") as stream:
            head, site = stream.readline(), stream.readline()
        header = json.loads(head.removesuffix(_END) + b"}")
        if not isinstance(header, dict) or header.get("format") != FORMAT or not site.startswith(_SITE):
            return None
        record = json.loads(site.removeprefix(_SITE).removesuffix(_END))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def replace_site(path: Path, record: dict[str, Any]) -> None:
    """Replace the site record of the state file at `path` at once, the rest kept as it is."""
    try:
        head, _old, rest = path.read_bytes().split(b"\n", 2)
    except (OSError, ValueError):
        return
    replace_file_at_once(path, [head, b"\n", _SITE, json.dumps(record).encode(), _END, rest])

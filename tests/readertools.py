"""What the tests of the readers share: a source found as a build finds it."""
from __future__ import annotations

import sqlite3
from pathlib import Path

from replay_site.discover import find_sources
from replay_site.model import Session
from replay_site.readers import SessionSource, registry


def read_found(root: Path, format_name: str) -> tuple[SessionSource, list[Session]]:
    """The one source under `root` that every reader together finds, which must be
    `format_name`'s, and the sessions its reader reads from it."""
    (source,) = find_sources(root, list(registry().values()), [])
    assert source.format == format_name
    return source, registry()[format_name].read(source)


def check_folders(monkeypatch, format_name: str, default: list[Path], variable: str, value: str, moved: list[Path]) -> None:
    """The reader is registered, looks in `default` with none of its variables set, and in
    `moved` once `variable` (one it declares) is `value`."""
    reader = registry()[format_name]
    for name in reader.env_vars:
        monkeypatch.delenv(name, raising=False)
    assert reader.default_dirs() == default
    assert variable in reader.env_vars
    monkeypatch.setenv(variable, value)
    assert reader.default_dirs() == moved


def database_from(sql: Path, path: Path) -> Path:
    """A fixture database at `path`, built from its hand-written SQL (a database is not written
    by hand); its folders made as needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    connection.executescript(sql.read_text())
    connection.commit()
    connection.close()
    return path
